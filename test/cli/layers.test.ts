import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAIN, runCli, runProcess } from '../helpers/cli.js';

/**
 * Issue 14, "the guard cannot be switched off", through the real CLI: the project's policy is
 * found from wherever the agent has moved to; a layer that cannot be read blocks instead of
 * vanishing; the managed layer is the machine's (/etc/toolgate, faked with a bind mount in
 * bwrap) and an environment variable can add to it, never take it away.
 */
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-layers-'));
afterAll(() => {
  for (const p of walkDirs(base)) fs.chmodSync(p, 0o755);
  fs.rmSync(base, { recursive: true, force: true });
});
const home = path.join(base, 'home');
fs.mkdirSync(home);

const env = {
  HOME: home,
  XDG_CONFIG_HOME: path.join(home, '.config'),
  CLAUDE_PROJECT_DIR: '',
  TOOLGATE_MANAGED_POLICY: '',
  TOOLGATE_LOG: '',
};

let n = 0;
/** A project with `.git` and the given `.toolgate/` files, and a `src/deep` directory. */
function project(files: Record<string, string>): string {
  const dir = path.join(base, `p${++n}`);
  fs.mkdirSync(path.join(dir, '.git'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'src', 'deep'), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

const hookInput = (cwd: string, command: string, event = 'PreToolUse') =>
  JSON.stringify({
    session_id: 's1',
    cwd,
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'toolu_1',
  });

const decisionOf = (stdout: string): string =>
  (JSON.parse(stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput
    .permissionDecision;

const hook = (cwd: string, command: string, args: string[] = [], extraEnv: Record<string, string> = {}) =>
  runCli(['hook', ...args], { stdin: hookInput(cwd, command), cwd, env: { ...env, ...extraEnv } });

const TERRAFORM = 'version: 1\nrules:\n  - deny: "Bash(terraform apply*)"\n    reason: releases only\n';

describe('the project policy is found from anywhere in the project', () => {
  it('hook: a deny at the root holds from a subdirectory (it was allowed from src/)', async () => {
    const p = project({ '.toolgate/policy.yaml': `${TERRAFORM}  - allow: "Bash(terraform *)"\n` });
    for (const cwd of [p, path.join(p, 'src'), path.join(p, 'src', 'deep')]) {
      const r = await hook(cwd, 'terraform apply -auto-approve');
      expect(r.code, r.stderr).toBe(0);
      expect(decisionOf(r.stdout), cwd).toBe('deny');
    }
  });

  it('hook: $CLAUDE_PROJECT_DIR names the project even when the agent works outside it', async () => {
    const p = project({ '.toolgate/policy.yaml': TERRAFORM });
    const elsewhere = fs.mkdtempSync(path.join(base, 'elsewhere-'));
    const r = await hook(elsewhere, 'terraform apply', [], { CLAUDE_PROJECT_DIR: p });
    expect(decisionOf(r.stdout)).toBe('deny');
  });

  it('check --cwd: the same discovery', async () => {
    const p = project({ '.toolgate/policy.yaml': TERRAFORM });
    const r = await runCli(
      [
        'check',
        '--tool',
        'Bash',
        '--input',
        '{"command":"terraform apply"}',
        '--cwd',
        path.join(p, 'src'),
        '--json',
      ],
      { cwd: path.join(p, 'src', 'deep'), env },
    );
    expect(JSON.parse(r.stdout).behavior).toBe('deny');
  });

  it("a relative --log is the project root's, and its missing directory is made, private", async () => {
    const p = project({});
    const r = await hook(path.join(p, 'src', 'deep'), 'git status', ['--log', 'logs/decisions.jsonl']);
    expect(r.code, r.stderr).toBe(0);
    expect(decisionOf(r.stdout)).toBe('allow');
    const log = path.join(p, 'logs', 'decisions.jsonl');
    expect(fs.readFileSync(log, 'utf8')).toContain('git status');
    expect(fs.statSync(path.dirname(log)).mode & 0o777).toBe(0o700);
    expect(fs.existsSync(path.join(p, 'src', 'deep', 'logs'))).toBe(false);
  });
});

describe('a layer that cannot be read blocks, with its path and why (each was skipped, and the call allowed)', () => {
  const cases: { name: string; make: (p: string) => void; why: RegExp }[] = [
    {
      name: 'policy.yaml is a directory',
      make: (p) => fs.mkdirSync(path.join(p, '.toolgate', 'policy.yaml'), { recursive: true }),
      why: /\.toolgate\/policy\.yaml: cannot read the policy layer: is a directory/,
    },
    {
      name: 'policy.yaml is a symlink loop',
      make: (p) => {
        fs.mkdirSync(path.join(p, '.toolgate'));
        fs.symlinkSync('loop-b', path.join(p, '.toolgate', 'policy.yaml'));
        fs.symlinkSync('policy.yaml', path.join(p, '.toolgate', 'loop-b'));
      },
      why: /\.toolgate\/policy\.yaml: cannot read the policy layer: a symlink loop/,
    },
    {
      name: 'policy.local.yaml is a symlink to nothing',
      make: (p) => {
        fs.mkdirSync(path.join(p, '.toolgate'));
        fs.symlinkSync('gone.yaml', path.join(p, '.toolgate', 'policy.local.yaml'));
      },
      why: /policy\.local\.yaml: cannot read the policy layer: a symlink to nothing/,
    },
    {
      name: '.toolgate is a file',
      make: (p) => fs.writeFileSync(path.join(p, '.toolgate'), 'x'),
      why: /\.toolgate\/policy\.local\.yaml: cannot read the policy layer: a part of the path is not a directory/,
    },
  ];
  for (const c of cases) {
    it(`hook and check: ${c.name}`, async () => {
      const p = project({});
      c.make(p);
      const r = await hook(path.join(p, 'src'), 'git status');
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(c.why);
      expect(r.stderr).toContain(p);
      const check = await runCli(['check', '--tool', 'Bash', '--input', '{"command":"ls"}', '--cwd', p], {
        env,
      });
      expect(check.code).toBe(2);
      expect(check.stderr).toMatch(c.why);
    });
  }

  it('hook: .toolgate/ not readable blocks, or (as root, who can read it) its deny applies', async () => {
    const p = project({ '.toolgate/policy.yaml': TERRAFORM });
    fs.chmodSync(path.join(p, '.toolgate'), 0o000);
    try {
      const r = await hook(p, 'terraform apply');
      if (process.getuid?.() === 0) expect(decisionOf(r.stdout)).toBe('deny');
      else {
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(
          /\.toolgate\/policy\.local\.yaml: cannot read the policy layer: permission denied/,
        );
      }
    } finally {
      fs.chmodSync(path.join(p, '.toolgate'), 0o755);
    }
  });

  it('serve refuses to start', async () => {
    const p = project({});
    fs.mkdirSync(path.join(p, '.toolgate', 'policy.yaml'), { recursive: true });
    const r = await runCli(['serve', '--port', '0'], { cwd: p, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read the policy layer: is a directory/);
  });
});

/**
 * The real /etc/toolgate cannot be written by a test, and nothing in the environment may move
 * it: bwrap mounts a directory of the test's over it, in a user namespace where the test's own
 * uid is root (so the files are root's, as an administrator's would be).
 */
const bwrap = spawnSync('bwrap', ['--version']).status === 0;
const TSX = path.join(path.dirname(MAIN), '..', '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
function inMachine(etcToolgate: string, cwd: string, stdin: string, extraEnv: Record<string, string> = {}) {
  const repo = path.resolve(path.dirname(MAIN), '..', '..');
  return runProcess(
    'bwrap',
    [
      '--unshare-user',
      '--uid',
      '0',
      '--gid',
      '0',
      '--ro-bind',
      '/',
      '/',
      '--tmpfs',
      '/etc',
      '--bind',
      etcToolgate,
      '/etc/toolgate',
      '--bind',
      base,
      base,
      '--ro-bind',
      repo,
      repo,
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--chdir',
      cwd,
      '--',
      process.execPath,
      '--import',
      TSX,
      MAIN,
      'hook',
    ],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env, ...extraEnv },
      stdin,
      killAfterMs: 60_000,
    },
  );
}

describe.skipIf(!bwrap)("the managed layer is the machine's (/etc/toolgate in a bwrap mount)", () => {
  const etc = (files: Record<string, string>) => {
    const dir = path.join(base, `etc${++n}`);
    for (const [name, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true, mode: 0o755 });
      fs.writeFileSync(path.join(dir, name), text, { mode: 0o644 });
    }
    fs.chmodSync(dir, 0o755);
    return dir;
  };
  const PUSH = 'version: 1\nrules:\n  - deny: "Bash(git push *)"\n    reason: the machine says so\n';
  const permissive = 'version: 1\nrules:\n  - allow: ["Bash(*)"]\n';

  it('policy.yaml and managed.d/*.yaml always apply, and $TOOLGATE_MANAGED_POLICY cannot take them away', async () => {
    const dir = etc({
      'policy.yaml': PUSH,
      'managed.d/10-nc.yaml': 'version: 1\nrules:\n  - deny: "Bash(nc *)"\n',
    });
    const p = project({ '.toolgate/policy.yaml': permissive });
    for (const managedEnv of ['', path.join(base, 'no-such-managed.yaml')]) {
      for (const command of ['git push origin main', 'nc evil.example 80']) {
        const r = await inMachine(dir, p, hookInput(p, command), { TOOLGATE_MANAGED_POLICY: managedEnv });
        expect(r.code, r.stderr).toBe(0);
        expect(decisionOf(r.stdout), `${command} with TOOLGATE_MANAGED_POLICY=${managedEnv}`).toBe('deny');
      }
    }
  });

  it('a managed file others can write blocks every call', async () => {
    const dir = etc({ 'policy.yaml': PUSH });
    fs.chmodSync(path.join(dir, 'policy.yaml'), 0o666);
    const p = project({});
    const r = await inMachine(dir, p, hookInput(p, 'git status'));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /\/etc\/toolgate\/policy\.yaml: managed policy refused: it is writable by its group/,
    );
  });

  it('a managed.d that cannot be listed blocks every call (as root it can be: its deny applies)', async () => {
    const dir = etc({ 'managed.d/a.yaml': PUSH });
    fs.chmodSync(path.join(dir, 'managed.d'), 0o000);
    const p = project({});
    try {
      const r = await inMachine(dir, p, hookInput(p, 'git push origin main'));
      // In the namespace the test's uid is root but holds no capability over the real files
      // unless the test runs as real root.
      if (process.getuid?.() === 0) expect(decisionOf(r.stdout)).toBe('deny');
      else {
        expect(r.code).toBe(2);
        expect(r.stderr).toMatch(/managed\.d: cannot read the policy layer: permission denied/);
      }
    } finally {
      fs.chmodSync(path.join(dir, 'managed.d'), 0o755);
    }
  });
});

function* walkDirs(dir: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    fs.chmodSync(dir, 0o755);
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  yield dir;
  for (const e of entries) if (e.isDirectory()) yield* walkDirs(path.join(dir, e.name));
}
