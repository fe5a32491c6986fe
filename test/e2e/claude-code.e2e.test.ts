import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/verify.js';
import { type MessagesApi, startMessagesApi, toolResults } from '../../src/demo/scripted-model.js';
import { type CliRun, runProcess } from '../helpers/cli.js';
import { claudeBinary } from './claude-bin.js';

/**
 * The real `claude` binary, headless, against a loopback Messages API that answers with scripted
 * tool_use blocks, with `toolgate hook` as its PreToolUse hook. What must hold: denied calls never
 * run (files survive), allowed ones do, asks are not silently run, and toolgate's reasons reach
 * the model in the tool_result.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

interface Call {
  name: string;
  input: Record<string, unknown>;
}

/**
 * The same session twice: with `toolgate hook`, and with `toolgate hook --warm`, whose first
 * call starts a warm process that answers the later ones (warm-client.ts): Claude Code must not
 * wait on it, and every answer must be the same.
 */
function scenario(flags: readonly string[]): void {
  describe(`Claude Code with toolgate${flags.length ? ` (${flags.join(' ')})` : ''} as its PreToolUse hook`, () => {
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-'));
    const ws = path.join(base, 'workspace');
    const home = path.join(base, 'home');
    const logPath = path.join(base, 'decisions.jsonl');
    const hookTrace = path.join(base, 'hook-trace.jsonl');

    const calls: Call[] = [
      { name: 'Bash', input: { command: 'ls', description: 'list files' } },
      { name: 'Bash', input: { command: 'rm victim.txt', description: 'delete a file' } },
      { name: 'Read', input: { file_path: path.join(ws, '.env') } },
      {
        name: 'Write',
        input: { file_path: path.join(ws, 'notes.txt'), content: 'written through toolgate\n' },
      },
      { name: 'Bash', input: { command: 'echo x > out.txt', description: 'redirect into a file' } },
      { name: 'Bash', input: { command: 'git push --force origin main', description: 'force push' } },
      { name: 'Bash', input: { command: 'touch made.txt', description: 'make a file' } },
    ];
    const id = (i: number) => `toolu_e2e_${String(i + 1).padStart(2, '0')}`;

    let api: MessagesApi;
    let result: CliRun;

    beforeAll(async () => {
      if (!fs.existsSync(CLI)) throw new Error(`build first (npm run build): ${CLI} is missing`);
      const claude = claudeBinary();
      fs.mkdirSync(path.join(ws, '.claude'), { recursive: true });
      fs.mkdirSync(home, { recursive: true });
      fs.writeFileSync(path.join(ws, 'victim.txt'), 'do not delete\n');
      fs.writeFileSync(path.join(ws, '.env'), 'API_TOKEN=hunter2-secret\n');
      const policy = path.join(ws, 'policy.yaml');
      fs.writeFileSync(
        policy,
        [
          'version: 1',
          'extends: builtin:default',
          'rules:',
          '  - deny: "Bash(rm *)"',
          '    reason: nothing is deleted in this workspace',
          '  - allow: ["Edit(notes.txt)", "Bash(touch *)"]',
          '',
        ].join('\n'),
      );
      // A wrapper records what the hook saw and answered, then passes its exit code through.
      const wrapper = path.join(base, 'hook.sh');
      fs.writeFileSync(
        wrapper,
        `#!/usr/bin/env bash\nin=$(cat)\nout=$(printf '%s' "$in" | node ${JSON.stringify(CLI)} hook ${flags.join(' ')} --policy ${JSON.stringify(policy)} --log ${JSON.stringify(logPath)}); rc=$?\n` +
          `printf '%s\\n' "{\\"rc\\":$rc}" >> ${JSON.stringify(hookTrace)}\nprintf '%s' "$out"\nexit $rc\n`,
        { mode: 0o755 },
      );
      fs.writeFileSync(
        path.join(ws, '.claude', 'settings.json'),
        JSON.stringify({
          hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'command', command: wrapper }] }] },
        }),
      );

      let step = 0;
      api = await startMessagesApi((body) => {
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

      result = await runProcess(claude, ['-p', 'run the scripted calls', '--output-format', 'json'], {
        cwd: ws,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'sk-ant-loopback-test',
          DISABLE_AUTOUPDATER: '1',
          // a warm process left behind by a failed run leaves soon by itself
          TOOLGATE_WARM_IDLE_MS: '20000',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
        killAfterMs: 240_000,
      });
    }, 300_000);

    afterAll(async () => {
      await api?.close();
      for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
        try {
          if (fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(base)) process.kill(Number(pid));
        } catch {}
      }
      fs.rmSync(base, { recursive: true, force: true });
    });

    function resultFor(i: number): { is_error: boolean; text: string } {
      for (let r = api.requests.length - 1; r >= 0; r--) {
        const found = toolResults(api.requests[r]!).get(id(i));
        if (found) return found;
      }
      throw new Error(
        `no tool_result for call ${i + 1} (${calls[i]!.name}); claude said: ${result.stdout.slice(0, 500)} ${result.stderr.slice(0, 500)}`,
      );
    }

    it('ran every scripted call through the hook', () => {
      expect(result.code, result.stderr).toBe(0);
      const trace = fs.readFileSync(hookTrace, 'utf8').trim().split('\n');
      expect(trace).toHaveLength(calls.length);
      expect(trace.every((l) => (JSON.parse(l) as { rc: number }).rc === 0)).toBe(true);
      if (flags.includes('--warm')) {
        // the first call started the warm process the later ones went to
        const warm = path.join(home, '.cache', 'toolgate', 'warm');
        expect(fs.readdirSync(warm).filter((f) => f.endsWith('.sock'))).toHaveLength(1);
      }
    });

    it('runs what the policy allows', () => {
      expect(resultFor(0).is_error).toBe(false);
      expect(resultFor(0).text).toContain('victim.txt');
      expect(fs.readFileSync(path.join(ws, 'notes.txt'), 'utf8')).toBe('written through toolgate\n');
      expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(true);
    });

    it('never runs what the policy denies, and the model reads why', () => {
      expect(fs.readFileSync(path.join(ws, 'victim.txt'), 'utf8')).toBe('do not delete\n');
      const rm = resultFor(1);
      expect(rm.is_error).toBe(true);
      expect(rm.text).toContain('nothing is deleted in this workspace');
      const env = resultFor(2);
      expect(env.is_error).toBe(true);
      expect(env.text).not.toContain('hunter2');
      expect(env.text).toMatch(/secret|\.env/i);
      const push = resultFor(5);
      expect(push.is_error).toBe(true);
      expect(push.text).toMatch(/Force pushes rewrite shared history/);
    });

    it('does not silently run what needs approval', () => {
      expect(fs.existsSync(path.join(ws, 'out.txt'))).toBe(false);
      expect(resultFor(4).is_error).toBe(true);
      const summary = JSON.parse(result.stdout) as { permission_denials?: { tool_use_id?: string }[] };
      expect((summary.permission_denials ?? []).map((d) => d.tool_use_id)).toContain(id(4));
    });

    it('logged every decision in an intact chain', async () => {
      const records = fs
        .readFileSync(logPath, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { decision: { behavior: string } });
      expect(records.map((r) => r.decision.behavior)).toEqual([
        'allow',
        'deny',
        'deny',
        'allow',
        'ask',
        'deny',
        'allow',
      ]);
      expect((await verifyLog(logPath)).ok).toBe(true);
    });
  });
}

scenario([]);
scenario(['--warm']);
