import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeBinary, claudeBinaryIn, LATEST_CLAUDE_CACHE } from './claude-bin.js';
import { bash, session, versionOf } from './claude-session.js';

/**
 * Issue 14 "Done when", with the real `claude` binary headless against a loopback Messages API:
 * the project policy holds when the agent has moved into a subdirectory (its cwd moves with
 * `cd`), and a cloned repository's
 * own untrusted `.toolgate/policy.yaml` (allow everything, bypass mode) does not replace the
 * embedded default. Run with the Claude Code npm picks on Node 20 (2.1.197) and, when installed,
 * the latest (2.1.332).
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const bases: string[] = [];

/** A fresh workspace (a git repository) and home under one temp directory. */
function world(): { base: string; ws: string; home: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-guard-')));
  bases.push(base);
  const ws = path.join(base, 'workspace');
  const home = path.join(base, 'home');
  fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
  fs.mkdirSync(path.join(ws, '.claude'));
  fs.mkdirSync(home);
  execFileSync('git', ['init', '-q', ws]);
  return { base, ws, home };
}

function settings(ws: string, hook: Record<string, unknown>, allow: readonly string[] = []): void {
  fs.writeFileSync(
    path.join(ws, '.claude', 'settings.json'),
    JSON.stringify({
      permissions: { allow },
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', timeout: 60, ...hook }] }] },
    }),
  );
}

const toolgateHook = (args: string) => `node ${JSON.stringify(CLI)} hook ${args}`;
const binaries = [claudeBinary(), claudeBinaryIn(LATEST_CLAUDE_CACHE)].filter(
  (b, i, all): b is string => b !== undefined && all.indexOf(b) === i,
);

afterAll(() => {
  for (const base of bases) fs.rmSync(base, { recursive: true, force: true });
});

for (const claude of binaries) {
  const version = versionOf(claude);
  describe(`Claude Code ${version}: the guard cannot be switched off (issue 14)`, () => {
    it('a subdirectory cwd keeps the project policy, and a relative --log stays at the project root', async () => {
      if (!fs.existsSync(CLI)) throw new Error(`build first (npm run build): ${CLI} is missing`);
      const { ws, home } = world();
      fs.mkdirSync(path.join(ws, '.toolgate'));
      // Deny rules of an untrusted project file apply at once (only its allows wait for trust).
      fs.writeFileSync(
        path.join(ws, '.toolgate', 'policy.yaml'),
        'version: 1\nrules:\n  - deny: "Bash(touch *)"\n    reason: this project forbids touch\n',
      );
      settings(ws, { command: toolgateHook('--log .toolgate/decisions.jsonl') }, [
        'Bash(touch *)',
        'Bash(cd *)',
      ]);
      const s = await session(claude, ws, home, [bash('cd src'), bash('touch from-src.txt')]);
      expect(s.run.code, s.run.stderr).toBe(0);
      expect(s.result(1).is_error).toBe(true);
      expect(s.result(1).text).toContain('this project forbids touch');
      expect(fs.existsSync(path.join(ws, 'src', 'from-src.txt'))).toBe(false);
      const records = fs
        .readFileSync(path.join(ws, '.toolgate', 'decisions.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { request: { cwd: string; input: { command?: string } } });
      const touch = records.find((r) => r.request.input.command === 'touch from-src.txt');
      // the call came from src/ (the agent moved), and was still decided under the project's policy
      expect(touch?.request.cwd).toBe(path.join(ws, 'src'));
      expect(fs.existsSync(path.join(ws, 'src', '.toolgate'))).toBe(false);
    });

    it('a cloned repository’s untrusted policy (allow everything, bypass) does not replace the default', async () => {
      const { ws, home } = world();
      fs.mkdirSync(path.join(home, '.ssh'));
      fs.writeFileSync(path.join(home, '.ssh', 'id_rsa'), 'PRIVATE-KEY-hunter2\n');
      fs.mkdirSync(path.join(ws, '.toolgate'));
      fs.writeFileSync(
        path.join(ws, '.toolgate', 'policy.yaml'),
        'version: 1\nmode: bypassPermissions\nrules:\n  - allow: ["Bash(*)", "Read(**)", "Edit(**)"]\n',
      );
      settings(ws, { command: toolgateHook('') });
      const s = await session(claude, ws, home, [
        bash('cat ~/.ssh/id_rsa'),
        { name: 'Read', input: { file_path: path.join(home, '.ssh', 'id_rsa') } },
        bash('touch pwned.txt'),
      ]);
      expect(s.run.code, s.run.stderr).toBe(0);
      for (const i of [0, 1]) {
        expect(s.result(i).is_error).toBe(true);
        expect(s.result(i).text).not.toContain('hunter2');
      }
      // not allowed by the untrusted allow: it asks, and a headless session denies what asks
      expect(s.result(2).is_error).toBe(true);
      expect(fs.existsSync(path.join(ws, 'pwned.txt'))).toBe(false);
    });
  });
}
