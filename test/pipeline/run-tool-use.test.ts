import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Entry } from '../../src/audit/entry.js';
import { buildTool } from '../../src/pipeline/build-tool.js';
import type { HookConfig } from '../../src/pipeline/hooks.js';
import { runToolUse } from '../../src/pipeline/run-tool-use.js';
import type { AnyTool } from '../../src/pipeline/tool.js';
import { allowAll, refuseAll, testContext, use, type Workspace, workspace } from './fixture.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

const seen: { input: unknown; sandboxTimeout: number }[] = [];

/** A tool the policy does not know: it asks by default, `allow: [Echo]` lets it run. */
const Echo = buildTool({
  name: 'Echo',
  inputSchema: z.strictObject({ text: z.string(), file_path: z.string().optional() }),
  prompt: () => 'echoes',
  description: () => 'echo',
  validateInput: async (input) =>
    input.text === 'invalid'
      ? { result: false, message: 'text must not be "invalid"; send another text' }
      : { result: true },
  backfillObservableInput: (input, ctx) => {
    if (typeof input.file_path === 'string')
      input.file_path = path.resolve(ctx.permission.cwd, input.file_path);
  },
  async call(input, ctx) {
    seen.push({ input, sandboxTimeout: ctx.sandbox.timeoutMs });
    if (input.text === 'throw') throw new Error('kaboom');
    if (input.text === 'hang') await new Promise(() => undefined);
    if (input.text === 'wait') {
      await new Promise<void>((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    return { data: `echo: ${input.text}` };
  },
}) as AnyTool;

const ALLOW_ECHO = 'rules:\n  - allow: [Echo]\n';

async function one(input: unknown, opts: Parameters<typeof testContext>[2] = {}, canUseTool = refuseAll) {
  const ctx = await testContext([Echo], ws.root, { policy: ALLOW_ECHO, ...opts });
  return runToolUse(use('Echo', input, 'toolu_1'), ctx, canUseTool);
}

describe('runToolUse: every failure is exactly one is_error tool_result', () => {
  it('unknown tool: names the tools that exist', async () => {
    const ctx = await testContext([Echo], ws.root);
    const out = await runToolUse(use('Nope', {}, 'toolu_x'), ctx, refuseAll);
    expect(out.result).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_x', is_error: true });
    expect(out.failure?.kind).toBe('unknown-tool');
    expect(out.result.content).toContain('Available tools: Echo');
  });

  it('abort before the call: nothing runs', async () => {
    const abortController = new AbortController();
    abortController.abort();
    seen.length = 0;
    const out = await one({ text: 'hi' }, { abortController });
    expect(out.failure?.kind).toBe('aborted');
    expect(out.result.is_error).toBe(true);
    expect(seen).toHaveLength(0);
  });

  it('abort while the call runs: the call sees its signal and the result says so', async () => {
    const abortController = new AbortController();
    const ctx = await testContext([Echo], ws.root, { policy: ALLOW_ECHO, abortController });
    const running = runToolUse(use('Echo', { text: 'wait' }, 'toolu_w'), ctx, refuseAll);
    setTimeout(() => abortController.abort(), 20);
    const out = await running;
    expect(out.failure?.kind).toBe('aborted');
    expect(out.result).toMatchObject({ tool_use_id: 'toolu_w', is_error: true });
  });

  it('zod failure: every issue is listed for the model', async () => {
    const out = await one({ text: 5, extra: true });
    expect(out.failure?.kind).toBe('invalid-input');
    expect(out.result.content).toMatch(/text: .*expected string/);
    expect(out.result.content).toMatch(/Unrecognized key/);
  });

  it('validateInput failure: the tool message reaches the model', async () => {
    const out = await one({ text: 'invalid' });
    expect(out.failure?.kind).toBe('validation');
    expect(out.result.content).toContain('send another text');
  });

  it('permission deny: the rule and its reason are named', async () => {
    const out = await one(
      { text: 'x' },
      { policy: 'rules:\n  - deny: [Echo]\n    reason: Echo is off limits\n' },
    );
    expect(out.failure?.kind).toBe('denied');
    expect(out.result.content).toContain('Echo is off limits');
    expect(out.decision?.behavior).toBe('deny');
  });

  it('ask refused: headless canUseTool denies with a structured reason', async () => {
    const out = await one({ text: 'x' }, { policy: '' });
    expect(out.failure?.kind).toBe('ask-refused');
    expect(out.result.content).toContain('needs approval');
    expect(out.result.is_error).toBe(true);
    // The log says a person (or what stands in for one) answered, not a hook.
    expect(out.decision).toMatchObject({ behavior: 'deny', decidedBy: 'user' });
  });

  it('ask approved: the call runs under a sandbox profile', async () => {
    seen.length = 0;
    const out = await one({ text: 'ok' }, { policy: '' }, allowAll);
    expect(out.failure).toBeUndefined();
    expect(out.result.content).toBe('echo: ok');
    expect(seen[0]?.sandboxTimeout).toBe(20_000);
    expect(out.decision?.sandbox).toBeDefined();
    expect(out.decision).toMatchObject({ behavior: 'allow', decidedBy: 'user' });
  });

  it('thrown error: the message is passed on', async () => {
    const out = await one({ text: 'throw' });
    expect(out.failure?.kind).toBe('threw');
    expect(out.result.content).toContain('kaboom');
  });

  it('timeout: a call that hangs past its deadline is abandoned', async () => {
    const ctx = await testContext([Echo], ws.root, {
      policy: ALLOW_ECHO,
      toolOptions: { deadlineGraceMs: 0 },
    });
    const tight = { ...ctx, permission: { ...ctx.permission } };
    // The profile's timeout comes from the policy: make it tiny.
    const policy = (await import('./fixture.js')).testPolicy;
    const p = await policy(`${ALLOW_ECHO}`, ws.root);
    (p.sandbox as { timeoutMs: number }).timeoutMs = 50;
    const out = await runToolUse(
      use('Echo', { text: 'hang' }, 'toolu_t'),
      { ...tight, permission: { ...tight.permission, policy: p } },
      refuseAll,
    );
    expect(out.failure?.kind).toBe('timeout');
    expect(out.result).toMatchObject({ tool_use_id: 'toolu_t', is_error: true });
  });

  it('disabled tool', async () => {
    const Off = buildTool({ ...Echo, name: 'Off', isEnabled: () => false }) as AnyTool;
    const ctx = await testContext([Off], ws.root);
    const out = await runToolUse(use('Off', { text: 'x' }), ctx, refuseAll);
    expect(out.failure?.kind).toBe('disabled');
  });

  it('a result that cannot be mapped is an internal error, not a crash', async () => {
    const Bad = buildTool({
      ...Echo,
      name: 'Bad',
      mapToolResultToToolResultBlockParam: () => {
        throw new Error('no mapping');
      },
    }) as AnyTool;
    const ctx = await testContext([Bad], ws.root, { policy: 'rules:\n  - allow: [Bad]\n' });
    const out = await runToolUse(use('Bad', { text: 'x' }), ctx, refuseAll);
    expect(out.failure?.kind).toBe('internal');
    expect(out.result.is_error).toBe(true);
  });

  it('a failing decision log stops the call', async () => {
    seen.length = 0;
    const decisionLog = { append: async () => Promise.reject(new Error('disk full')) };
    const out = await one({ text: 'x' }, { policy: ALLOW_ECHO, toolOptions: { decisionLog } });
    expect(out.failure?.kind).toBe('log-failed');
    expect(seen).toHaveLength(0);
  });
});

describe('runToolUse: hooks and permissions', () => {
  const hooks = (fn: NonNullable<HookConfig['PreToolUse']>[number]['hooks'][number]): HookConfig => ({
    PreToolUse: [{ matcher: 'Echo', hooks: [fn] }],
  });
  const says = (permissionDecision: string, extra: Record<string, unknown> = {}) =>
    hooks({
      type: 'function',
      fn: () =>
        ({
          hookSpecificOutput: {
            hookEventName: 'PreToolUse',
            permissionDecision,
            permissionDecisionReason: `hook says ${permissionDecision}`,
            ...extra,
          },
        }) as never,
    });

  it('hook stop: continue false stops the call and marks the run', async () => {
    const out = await one(
      { text: 'x' },
      {
        toolOptions: {
          hooks: hooks({ type: 'function', fn: () => ({ continue: false, stopReason: 'enough' }) }),
        },
      },
    );
    expect(out.failure?.kind).toBe('hook-stopped');
    expect(out.stop).toBe('enough');
  });

  it('command hook exit 2 blocks, even with JSON that says allow; stderr is the reason', async () => {
    const command = `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'; echo 'no Echo today' >&2; exit 2`;
    const out = await one({ text: 'x' }, { toolOptions: { hooks: hooks({ type: 'command', command }) } });
    expect(out.failure?.kind).toBe('hook-blocked');
    expect(out.result.content).toContain('no Echo today');
  });

  it('command hook exit 1 is a non-blocking error: the policy still decides', async () => {
    const out = await one(
      { text: 'x' },
      { toolOptions: { hooks: hooks({ type: 'command', command: 'exit 1' }) } },
    );
    expect(out.failure).toBeUndefined();
    expect(out.notes.join(' ')).toContain('exit 1');
  });

  it('a throwing function hook blocks (fail closed)', async () => {
    const fn = () => {
      throw new Error('hook bug');
    };
    const out = await one({ text: 'x' }, { toolOptions: { hooks: hooks({ type: 'function', fn }) } });
    expect(out.failure?.kind).toBe('hook-blocked');
  });

  it('hook deny beats an allow rule', async () => {
    const out = await one({ text: 'x' }, { toolOptions: { hooks: says('deny') } });
    expect(out.failure?.kind).toBe('hook-blocked');
    expect(out.decision?.decidedBy).toBe('hook');
  });

  it('hook allow never beats a deny rule', async () => {
    const out = await one(
      { text: 'x' },
      { policy: 'rules:\n  - deny: [Echo]\n', toolOptions: { hooks: says('allow') } },
    );
    expect(out.failure?.kind).toBe('denied');
    expect(out.decision?.decidedBy).toBe('rule');
  });

  it('hook allow never beats an ask rule: canUseTool is still asked', async () => {
    const out = await one(
      { text: 'x' },
      { policy: 'rules:\n  - ask: [Echo]\n', toolOptions: { hooks: says('allow') } },
    );
    expect(out.failure?.kind).toBe('ask-refused');
  });

  it('hook allow turns a default ask into allow', async () => {
    const out = await one({ text: 'x' }, { policy: '', toolOptions: { hooks: says('allow') } });
    expect(out.failure).toBeUndefined();
    expect(out.decision).toMatchObject({ behavior: 'allow', decidedBy: 'hook' });
  });

  it('hook allow is a pre-approval in dontAsk mode', async () => {
    const plain = await one({ text: 'x' }, { policy: '', mode: 'dontAsk' });
    expect(plain.failure?.kind).toBe('denied');
    const hooked = await one(
      { text: 'x' },
      { policy: '', mode: 'dontAsk', toolOptions: { hooks: says('allow') } },
    );
    expect(hooked.failure).toBeUndefined();
  });

  it('hook ask forces approval even when a rule allows', async () => {
    const out = await one({ text: 'x' }, { toolOptions: { hooks: says('ask') } });
    expect(out.failure?.kind).toBe('ask-refused');
  });

  it('hook updatedInput replaces the call input; without it the call input is untouched', async () => {
    seen.length = 0;
    await one({ text: 'x', file_path: 'rel.txt' });
    expect(seen[0]?.input).toEqual({ text: 'x', file_path: 'rel.txt' });
    let observed: unknown;
    const fn = (input: { tool_input: unknown }) => {
      observed = input.tool_input;
      return { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { text: 'rewritten' } } };
    };
    await one(
      { text: 'x', file_path: 'rel.txt' },
      { toolOptions: { hooks: hooks({ type: 'function', fn: fn as never }) } },
    );
    expect(observed).toEqual({ text: 'x', file_path: path.join(ws.root, 'rel.txt') });
    expect(seen[1]?.input).toEqual({ text: 'rewritten' });
  });

  it('an invalid updatedInput is refused with the schema issues', async () => {
    const out = await one(
      { text: 'x' },
      { toolOptions: { hooks: says('allow', { updatedInput: { text: 7 } }) } },
    );
    expect(out.failure?.kind).toBe('invalid-input');
    expect(out.result.content).toContain('rewritten by a PreToolUse hook');
  });

  it('additional context from a hook reaches the model after the result', async () => {
    const out = await one(
      { text: 'x' },
      { toolOptions: { hooks: says('allow', { additionalContext: 'remember the tests' }) } },
    );
    expect(JSON.stringify(out.result.content)).toContain('remember the tests');
  });

  it('PostToolUse hooks see the result and can add feedback', async () => {
    let response: unknown;
    const config: HookConfig = {
      PostToolUse: [
        {
          hooks: [
            {
              type: 'function',
              fn: (input) => {
                response = (input as { tool_response: unknown }).tool_response;
                return { decision: 'block', reason: 'looks wrong' };
              },
            },
          ],
        },
      ],
    };
    const out = await one({ text: 'x' }, { toolOptions: { hooks: config } });
    expect(response).toBe('echo: x');
    expect(JSON.stringify(out.result.content)).toContain('looks wrong');
  });

  it('every decision goes to the decision log, with the observable input', async () => {
    const entries: Entry[] = [];
    const decisionLog = { append: async (e: Entry) => entries.push(e) };
    await one({ text: 'a', file_path: 'f' }, { toolOptions: { decisionLog } });
    await one({ text: 'b' }, { policy: 'rules:\n  - deny: [Echo]\n', toolOptions: { decisionLog } });
    await one({ text: 'c' }, { policy: '', toolOptions: { decisionLog } });
    expect(entries.map((e) => e.decision.behavior)).toEqual(['allow', 'deny', 'deny']);
    expect((entries[0]!.request.input as { file_path: string }).file_path).toBe(path.join(ws.root, 'f'));
    expect(entries[2]?.decision.reason).toContain('canUseTool refused');
  });
});
