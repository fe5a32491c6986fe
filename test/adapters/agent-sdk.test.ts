import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentSdkGuard, canUseToolFrom, preToolUseHookFrom } from '../../src/adapters/agent-sdk.js';
import { DecisionLog } from '../../src/audit/log.js';
import { policyFromText } from '../../src/policy/policy.js';

/**
 * Contract: the Claude Agent SDK's hook callback and canUseTool, as @anthropic-ai/claude-agent-sdk
 * 0.3.333 declares them (sdk.d.ts): `HookCallback(input: HookInput, toolUseID, {signal})` with
 * PreToolUseHookInput `{session_id, transcript_path, cwd, permission_mode?, hook_event_name:
 * "PreToolUse", tool_name, tool_input, tool_use_id}` answered by `{hookSpecificOutput:
 * {hookEventName: "PreToolUse", permissionDecision, permissionDecisionReason, updatedInput?}}`;
 * `CanUseTool(toolName, input, {signal, toolUseID, agentID?, ...})` answered by
 * `{behavior: "allow", updatedInput?} | {behavior: "deny", message}`. The real SDK runs them in
 * test/e2e/agent-sdk.e2e.test.ts.
 */
const POLICY = `version: 1
rules:
  - deny: "Bash(rm *)"
    reason: nothing is deleted here
  - allow: "Bash(touch *)"
`;

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-sdk-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const signal = new AbortController().signal;
const pre = (command: string, extra: Record<string, unknown> = {}) => ({
  session_id: 's1',
  transcript_path: '/tmp/t.jsonl',
  cwd: dir,
  permission_mode: 'default',
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command, description: 'd' },
  tool_use_id: 'toolu_1',
  ...extra,
});
type Out = { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };

describe('preToolUseHookFrom', () => {
  it('answers allow, deny and ask as Claude Code reads them, with the reason', async () => {
    const hook = preToolUseHookFrom(await policyFromText(POLICY));
    const answer = async (c: string) =>
      ((await hook(pre(c), 'toolu_1', { signal })) as Out).hookSpecificOutput;
    expect((await answer('ls')).permissionDecision).toBe('allow');
    const rm = await answer('rm -rf x');
    expect(rm.permissionDecision).toBe('deny');
    expect(rm.permissionDecisionReason).toContain('nothing is deleted here');
    expect((await answer('echo x > out.txt')).permissionDecision).toBe('ask');
  });

  it('follows the permission_mode the SDK reports, and a forced mode over it', async () => {
    const policy = await policyFromText(POLICY);
    const write = pre('echo x > out.txt', { permission_mode: 'bypassPermissions' });
    const bypass = (await preToolUseHookFrom(policy)(write, 't', { signal })) as Out;
    expect(bypass.hookSpecificOutput.permissionDecision).toBe('allow');
    const forced = (await preToolUseHookFrom(policy, { mode: 'plan' })(write, 't', { signal })) as Out;
    expect(forced.hookSpecificOutput.permissionDecision).toBe('deny');
  });

  it('fails closed: another event blocks, a bad payload and an internal error deny', async () => {
    const policy = await policyFromText(POLICY);
    const hook = preToolUseHookFrom(policy);
    expect(await hook({ hook_event_name: 'PostToolUse' }, undefined, { signal })).toMatchObject({
      decision: 'block',
    });
    const relative = (await hook(pre('ls', { cwd: 'rel' }), 't', { signal })) as Out;
    expect(relative.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(relative.hookSpecificOutput.permissionDecisionReason).toMatch(/absolute cwd/);
    // a log that refuses the record: the decision is not given
    const log = await DecisionLog.open(path.join(dir, 'log.jsonl'));
    await log.close();
    const unlogged = (await preToolUseHookFrom(policy, { log })(pre('ls'), 't', { signal })) as Out;
    expect(unlogged.hookSpecificOutput.permissionDecision).toBe('deny');
    expect(unlogged.hookSpecificOutput.permissionDecisionReason).toMatch(/could not decide.*closed/);
  });

  it('under enforce, asks rather than allow a Bash call unjailed when the policy has no file the jail can read', async () => {
    const hook = preToolUseHookFrom(await policyFromText(POLICY), { enforce: true });
    const out = (await hook(pre('touch a'), 't', { signal })) as Out;
    expect(out.hookSpecificOutput.permissionDecision).toBe('ask');
    expect(out.hookSpecificOutput.permissionDecisionReason).toMatch(/cannot run in the jail/);
  });
});

describe('canUseToolFrom', () => {
  it('decides afresh in its cwd: allow with the input, deny with the reason, an ask with no one to ask denied', async () => {
    const can = canUseToolFrom(await policyFromText(POLICY), { cwd: dir });
    const opts = { signal, toolUseID: 't' };
    expect(await can('Bash', { command: 'touch a' }, opts)).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'touch a' },
    });
    expect(await can('Bash', { command: 'rm a' }, opts)).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('nothing is deleted here'),
    });
    expect(await can('Bash', { command: 'echo x > out.txt' }, opts)).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('onAsk'),
    });
  });

  it('hands an ask to onAsk, and runs what toolgate decided, not an input the answer edited', async () => {
    const asked: string[] = [];
    const can = canUseToolFrom(await policyFromText(POLICY), {
      cwd: dir,
      onAsk: async (_tool, input) => {
        asked.push(String(input.command));
        return { behavior: 'allow', updatedInput: { command: 'rm -rf /' } };
      },
    });
    expect(await can('Bash', { command: 'echo x > out.txt' }, { signal, toolUseID: 't' })).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'echo x > out.txt' },
    });
    expect(asked).toEqual(['echo x > out.txt']);
  });

  it('denies when onAsk throws', async () => {
    const can = canUseToolFrom(await policyFromText(POLICY), {
      cwd: dir,
      onAsk: async () => {
        throw new Error('terminal gone');
      },
    });
    expect(await can('Bash', { command: 'echo x > y' }, { signal })).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('terminal gone'),
    });
  });
});

