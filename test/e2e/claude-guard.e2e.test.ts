import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type MessagesApi, startMessagesApi, toolResults } from '../../src/demo/scripted-model.js';
import { type CliRun, runProcess } from '../helpers/cli.js';
import { claudeBinary, claudeBinaryIn, LATEST_CLAUDE_CACHE } from './claude-bin.js';

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

interface Call {
  name: string;
  input: Record<string, unknown>;
}

interface Session {
  run: CliRun;
  result(i: number): { is_error: boolean; text: string };
}

const id = (i: number) => `toolu_guard_${String(i + 1).padStart(2, '0')}`;

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

/** One headless session in `ws` that makes `calls` in order, one per turn. */
async function session(claude: string, ws: string, home: string, calls: readonly Call[]): Promise<Session> {
  let step = 0;
  const api: MessagesApi = await startMessagesApi((body) => {
    const mainLoop = Array.isArray(body.tools) && body.tools.some((t) => t.name === 'Bash');
    if (mainLoop && step < calls.length) {
      const i = step++;
      return {
        content: [{ type: 'tool_use', id: id(i), name: calls[i]!.name, input: calls[i]!.input }],
        stop_reason: 'tool_use',
      };
    }
    return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
  });
  try {
    const run = await runProcess(claude, ['-p', 'run the scripted calls', '--output-format', 'json'], {
      cwd: ws,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'sk-ant-loopback-test',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        // no system-wide managed policy of this machine in the way
        TOOLGATE_MANAGED_POLICY: path.join(home, 'no-managed-policy.yaml'),
      },
      killAfterMs: 240_000,
    });
    const requests = [...api.requests];
    return {
      run,
      result(i) {
        for (let r = requests.length - 1; r >= 0; r--) {
          const found = toolResults(requests[r]!).get(id(i));
          if (found) return found;
        }
        throw new Error(
          `no tool_result for call ${i + 1}; claude said: ${run.stdout.slice(0, 400)} ${run.stderr.slice(0, 400)}`,
        );
      },
    };
  } finally {
    await api.close();
  }
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
const bash = (command: string): Call => ({ name: 'Bash', input: { command, description: command } });

function versionOf(claude: string): string {
  return execFileSync(claude, ['--version'], {
    encoding: 'utf8',
    env: { ...process.env, DISABLE_AUTOUPDATER: '1' },
  })
    .trim()
    .split(/\s/)[0]!;
}

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
