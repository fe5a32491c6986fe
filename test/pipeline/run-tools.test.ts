import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ToolUseBlock } from '../../src/pipeline/blocks.js';
import { buildTool } from '../../src/pipeline/build-tool.js';
import type { ToolUseContext } from '../../src/pipeline/context.js';
import { runTools, type ToolUpdate } from '../../src/pipeline/run-tools.js';
import type { AnyTool } from '../../src/pipeline/tool.js';
import { builtinTools } from '../../src/tools/index.js';
import {
  Delay,
  gateTool,
  recorder,
  refuseAll,
  testContext,
  unsafeOverlap,
  until,
  use,
  type Workspace,
  workspace,
} from './fixture.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace();
});
afterEach(() => ws.cleanup());

async function drain(gen: AsyncGenerator<ToolUpdate, ToolUseContext>) {
  const results: ToolUpdate[] = [];
  let next = await gen.next();
  while (!next.done) {
    results.push(next.value);
    next = await gen.next();
  }
  return { updates: results, context: next.value };
}

describe('runTools schedule (proved by event order)', () => {
  it('Read A, Grep B, Edit C, Read D: A and B together, then C alone, then D', async () => {
    ws.file('a.txt', 'alpha\n');
    ws.file('b.txt', 'beta\n');
    const rec = recorder();
    const ctx = await testContext(builtinTools(), ws.root, {
      mode: 'acceptEdits',
      toolOptions: { onEvent: rec.onEvent },
    });
    const blocks = [
      use('Read', { file_path: 'a.txt' }, 'A'),
      use('Grep', { pattern: 'beta' }, 'B'),
      use('Edit', { file_path: 'a.txt', old_string: 'alpha', new_string: 'gamma' }, 'C'),
      use('Read', { file_path: 'a.txt' }, 'D'),
    ];
    const { updates } = await drain(runTools(blocks, ctx, refuseAll));
    const order = rec.order();
    const at = (s: string) => order.indexOf(s);
    // A and B both started before either ended.
    expect(Math.max(at('start:A'), at('start:B'))).toBeLessThan(Math.min(at('end:A'), at('end:B')));
    // C starts after A and B end, and ends before D starts.
    expect(at('start:C')).toBeGreaterThan(Math.max(at('end:A'), at('end:B')));
    expect(at('start:D')).toBeGreaterThan(at('end:C'));
    const results = updates.filter((u) => u.type === 'result').map((u) => u.outcome.result);
    expect(results.map((r) => r.tool_use_id)).toEqual(['A', 'B', 'C', 'D']);
    expect(results.every((r) => r.is_error !== true)).toBe(true);
    expect(results[3]?.content).toContain('gamma');
  });

  it('the concurrency cap holds with 25 safe calls (10 by default, the environment can lower it)', async () => {
    for (const [env, cap] of [
      [{}, 10],
      [{ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '4' }, 4],
      [{ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '3' }, 3],
      [{ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '0' }, 10],
    ] as const) {
      const gate = gateTool('Gate');
      const rec = recorder();
      const ctx = await testContext([gate.tool], ws.root, {
        policy: 'rules:\n  - allow: [Gate]\n',
        toolOptions: { onEvent: rec.onEvent, env },
      });
      const blocks = Array.from({ length: 25 }, (_, i) => use('Gate', { key: `k${i}`, safe: true }, `g${i}`));
      const done = drain(runTools(blocks, ctx, refuseAll));
      // Release calls one at a time as they start, so the scheduler is always at its limit.
      for (let i = 0; i < 25; i++) {
        await until(() => gate.isWaiting(`k${i}`), `k${i} to start`);
        gate.release(`k${i}`);
      }
      const { updates } = await done;
      expect(rec.maxRunning()).toBe(cap);
      expect(updates.filter((u) => u.type === 'result').map((u) => u.outcome.toolUseId)).toEqual(
        blocks.map((b) => b.id),
      );
    }
  });

  it('context modifiers of a batch apply in block order, after the batch; a serial call sees its predecessors', async () => {
    const gate = gateTool('Gate', { modifier: true });
    const seenTrail: unknown[] = [];
    const Look = buildTool({
      name: 'Look',
      inputSchema: z.strictObject({}),
      prompt: () => '',
      description: () => '',
      async call(_input, ctx) {
        seenTrail.push(ctx.appState.trail);
        return { data: 'ok' };
      },
    }) as AnyTool;
    const ctx = await testContext([gate.tool, Look], ws.root, {
      policy: 'rules:\n  - allow: [Gate, Look]\n',
    });
    const blocks = [
      use('Gate', { key: 'a', safe: true }, 'a'),
      use('Gate', { key: 'b', safe: true }, 'b'),
      use('Gate', { key: 'c', safe: true }, 'c'),
      use('Look', {}, 'look1'),
      use('Gate', { key: 'd' }, 'd'),
      use('Look', {}, 'look2'),
    ];
    const done = drain(runTools(blocks, ctx, refuseAll));
    await until(() => gate.isWaiting('a') && gate.isWaiting('b') && gate.isWaiting('c'));
    // Finish in reverse order: the modifiers must still apply as a, b, c.
    gate.release('c');
    gate.release('b');
    gate.release('a');
    await until(() => gate.isWaiting('d'));
    gate.release('d');
    const { context } = await done;
    expect(seenTrail).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c', 'd'],
    ]);
    expect(context.appState.trail).toEqual(['a', 'b', 'c', 'd']);
  });

  it('invalid input or a throwing flag makes a call run alone', async () => {
    const Throws = buildTool({
      name: 'Throws',
      inputSchema: z.strictObject({ key: z.string() }),
      isConcurrencySafe: () => {
        throw new Error('flag bug');
      },
      prompt: () => '',
      description: () => '',
      async call(input) {
        return { data: input.key };
      },
    }) as AnyTool;
    const rec = recorder();
    const ctx = await testContext([Delay, Throws], ws.root, {
      policy: 'rules:\n  - allow: [Delay, Throws]\n',
      toolOptions: { onEvent: rec.onEvent },
    });
    const blocks = [
      use('Delay', { key: '1', safe: true, delay: 1 }, '1'),
      use('Throws', { key: '2' }, '2'),
      use('Delay', { key: '3', safe: true, delay: 1 }, '3'),
      use('Delay', { key: '4', safe: 'yes', delay: 1 }, '4'),
      use('Delay', { key: '5', safe: true, delay: 1 }, '5'),
    ];
    await drain(runTools(blocks, ctx, refuseAll));
    expect(unsafeOverlap(rec.events, new Set(['2', '4']))).toBe(false);
    expect(rec.order()).toEqual([
      'start:1',
      'end:1',
      'start:2',
      'end:2',
      'start:3',
      'end:3',
      'start:4',
      'end:4',
      'start:5',
      'end:5',
    ]);
  });

  it('property: an unsafe call never runs beside another; results stay in block order', async () => {
    const ctx0 = await testContext([Delay], ws.root, { policy: 'rules:\n  - allow: [Delay]\n' });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ safe: fc.boolean(), delay: fc.integer({ min: 0, max: 3 }) }), {
          minLength: 1,
          maxLength: 14,
        }),
        fc.integer({ min: 1, max: 4 }),
        async (calls, cap) => {
          const rec = recorder();
          const ctx = { ...ctx0, options: { onEvent: rec.onEvent, maxConcurrency: cap } };
          const blocks: ToolUseBlock[] = calls.map((c, i) => use('Delay', { key: `${i}`, ...c }, `c${i}`));
          const { updates } = await drain(runTools(blocks, ctx, refuseAll));
          const unsafe = new Set(blocks.filter((_, i) => !calls[i]!.safe).map((b) => b.id));
          expect(unsafeOverlap(rec.events, unsafe)).toBe(false);
          expect(rec.maxRunning()).toBeLessThanOrEqual(cap);
          expect(updates.filter((u) => u.type === 'result').map((u) => u.outcome.toolUseId)).toEqual(
            blocks.map((b) => b.id),
          );
          // A call never starts before an earlier call started.
          const starts = rec.events.filter((e) => e.event === 'start').map((e) => e.id);
          expect(starts).toEqual(blocks.map((b) => b.id));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a hook stop answers every later call without running it', async () => {
    const rec = recorder();
    const ctx = await testContext([Delay], ws.root, {
      policy: 'rules:\n  - allow: [Delay]\n',
      toolOptions: {
        onEvent: rec.onEvent,
        hooks: {
          PreToolUse: [
            {
              hooks: [
                {
                  type: 'function',
                  fn: (input) =>
                    input.tool_input.key === '2' ? { continue: false, stopReason: 'stop here' } : undefined,
                },
              ],
            },
          ],
        },
      },
    });
    const blocks = ['1', '2', '3', '4'].map((k) => use('Delay', { key: k, safe: false, delay: 0 }, k));
    const { updates } = await drain(runTools(blocks, ctx, refuseAll));
    const results = updates.filter((u) => u.type === 'result').map((u) => u.outcome);
    expect(results.map((r) => [r.toolUseId, r.failure?.kind])).toEqual([
      ['1', undefined],
      ['2', 'hook-stopped'],
      ['3', 'hook-stopped'],
      ['4', 'hook-stopped'],
    ]);
    expect(rec.order()).not.toContain('start:3');
  });

  it('progress streams before the result of its call', async () => {
    const ctx = await testContext(builtinTools(), ws.root, {
      policy: 'rules:\n  - allow: ["Bash(printf *)"]\n',
    });
    const { updates } = await drain(runTools([use('Bash', { command: 'printf one' }, 'p1')], ctx, refuseAll));
    expect(updates[0]).toMatchObject({ type: 'progress', toolUseId: 'p1', tool: 'Bash' });
    expect(updates[updates.length - 1]).toMatchObject({ type: 'result' });
  });
});