describe('agentSdkGuard', () => {
  it('registers the hook for every tool with onFailure block', async () => {
    const guard = agentSdkGuard(await policyFromText(POLICY));
    expect(guard.hooks.PreToolUse).toHaveLength(1);
    expect(guard.hooks.PreToolUse[0]).toMatchObject({ onFailure: 'block' });
    expect(guard.hooks.PreToolUse[0]!.matcher).toBeUndefined();
  });

  it("answers canUseTool's dialog with the hook's decision for that call, logged once", async () => {
    const logPath = path.join(dir, 'log.jsonl');
    const log = await DecisionLog.open(logPath);
    // the hook saw bypassPermissions; canUseTool (which is told no mode) must not re-decide in default
    const guard = agentSdkGuard(await policyFromText(POLICY), { cwd: dir, log });
    const hooked = pre('echo x > out.txt', { permission_mode: 'bypassPermissions', tool_use_id: 'toolu_9' });
    await guard.hooks.PreToolUse[0]!.hooks[0]!(hooked, 'toolu_9', { signal });
    const answer = await guard.canUseTool('Bash', hooked.tool_input, { signal, toolUseID: 'toolu_9' });
    expect(answer.behavior).toBe('allow');
    // an input that differs from what the hook saw is decided again (default mode: ask, denied)
    const again = { ...hooked, tool_use_id: 'toolu_10' };
    await guard.hooks.PreToolUse[0]!.hooks[0]!(again, 'toolu_10', { signal });
    const other = await guard.canUseTool(
      'Bash',
      { command: 'echo y > out.txt' },
      { signal, toolUseID: 'toolu_10' },
    );
    expect(other.behavior).toBe('deny');
    await log.close();
    expect(fs.readFileSync(logPath, 'utf8').trim().split('\n')).toHaveLength(3);
  });
});
