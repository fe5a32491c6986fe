import { describe, expect, it } from 'vitest';
import { parseHookOutput } from '../../src/pipeline/hook-output.js';
import { matcherFits, runPreToolUseHooks } from '../../src/pipeline/hooks.js';

const input = {
  session_id: 's',
  transcript_path: '',
  cwd: process.cwd(),
  permission_mode: 'default' as const,
  hook_event_name: 'PreToolUse' as const,
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  tool_use_id: 't1',
};

describe('hook matchers (Claude Code semantics)', () => {
  it('empty or * matches all; names and lists match exactly; anything else is a regex', () => {
    expect(matcherFits(undefined, 'Bash')).toBe(true);
    expect(matcherFits('*', 'Bash')).toBe(true);
    expect(matcherFits('Edit|Write', 'Write')).toBe(true);
    expect(matcherFits('Edit, Write', 'Write')).toBe(true);
    expect(matcherFits('Edit', 'MultiEdit')).toBe(false);
    expect(matcherFits('mcp__memory__.*', 'mcp__memory__save')).toBe(true);
    expect(matcherFits('mcp__memory', 'mcp__memory__save')).toBe(false);
    expect(matcherFits('(', 'Bash')).toMatchObject({ invalid: expect.stringContaining('not a valid regex') });
  });
});

describe('hook output', () => {
  it('reads permissionDecision, the deprecated approve/block form, and continue:false', () => {
    expect(parseHookOutput({ decision: 'approve' }, 'PreToolUse')).toEqual({
      ok: true,
      opinion: { permission: 'allow' },
    });
    expect(parseHookOutput({ decision: 'block', reason: 'r' }, 'PreToolUse')).toEqual({
      ok: true,
      opinion: { permission: 'deny', reason: 'r' },
    });
    expect(parseHookOutput({ continue: false }, 'PreToolUse')).toMatchObject({
      ok: true,
      opinion: { stop: 'a hook stopped the run' },
    });
    expect(parseHookOutput({ hookSpecificOutput: { permissionDecision: 'maybe' } }, 'PreToolUse').ok).toBe(
      false,
    );
  });
});

describe('runPreToolUseHooks', () => {
  it('the strictest decision wins: deny > defer > ask > allow', async () => {
    const says = (d: string) => ({
      type: 'function' as const,
      fn: () => ({ hookSpecificOutput: { permissionDecision: d as 'allow' } }),
    });
    const verdict = await runPreToolUseHooks(
      { PreToolUse: [{ hooks: [says('allow'), says('ask'), says('defer')] }] },
      input,
      new AbortController().signal,
    );
    expect(verdict.permission).toBe('defer');
    const denied = await runPreToolUseHooks(
      { PreToolUse: [{ hooks: [says('allow'), says('deny')] }] },
      input,
      new AbortController().signal,
    );
    expect(denied.permission).toBe('deny');
  });

  it('two hooks that rewrite the input differently are a conflict', async () => {
    const rewrite = (command: string) => ({
      type: 'function' as const,
      fn: () => ({ hookSpecificOutput: { updatedInput: { command } } }),
    });
    const verdict = await runPreToolUseHooks(
      { PreToolUse: [{ hooks: [rewrite('a'), rewrite('b')] }] },
      input,
      new AbortController().signal,
    );
    expect(verdict.conflict).toBeDefined();
  });

  it('a command hook reads the hook input on stdin; an invalid matcher blocks instead of being skipped', async () => {
    const verdict = await runPreToolUseHooks(
      {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              {
                type: 'command',
                command: `node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const i=JSON.parse(s);console.log(JSON.stringify({hookSpecificOutput:{permissionDecision:"ask",permissionDecisionReason:i.tool_input.command}}))})'`,
              },
            ],
          },
        ],
      },
      input,
      new AbortController().signal,
    );
    expect(verdict).toMatchObject({ permission: 'ask', reason: 'ls' });
    const invalid = await runPreToolUseHooks(
      { PreToolUse: [{ matcher: '(', hooks: [] }] },
      input,
      new AbortController().signal,
    );
    expect(invalid.permission).toBe('deny');
  });

  it('a command hook that times out is a non-blocking note', async () => {
    const verdict = await runPreToolUseHooks(
      { PreToolUse: [{ hooks: [{ type: 'command', command: 'sleep 5', timeoutMs: 100 }] }] },
      input,
      new AbortController().signal,
    );
    expect(verdict.permission).toBeUndefined();
    expect(verdict.notes.join(' ')).toContain('did not answer within 100 ms');
  });
});
