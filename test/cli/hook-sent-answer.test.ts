import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/verify.js';
import { runCli } from '../helpers/cli.js';
import { hookWorkspace } from '../helpers/hook.js';

/**
 * Issue 17: the decision log records the answer the agent was SENT, which is what it acts on,
 * beside the decision, and `report` says where the two differ, per agent. Before, a log said
 * "ask" for a Codex call that Codex received as a deny, and "allow" for one it received as no
 * answer at all (its own sandbox and approval then decided): the record had no `sent` member
 * (checked: main's hook writes none, and `report --json` has no bySent).
 *
 * Payloads: Codex PreToolUse as codex-cli 0.171.0 sends it (observed, ../shared/research/
 * agents.md: Claude-shaped, told apart by turn_id, permission_mode always bypassPermissions);
 * Claude Code PreToolUse and PermissionRequest (its hooks reference); Copilot CLI preToolUse
 * (github/docs cli-hooks-reference: toolArgs a JSON string).
 */
const { work, env } = hookWorkspace('sent-answer');
const log = path.join(work, 'decisions.jsonl');
const policy = path.join(work, 'policy.yaml');
fs.writeFileSync(
  policy,
  'version: 1\nrules:\n  - ask: "Bash(make deploy:*)"\n  - allow: "Bash(make test:*)"\n  - deny: "Bash(curl:*)"\n',
);

const codex = (command: string) => ({
  session_id: 's1',
  turn_id: 't1',
  transcript_path: null,
  cwd: work,
  hook_event_name: 'PreToolUse',
  model: 'gpt-5',
  permission_mode: 'bypassPermissions',
  tool_name: 'Bash',
  tool_input: { command },
  tool_use_id: 'call_1',
});
const claude = (event: string, command: string) => ({
  session_id: 's2',
  cwd: work,
  permission_mode: 'default',
  hook_event_name: event,
  tool_name: 'Bash',
  tool_input: { command },
  ...(event === 'PreToolUse' ? { tool_use_id: 'toolu_1' } : {}),
});
const copilot = (command: string) => ({
  timestamp: 1764756000000,
  cwd: work,
  toolName: 'bash',
  toolArgs: JSON.stringify({ command }),
});

interface Rec {
  agent?: { name: string };
  decision: { behavior: string };
  sent?: { answer: string; jailed?: true };
}

describe('the answer sent, in the decision log and the report', { timeout: 240_000 }, () => {
  const calls: [Record<string, unknown>, string, Rec['sent']][] = [
    // Codex cannot be asked: the ask reaches it as a deny
    [codex('make deploy'), 'ask', { answer: 'deny' }],
    // and a bare allow is "unsupported" to Codex: it is sent nothing
    [codex('make test'), 'allow', { answer: 'none' }],
    [codex('curl https://x.example'), 'deny', { answer: 'deny' }],
    // Claude Code honours all three
    [claude('PreToolUse', 'make deploy'), 'ask', { answer: 'ask' }],
    // its PermissionRequest says nothing on ask, so Claude Code's own dialog shows
    [claude('PermissionRequest', 'make deploy'), 'ask', { answer: 'none' }],
    // Copilot shows an ask only interactively: sent as a deny
    [copilot('make deploy'), 'ask', { answer: 'deny' }],
  ];

  it('records, per call, the decision and the answer the agent was sent', async () => {
    for (const [payload] of calls) {
      const r = await runCli(['hook', '--policy', policy, '--log', log], {
        stdin: JSON.stringify(payload),
        cwd: work,
        env,
      });
      expect(r.code, r.stderr).toBe(0);
    }
    const records = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Rec);
    expect(records.map((r) => [r.decision.behavior, r.sent])).toEqual(calls.map(([, b, sent]) => [b, sent]));
    expect((await verifyLog(log)).ok).toBe(true);
  });

  it('splits the sent answers by agent in the report, and names the ones that differ from the decision', async () => {
    const json = await runCli(['report', log, '--json'], { cwd: work, env });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as {
      bySent: { key: string; allow: number; ask: number; deny: number }[];
    };
    expect(report.bySent.find((s) => s.key === 'codex → deny')).toMatchObject({ ask: 1, deny: 1 });
    expect(report.bySent.find((s) => s.key === 'codex → none')).toMatchObject({ allow: 1 });
    const html = path.join(work, 'r.html');
    const text = await runCli(['report', log, '--html', html], { cwd: work, env });
    expect(text.stdout).toContain(
      // most first (codex → deny holds 2 decisions), then by agent
      'answered otherwise than decided: codex: ask sent as deny 1; claude-code: ask sent as none 1; codex: allow sent as none 1; copilot: ask sent as deny 1',
    );
    expect(fs.readFileSync(html, 'utf8')).toContain('Answers sent to agents');
  });
});
