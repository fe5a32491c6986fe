import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { hookWorkspace } from '../helpers/hook.js';

/**
 * Issue 17 through the real CLI: `toolgate hook` answers Codex CLI's PreToolUse hook in the only
 * shapes Codex honours. The payload is the one codex-cli 0.171.0 sent in `codex exec` runs
 * (recorded by ../shared/tools/agent-e2e/run-codex.sh, see ../shared/research/agents.md); the
 * answers Codex accepts are its binary's own messages ("PreToolUse hook returned unsupported
 * permissionDecision:allow", "...:ask", "permissionDecision:deny without a non-empty
 * permissionDecisionReason", "updatedInput without permissionDecision:allow"). Before, this
 * payload was read as Claude Code's: its `permission_mode: "bypassPermissions"` (sent in every
 * exec run) allowed every write the policy did not name, and the allow was refused as unsupported.
 */
const bwrap = await probeBwrap();
const { work, hook } = hookWorkspace('codex');

const codex = (command: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: '019a-session',
    turn_id: '019a-turn',
    transcript_path: null,
    cwd: work,
    hook_event_name: 'PreToolUse',
    model: 'mock-model',
    permission_mode: 'bypassPermissions',
    tool_name: 'Bash',
    tool_input: { command },
    tool_use_id: 'call_001',
    ...extra,
  });

interface CodexOutput {
  hookSpecificOutput: {
    hookEventName: string;
    permissionDecision: string;
    permissionDecisionReason?: string;
    updatedInput?: { command: string };
  };
}

describe('toolgate hook: Codex CLI PreToolUse', () => {
  it('denies rm -rf ~ with a non-empty reason, in the shape Codex reads', async () => {
    const r = await hook(codex('rm -rf ~'));
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as CodexOutput;
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/^toolgate: \S/);
  });

  it('answers an allow with nothing: a bare allow is unsupported in Codex, silence lets it run', async () => {
    const r = await hook(codex('ls'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });

  it("does not take Codex's bypassPermissions at its word: a write the policy does not name is not allowed", async () => {
    // in bypassPermissions this would be allowed; in toolgate's default mode it asks, and Codex
    // cannot ask, so it is denied with the reason
    const r = await hook(codex('touch marker'));
    const out = JSON.parse(r.stdout) as CodexOutput;
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(
      /a person would have to approve it.*--agent-asks/,
    );
    // --mode still sets the mode on purpose
    const bypass = await hook(codex('touch marker'), ['--mode', 'bypassPermissions']);
    expect(bypass.stdout).toBe('');
  });

  it("--agent-asks leaves an ask to Codex's own approval (no answer), and a deny stays a deny", async () => {
    const ask = await hook(codex('touch marker'), ['--agent-asks']);
    expect(ask.code, ask.stderr).toBe(0);
    expect(ask.stdout).toBe('');
    const deny = await hook(codex('rm -rf ~'), ['--agent-asks']);
    expect((JSON.parse(deny.stdout) as CodexOutput).hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('applies a Claude-syntax policy unchanged', async () => {
    const policy = path.join(work, 'policy.yaml');
    fs.writeFileSync(policy, 'version: 1\nrules:\n  - deny: "Bash(git push:*)"\n  - allow: "Bash(make:*)"\n');
    const denied = await hook(codex('git push origin main'), ['--policy', policy]);
    expect((JSON.parse(denied.stdout) as CodexOutput).hookSpecificOutput.permissionDecision).toBe('deny');
    const allowed = await hook(codex('make test'), ['--policy', policy]);
    expect(allowed.stdout, allowed.stderr).toBe('');
  });

  it('exits 2 (Codex: block, stderr the reason) when it cannot decide; exit 1 or silence would run the call', async () => {
    const broken = path.join(work, 'broken.yaml');
    fs.writeFileSync(broken, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const r = await hook(codex('ls'), ['--policy', broken]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/policy was refused/);
    const invalid = await hook(codex('ls', { tool_input: 'ls' }));
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/Codex PreToolUse payload has no tool_input object/);
  });

  it('--agent codex answers Codex payloads and blocks a Claude Code one', async () => {
    const forced = await hook(codex('ls'), ['--agent', 'codex']);
    expect(forced.code, forced.stderr).toBe(0);
    const claude = JSON.stringify({
      session_id: 's',
      cwd: work,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    });
    const other = await hook(claude, ['--agent', 'codex']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/unknown hook payload: hook event "PreToolUse"/);
    // and without --agent, the Claude Code payload is still Claude Code's
    const still = await hook(claude);
    expect(JSON.parse(still.stdout)).toMatchObject({ hookSpecificOutput: { permissionDecision: 'allow' } });
  });

  it.skipIf(!bwrap.available)(
    '--enforce answers an allowed call with allow + updatedInput running it in toolgate jail',
    async () => {
      const policy = path.join(work, 'jail.yaml');
      fs.writeFileSync(policy, 'version: 1\nsandbox: { os: required }\n');
      const r = await hook(codex('ls'), ['--enforce', '--policy', policy]);
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as CodexOutput;
      expect(out.hookSpecificOutput.permissionDecision).toBe('allow');
      expect(out.hookSpecificOutput.updatedInput?.command).toMatch(/'jail' .*'--' 'ls'$/);
    },
  );
});
