/**
 * Commands a deny rule names, for the disguise properties: the embedded default policy's force
 * pushes, and commands a team denies, each with its rule.
 */
export interface Target {
  /** The deny rules (undefined: the embedded default policy). */
  readonly rules?: readonly string[];
  readonly name: string;
  readonly args: readonly string[];
}

export const DEFAULT_TARGETS: readonly Target[] = [
  { name: 'git', args: ['push', '--force', 'origin', 'main'] },
  { name: 'git', args: ['push', '-f'] },
  { name: 'git', args: ['push', 'origin', '+main'] },
  { name: 'git', args: ['push', '--mirror', 'backup'] },
];

const RULED: readonly (readonly [string, string])[] = [
  ['Bash(git push *)', 'git push origin main'],
  ['Bash(git push origin *)', 'git push origin main'],
  ['Bash(git reset --hard *)', 'git reset --hard HEAD~1'],
  ['Bash(git clean -f *)', 'git clean -fdx'],
  ['Bash(git branch -D *)', 'git branch -D topic'],
  ['Bash(rm -rf *)', 'rm -rf build'],
  ['Bash(rm *)', 'rm -rf build'],
  ['Bash(curl *)', 'curl https://example.com/x'],
  ['Bash(wget *)', 'wget -q https://example.com/x'],
  ['Bash(chmod -R *)', 'chmod -R 777 src'],
  ['Bash(dd *)', 'dd if=/dev/zero of=disk.img'],
  ['Bash(ssh prod.example.com *)', 'ssh prod.example.com'],
];
export const RULED_TARGETS: readonly Target[] = RULED.map(([rule, line]) => {
  const [name, ...args] = line.split(' ');
  return { rules: [rule], name: name!, args };
});

/** The programs a stub replaces when a disguise is run (each exists in /usr/bin). */
export const STUBBED = ['git', 'rm', 'curl', 'wget', 'chmod', 'dd', 'ssh'];
