import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeBinary, claudeBinaryIn, LATEST_CLAUDE_CACHE } from './claude-bin.js';
import { bash, session, versionOf } from './claude-session.js';

/**
 * Issue 14 "Done when": the failures toolgate cannot close itself (the hook cannot start, dies
 * with an exit code other than 0 and 2, or times out) are closed by the `"onFailure": "block"`
 * that `toolgate init --claude` writes. Each failure is run twice with the real `claude`:
 * the control (init's settings without onFailure) must RUN the call — so the test sees that the
 * failure is real and open — and init's own settings must block it. The call is `touch` in the
 * workspace, which the person's own settings (acceptEdits and an allow rule) let run without a
 * prompt: a headless session denies whatever would prompt, which would hide an open failure
 * (an allow rule alone is not enough, Claude Code asks before a shell command writes a file).
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const bases: string[] = [];

afterAll(() => {
  for (const base of bases) {
    stopWarmProcesses(base);
    fs.rmSync(base, { recursive: true, force: true });
  }
});

/** The warm toolgate processes a working hook started under `base` (their socket is there). */
function stopWarmProcesses(base: string): void {
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(base))
        process.kill(Number(pid), 'SIGKILL');
    } catch {}
  }
}

/** How `toolgate` on PATH fails: a shell script standing in for it, or none at all. */
const FAILURES: Record<string, { stub?: string; timeout?: number }> = {
  'is not installed (command not found, exit 127)': {},
  'crashes (exit 1)': { stub: 'echo "toolgate: internal error" >&2\nexit 1' },
  'is killed (SIGKILL)': { stub: 'kill -9 $$' },
  'hangs past its timeout': { stub: 'exec sleep 60', timeout: 3 },
};

interface HookEntry {
  matcher: string;
  hooks: { type: string; command: string; onFailure?: string; timeout?: number }[];
}
interface Settings {
  permissions?: { allow?: string[]; defaultMode?: string };
  hooks: Record<string, HookEntry[]>;
}

/** A git workspace set up by the real `toolgate init --claude`, with a bin/ for the stub. */
function initWorkspace(): { base: string; ws: string; home: string; bin: string; settings: Settings } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-onfailure-')));
  bases.push(base);
  const ws = path.join(base, 'workspace');
  const home = path.join(base, 'home');
  const bin = path.join(base, 'bin');
  for (const d of [ws, home, bin]) fs.mkdirSync(d);
  execFileSync('git', ['init', '-q', ws]);
  execFileSync(process.execPath, [CLI, 'init', '--claude', '--dir', ws], {
    env: { ...process.env, HOME: home },
  });
  const settings = JSON.parse(fs.readFileSync(path.join(ws, '.claude', 'settings.json'), 'utf8')) as Settings;
  return { base, ws, home, bin, settings };
}

function withFailure(settings: Settings, failure: { timeout?: number }, keepOnFailure: boolean): Settings {
  const hooks = Object.fromEntries(
    Object.entries(settings.hooks).map(([event, entries]) => [
      event,
      entries.map((e) => ({
        ...e,
        hooks: e.hooks.map(({ onFailure, ...h }) => ({
          ...h,
          ...(keepOnFailure && onFailure !== undefined ? { onFailure } : {}),
          ...(failure.timeout !== undefined ? { timeout: failure.timeout } : {}),
        })),
      })),
    ]),
  );
  // the person's own choice: without a working hook, nothing stands between the call and its run
  return { ...settings, permissions: { allow: ['Bash(touch *)'], defaultMode: 'acceptEdits' }, hooks };
}

/** The first Claude Code that reads a hook entry's onFailure (README, "Claude Code"). */
const ONFAILURE_SINCE = '2.1.295';

function atLeast(version: string, since: string): boolean {
  const a = version.split('.').map(Number);
  const b = since.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

const binaries = [claudeBinary(), claudeBinaryIn(LATEST_CLAUDE_CACHE)].filter(
  (b, i, all): b is string => b !== undefined && all.indexOf(b) === i,
);

it('init --claude writes onFailure "block" on every toolgate hook entry', () => {
  if (!fs.existsSync(CLI)) throw new Error(`build first (npm run build): ${CLI} is missing`);
  const { settings } = initWorkspace();
  const entries = [...(settings.hooks.PreToolUse ?? []), ...(settings.hooks.PermissionRequest ?? [])];
  expect(entries.length).toBe(2);
  for (const e of entries) for (const h of e.hooks) expect(h.onFailure).toBe('block');
});

for (const claude of binaries) {
  const version = versionOf(claude);
  const closes = atLeast(version, ONFAILURE_SINCE);
  describe(`Claude Code ${version}: onFailure "block" from toolgate init --claude (issue 14)`, () => {
    it("init's settings with toolgate working: this version runs the hook (onFailure does not drop it)", async () => {
      const { base, ws, home, bin } = initWorkspace();
      fs.writeFileSync(
        path.join(bin, 'toolgate'),
        `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
        {
          mode: 0o755,
        },
      );
      const env = { PATH: `${bin}:/usr/bin:/bin`, XDG_CACHE_HOME: path.join(base, 'cache') };
      const s = await session(claude, ws, home, [bash('git push --force origin main')], env);
      expect(s.run.code, s.run.stderr).toBe(0);
      expect(s.result(0).is_error).toBe(true);
      expect(s.result(0).text).toContain('Force pushes rewrite shared history');
    });

    for (const [what, failure] of Object.entries(FAILURES)) {
      const title = closes
        ? `the hook ${what}: the call runs without onFailure, and is blocked with init's settings`
        : `the hook ${what}: the call runs, onFailure or not (this version has no onFailure; README says so)`;
      it(title, async () => {
        const { ws, home, bin, settings } = initWorkspace();
        if (failure.stub !== undefined) {
          fs.writeFileSync(path.join(bin, 'toolgate'), `#!/bin/sh\n${failure.stub}\n`, { mode: 0o755 });
        }
        const env = { PATH: `${bin}:/usr/bin:/bin` };
        const file = path.join(ws, '.claude', 'settings.json');

        fs.writeFileSync(file, JSON.stringify(withFailure(settings, failure, false)));
        const control = await session(claude, ws, home, [bash('touch control.txt')], env);
        expect(control.run.code, control.run.stderr).toBe(0);
        // the failure is real and open: the call ran
        expect(fs.existsSync(path.join(ws, 'control.txt')), control.result(0).text).toBe(true);

        fs.writeFileSync(file, JSON.stringify(withFailure(settings, failure, true)));
        const guarded = await session(claude, ws, home, [bash('touch guarded.txt')], env);
        expect(guarded.run.code, guarded.run.stderr).toBe(0);
        expect(guarded.result(0).is_error, guarded.result(0).text).toBe(closes);
        expect(fs.existsSync(path.join(ws, 'guarded.txt'))).toBe(!closes);
      });
    }
  });
}
