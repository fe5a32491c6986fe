import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/policy/decision.js';
import { runCli } from '../helpers/cli.js';
import { makeWorld, type World } from '../policy/helpers/world.js';

/**
 * Issue 14 item 8 ("Why": `rm -rf /` was a critical guard in bypass, `find / -delete` was
 * allowed): the guard that stops `rm -rf /` stops any command the classifier reports as deleting
 * `/`, `$HOME`, a top-level directory or the workspace root and its parents, deleting a tree
 * only known at run time, or overwriting a disk — by effect, not by the command's name. Through
 * the real `toolgate check`, in bypassPermissions, under the embedded default (whose guards
 * deny).
 */
let w: World;
beforeAll(() => {
  w = makeWorld('toolgate-critical-');
  w.file('src/a.ts');
  w.dir('build');
});
afterAll(() => w.cleanup());

async function bypass(lines: readonly string[]): Promise<Decision[]> {
  const input = lines
    .map((command) => JSON.stringify({ tool: 'Bash', input: { command }, mode: 'bypassPermissions' }))
    .join('\n');
  const r = await runCli(['check', '--stdin', '--cwd', w.ws], {
    stdin: `${input}\n`,
    env: {
      HOME: w.home,
      XDG_CONFIG_HOME: path.join(w.home, '.config'),
      TOOLGATE_MANAGED_POLICY: path.join(w.base, 'no-managed.yaml'),
    },
  });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Decision);
}

describe('toolgate check: the critical guard by effect, in bypassPermissions (issue 14 item 8)', {
  timeout: 120_000,
}, () => {
  const critical = [
    'rm -rf /',
    'find / -delete',
    'find ~ -type f -delete',
    'find . -delete',
    'find / ! -name keep -delete',
    'fd . / --exec-batch=rm -rf',
    'find / -exec rm -rf {} +',
    'xargs rm -rf < list',
    'rsync -a --delete /tmp/empty/ /',
    'rsync -a --delete /tmp/empty/ ~/',
    'unlink /home',
    'mv ~ /tmp/elsewhere',
    'shred -u /vmlinuz',
    'dd if=/dev/zero of=/dev/sda',
    'cat disk.img > /dev/nvme0n1',
    'shred /dev/sda',
    'mkfs.ext4 /dev/sda1',
    'mkfs -t xfs /dev/sdb',
    'wipefs -a /dev/sdb',
    'rm -rf "$DIR"',
  ];

  it('each is stopped by the guard, whatever the command', async () => {
    const out = await bypass(critical);
    expect(out.map((d, i) => `${critical[i]} -> ${d.behavior}/${d.decidedBy}`)).toEqual(
      critical.map((l) => `${l} -> deny/guard`),
    );
  });

  it('what deletes or writes less stays bypass’s to allow', async () => {
    const fine = [
      'rm -rf src',
      'find . -name "*.o" -delete',
      'find src -delete',
      'rsync -a --delete /tmp/empty/ ./build/',
      'dd if=/dev/zero of=/dev/null count=1',
      'echo hi > /dev/tty',
      'cp a.txt ~',
    ];
    const out = await bypass(fine);
    expect(out.map((d, i) => `${fine[i]} -> ${d.behavior}/${d.decidedBy}`)).toEqual(
      fine.map((l) => `${l} -> allow/mode`),
    );
  });
});
