import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { hookWorkspace } from '../helpers/hook.js';

/**
 * Issue 17 through the real CLI: `toolgate hook` answers Gemini CLI's BeforeTool hook with the
 * top-level {decision, reason} Gemini reads, deciding Gemini's tools as the Claude Code tools
 * they stand for. Payloads as Gemini CLI 0.61.0 sends them (https://geminicli.com/docs/hooks/reference,
 * observed fields in ../shared/research/agents.md). Before, this payload exited 2 as unknown.
 */
const bwrap = await probeBwrap();
const { work, hook } = hookWorkspace('gemini');
fs.writeFileSync(path.join(work, 'notes.md'), 'hello\n');

const gemini = (tool_name: string, tool_input: unknown) =>
  JSON.stringify({
    session_id: 'g1',
    transcript_path: path.join(work, 'session.json'),
    cwd: work,
    hook_event_name: 'BeforeTool',
    timestamp: '2026-12-01T10:00:00.000Z',
    tool_name,
    tool_input,
  });

describe('toolgate hook: Gemini CLI BeforeTool', () => {
  it('denies run_shell_command rm -rf ~ with the reason, in the shape Gemini reads', async () => {
    const r = await hook(gemini('run_shell_command', { command: 'rm -rf ~', description: 'tidy' }));
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe('deny');
    expect(answer.reason).toMatch(/^toolgate: /);
    expect(Object.keys(answer).sort()).toEqual(['decision', 'reason']);
  });

  it('allows read_file of a workspace file (a relative path, read as Read)', async () => {
    const r = await hook(gemini('read_file', { file_path: 'notes.md' }));
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ decision: 'allow' });
  });

  it('applies a Claude-syntax policy to Gemini tool names unchanged', async () => {
    const policy = path.join(work, 'policy.yaml');
    fs.writeFileSync(policy, 'version: 1\nrules:\n  - deny: "Read(./notes.md)"\n  - allow: "Bash(make:*)"\n');
    const denied = await hook(gemini('read_file', { file_path: 'notes.md' }), ['--policy', policy]);
    expect(JSON.parse(denied.stdout), denied.stderr).toMatchObject({ decision: 'deny' });
    const allowed = await hook(gemini('run_shell_command', { command: 'make' }), ['--policy', policy]);
    expect(JSON.parse(allowed.stdout), allowed.stderr).toMatchObject({ decision: 'allow' });
  });

  it('exits 2 (Gemini: block, stderr the reason) when it cannot decide', async () => {
    const broken = path.join(work, 'broken.yaml');
    fs.writeFileSync(broken, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const r = await hook(gemini('read_file', { file_path: 'notes.md' }), ['--policy', broken]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/policy was refused/);
    const invalid = await hook(gemini('read_file', 'notes.md'));
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/no tool_input object/);
  });

  it("--agent forces the protocol: another agent's payload and an unknown agent are blocked", async () => {
    const forced = await hook(gemini('read_file', { file_path: 'notes.md' }), ['--agent', 'gemini-cli']);
    expect(JSON.parse(forced.stdout)).toMatchObject({ decision: 'allow' });
    const other = await hook(gemini('read_file', { file_path: 'notes.md' }), ['--agent', 'claude-code']);
    expect(other.code).toBe(2);
    expect(other.stdout).toBe('');
    expect(other.stderr).toMatch(/unknown hook payload: hook event "BeforeTool"/);
    const bogus = await hook(gemini('read_file', { file_path: 'notes.md' }), ['--agent', 'nope']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toMatch(/--agent nope: no such agent \(known: [^)]*claude-code, gemini-cli/);
  });

  it('answers an ask with a deny that says why: headless, Gemini waits for ever on an ask (observed, 0.61.0)', async () => {
    const r = await hook(gemini('run_shell_command', { command: 'touch marker' }));
    expect(r.code, r.stderr).toBe(0);
    const answer = JSON.parse(r.stdout) as { decision: string; reason: string };
    expect(answer.decision).toBe('deny');
    expect(answer.reason).toMatch(/a person would have to approve it.*--agent-asks/);
  });

  it("--agent-asks passes the ask on to Gemini's prompt (for people at it)", async () => {
    const r = await hook(gemini('run_shell_command', { command: 'touch marker' }), ['--agent-asks']);
    expect(JSON.parse(r.stdout), r.stderr).toMatchObject({ decision: 'ask' });
  });

  it.skipIf(!bwrap.available)(
    '--enforce answers an allowed shell call with hookSpecificOutput.tool_input running it in toolgate jail',
    async () => {
      const policy = path.join(work, 'jail.yaml');
      fs.writeFileSync(policy, 'version: 1\nsandbox: { os: required }\n');
      const r = await hook(gemini('run_shell_command', { command: 'ls', description: 'list' }), [
        '--enforce',
        '--policy',
        policy,
      ]);
      expect(r.code, r.stderr).toBe(0);
      const answer = JSON.parse(r.stdout) as {
        decision: string;
        hookSpecificOutput?: { tool_input: { command: string } };
      };
      expect(answer.decision).toBe('allow');
      expect(answer.hookSpecificOutput?.tool_input.command).toMatch(/'jail' .*'--' 'ls'$/);
      // a read stays as it was: only Bash lines are jailed
      const read = await hook(gemini('read_file', { file_path: 'notes.md' }), [
        '--enforce',
        '--policy',
        policy,
      ]);
      expect(JSON.parse(read.stdout)).toEqual({ decision: 'allow', reason: expect.any(String) });
    },
  );
});
