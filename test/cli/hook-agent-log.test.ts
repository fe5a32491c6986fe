import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/verify.js';
import { runCli } from '../helpers/cli.js';

/**
 * Issue 17 item 5: the decision log names the agent that asked (the hook protocol's agent, and
 * its version where the payload says it), and `toolgate report` splits by agent. Payloads as
 * each agent sends them: Claude Code PreToolUse; Gemini CLI BeforeTool (observed from 0.61.0);
 * Codex PreToolUse, told apart by turn_id (observed from codex-cli 0.171.0); Cursor
 * beforeShellExecution with its optional base field `cursor_version`
 * (https://cursor.com/docs/agent/hooks). All in ../shared/research/agents.md.
 */
const work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-agent-log-')));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const log = path.join(work, 'decisions.jsonl');
const env = {
  HOME: path.join(work, 'home'),
  XDG_CONFIG_HOME: path.join(work, 'home', '.config'),
  CLAUDE_PROJECT_DIR: '',
  TOOLGATE_MANAGED_POLICY: '',
  TOOLGATE_LOG: '',
};

const payloads: Record<string, unknown>[] = [
  {
    session_id: 's1',
    cwd: work,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_use_id: 'toolu_1',
  },
  {
    session_id: 's2',
    transcript_path: '/tmp/g.json',
    cwd: work,
    hook_event_name: 'BeforeTool',
    timestamp: '2026-12-02T04:00:00.000Z',
    tool_name: 'run_shell_command',
    tool_input: { command: 'rm -rf /' },
  },
  {
    session_id: 's3',
    turn_id: 't1',
    cwd: work,
    hook_event_name: 'PreToolUse',
    model: 'gpt-5',
    permission_mode: 'bypassPermissions',
    tool_name: 'Bash',
    tool_input: { command: 'ls' },
    tool_use_id: 'call_1',
  },
  {
    conversation_id: 'conv-1',
    generation_id: 'gen-1',
    hook_event_name: 'beforeShellExecution',
    workspace_roots: [work],
    cursor_version: '2.0.77',
    command: 'cat README.md',
    cwd: work,
  },
];

describe('the agent in the decision log and the report', { timeout: 240_000 }, () => {
  it('records which agent (and version, when the payload says it) made each call', async () => {
    for (const p of payloads) {
      const r = await runCli(['hook', '--log', log], { stdin: JSON.stringify(p), cwd: work, env });
      expect([0, 2], r.stderr).toContain(r.code);
    }
    const records = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { agent?: unknown });
    expect(records.map((r) => r.agent)).toEqual([
      { name: 'claude-code' },
      { name: 'gemini-cli' },
      { name: 'codex' },
      { name: 'cursor', version: '2.0.77' },
    ]);
    expect((await verifyLog(log)).ok).toBe(true);
  });

  it('splits the report by agent', async () => {
    const r = await runCli(['report', log, '--json'], { cwd: work, env });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { byAgent: { key: string; total: number; deny: number }[] };
    expect(report.byAgent.map((a) => [a.key, a.total])).toEqual([
      ['claude-code', 1],
      ['codex', 1],
      ['cursor 2.0.77', 1],
      ['gemini-cli', 1],
    ]);
    expect(report.byAgent.find((a) => a.key === 'gemini-cli')?.deny).toBe(1);
    const html = await runCli(['report', log, '--html', path.join(work, 'r.html')], { cwd: work, env });
    expect(html.stdout).toContain('by agent: claude-code 1, codex 1, cursor 2.0.77 1, gemini-cli 1');
    expect(fs.readFileSync(path.join(work, 'r.html'), 'utf8')).toContain('By agent');
  });
});
