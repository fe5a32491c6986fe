import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * A `..` after a symbolic link goes up from the link's target: the kernel opens
 * `WS/link/../x` as OUT/x when link -> OUT/sub. toolgate resolved the `..` as text first and
 * decided WS/x, so a deny rule on OUT never met a Write (or a Bash write) through the link,
 * while Claude Code's own Write, Codex's apply_patch and any shell wrote into OUT.
 * Reported by the agents helper, reproduced with `toolgate check` on main f821bdf.
 */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join(REPO, 'src', 'cli', 'main.ts');

let base: string;
let ws: string;
let out: string;
let policy: string;

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-dotdot-')));
  ws = path.join(base, 'ws');
  out = path.join(base, 'out');
  fs.mkdirSync(path.join(out, 'sub'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'real'), { recursive: true });
  fs.symlinkSync(path.join(out, 'sub'), path.join(ws, 'link'));
  policy = path.join(base, 'policy.yaml');
  fs.writeFileSync(
    policy,
    `version: 1\npermissions:\n  allow: ["Edit(/**)", "Bash(cp *)", "Bash(cd *)"]\n  deny: ["Edit(/${out}/**)"]\n`,
  );
});
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function check(tool: string, input: object): { behavior: string; reason: string } {
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      MAIN,
      'check',
      '--json',
      '--cwd',
      ws,
      '--policy',
      policy,
      '--tool',
      tool,
      '--input',
      JSON.stringify(input),
    ],
    {
      cwd: REPO,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: path.join(base, 'home'),
        TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed-policy.yaml'),
        XDG_CONFIG_HOME: path.join(base, 'home', '.config'),
      },
    },
  );
  expect(r.stdout, r.stderr).not.toBe('');
  return JSON.parse(r.stdout) as { behavior: string; reason: string };
}

describe('a `..` after a link is taken where the kernel takes it', () => {
  it('denies a Write through link/.. into the denied directory, absolute and relative', () => {
    for (const file_path of [`${ws}/link/../x.txt`, 'link/../x.txt', `${ws}/link/./../x.txt`]) {
      const d = check('Write', { file_path, content: 'a' });
      expect(d.behavior, file_path).toBe('deny');
      expect(d.reason).toContain(path.join(out, 'x.txt'));
    }
  });

  it('denies a Bash write through link/.., and takes `cd link/..` logically as bash does', () => {
    expect(check('Bash', { command: 'cp /etc/hostname link/../y.txt' }).behavior).toBe('deny');
    // bash's cd is logical (checked: `cd link/.. && pwd -P` prints WS): y.txt is WS/y.txt.
    expect(check('Bash', { command: 'cd link/.. && cp /etc/hostname y.txt' }).behavior).toBe('allow');
  });

  it('still allows a `..` that stays inside (no link on the way), and a missing directory resolves as text', () => {
    expect(check('Write', { file_path: `${ws}/real/../x.txt`, content: 'a' }).behavior).toBe('allow');
    expect(check('Write', { file_path: `${ws}/missing/../x.txt`, content: 'a' }).behavior).toBe('allow');
    expect(check('Bash', { command: 'cp /etc/hostname real/../y.txt' }).behavior).toBe('allow');
  });
});
