import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import type { Mode } from '../../src/policy/mode.js';
import { policyFromText } from '../../src/policy/policy.js';

/**
 * With `sandbox.os: off` no jail holds protected paths when a command runs: the checks made
 * before the call are all there is. They follow the writes a line shows however it spells them
 * (a tracked `cd`, `dd of=`, a link made earlier in the line, `/proc/self/cwd`, `/dev/fd/N`),
 * and what they cannot see they ask about. None of these lines is allowed in any mode.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-static-writes-')));
fs.mkdirSync(path.join(root, '.git', 'hooks'), { recursive: true });
fs.mkdirSync(path.join(root, 'sub'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const MODES: Mode[] = ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk'];

const ESCAPES = [
  // a tracked cd, then a write relative to it
  'cd .git && echo x > hooks/pre-commit',
  'cd .git/hooks; echo x > pre-commit',
  'cd sub && cd ../.git && echo x > config',
  'pushd .git && echo x > hooks/pre-commit',
  'cd && echo x >> .bashrc',
  // dd of=
  'echo x | dd of=.git/config',
  'dd if=/dev/zero of=/proc/self/cwd/.git/config count=1',
  // a link, then a write through it (red before: the link's target was only a read)
  'ln -s .git/hooks h && echo x > h/pre-commit',
  'ln -s .git g; echo x > g/hooks/post-checkout',
  'ln .git/config c && echo "[core]" >> c',
  'cp -s "$PWD/.git/hooks" h2 && echo x > h2/pre-push',
  'ln -s ~/.cache c2 && echo x > c2/toolgate/hook.cjs',
  // /proc/self/cwd and friends (red before: /proc/$$/cwd, a path only known at run time)
  'echo x > /proc/self/cwd/.git/hooks/pre-commit',
  'echo x > /proc/$$/cwd/.git/config',
  'echo x > "/proc/$BASHPID/cwd/.bashrc"',
  // descriptors
  'exec 3>.git/hooks/pre-commit; echo x >&3',
  'echo x > /dev/fd/3 3>.git/config',
  // unparsed, so unseen: with no jail that asks (red before)
  'exec 5<>.git/config',
  // a write only known at run time (red before)
  'echo x > "$TARGET"',
];

async function policy(os: string) {
  return policyFromText(`version: 1\nextends: builtin:default\nsandbox: { os: ${os} }\n`, {
    root,
    source: 'static-writes.yaml',
  });
}

describe('sandbox.os: off — the static write checks', () => {
  it.each(ESCAPES)('never allows %s', async (command) => {
    const p = await policy('off');
    for (const mode of MODES) {
      const d = decide({ tool: 'Bash', input: { command }, cwd: root, mode }, p);
      expect([mode, d.behavior], d.reason).not.toEqual([mode, 'allow']);
    }
  });

  it('a link to a protected path asks whatever the jail (it writes there later, under a new name)', async () => {
    const p = await policy('required');
    const d = decide(
      { tool: 'Bash', input: { command: 'ln -s .git/hooks h' }, cwd: root, mode: 'bypassPermissions' },
      p,
    );
    expect(d.behavior).toBe('ask');
    expect(d.reason).toMatch(/links to .*\.git\/hooks, a protected path/);
  });

  it('still allows what it can see is harmless, and asks about the unseen only when no jail holds', async () => {
    const off = await policy('off');
    const jailed = await policy('required');
    const bypass = (command: string, p: typeof off) =>
      decide({ tool: 'Bash', input: { command }, cwd: root, mode: 'bypassPermissions' }, p);
    for (const command of ['ls -la', 'echo x > out.txt', 'ln -s src/a.ts b.ts', 'cd sub && touch y']) {
      expect([command, bypass(command, off).behavior]).toEqual([command, 'allow']);
    }
    // Under the default a run-time path asks anyway (a path deny rule might name it); without
    // path rules, a jail that holds the protected paths is enough to allow it.
    expect(bypass('echo x > "$TARGET"', jailed).behavior).toBe('ask');
    const noPathRules = await policyFromText('version: 1\nsandbox: { os: required }\n', { root });
    expect(bypass('echo x > "$TARGET"', noPathRules).behavior).toBe('allow');
    expect(bypass('echo x > "$TARGET"', off).behavior).toBe('ask');
    const noPathRulesOff = await policyFromText('version: 1\nsandbox: { os: off }\n', { root });
    const unseen = bypass('echo x > "$TARGET"', noPathRulesOff);
    expect(unseen.behavior).toBe('ask');
    expect(unseen.reason).toMatch(/sandbox\.os off/);
  });
});
