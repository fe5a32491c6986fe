import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from '../../src/pipeline/build-tool.js';
import type { ToolUseContext } from '../../src/pipeline/context.js';
import type { ToolUpdate } from '../../src/pipeline/run-tools.js';
import { StreamingToolExecutor } from '../../src/pipeline/streaming-executor.js';
import type { AnyTool } from '../../src/pipeline/tool.js';
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

async function collect(gen: AsyncGenerator<ToolUpdate, ToolUseContext>): Promise<ToolUpdate[]> {
  const out: ToolUpdate[] = [];
  for await (const u of gen) out.push(u);
  return out;
}

const resultIds = (updates: ToolUpdate[]) =>
  updates.filter((u) => u.type === 'result').map((u) => u.outcome.toolUseId);

describe('StreamingToolExecutor', () => {
  it('starts safe calls as they arrive, holds an unsafe one and everything after it, yields in block order', async () => {
    const gate = gateTool('Gate');
    const rec = recorder();
    const ctx = await testContext([gate.tool], ws.root, {
      policy: 'rules:\n  - allow: [Gate]\n',
      toolOptions: { onEvent: rec.onEvent },
    });
    const ex = new StreamingToolExecutor(ctx, refuseAll);
    const results = collect(ex.results());
    ex.addTool(use('Gate', { key: 'a', safe: true }, 'a'));
    await until(() => gate.isWaiting('a'));
    ex.addTool(use('Gate', { key: 'b', safe: true }, 'b'));
    await until(() => gate.isWaiting('b'));
    ex.addTool(use('Gate', { key: 'c' }, 'c'));
    ex.addTool(use('Gate', { key: 'd', safe: true }, 'd'));
    // c waits for a and b; d waits behind c even though it is safe.
    expect(gate.started).toEqual(['a', 'b']);
    gate.release('b');
    await until(() => rec.order().includes('end:b'));
    expect(gate.started).toEqual(['a', 'b']);
    gate.release('a');
    await until(() => gate.isWaiting('c'));
    expect(gate.started).toEqual(['a', 'b', 'c']);
    gate.release('c');
    await until(() => gate.isWaiting('d'));
    gate.release('d');
    ex.finish();
    expect(resultIds(await results)).toEqual(['a', 'b', 'c', 'd']);
    expect(unsafeOverlap(rec.events, new Set(['c']))).toBe(false);
  });

  it('abort reaches every running call and answers the queued ones without running them', async () => {
    const gate = gateTool('Gate');
    const ctx = await testContext([gate.tool], ws.root, { policy: 'rules:\n  - allow: [Gate]\n' });
    const ex = new StreamingToolExecutor(ctx, refuseAll);
    const results = collect(ex.results());
    ex.addTool(use('Gate', { key: 'a', safe: true }, 'a'));
    ex.addTool(use('Gate', { key: 'b', safe: true }, 'b'));
    ex.addTool(use('Gate', { key: 'c' }, 'c'));
    await until(() => gate.isWaiting('a') && gate.isWaiting('b'));
    ex.abort();
    ex.finish();
    const updates = await results;
    const outcomes = updates.filter((u) => u.type === 'result').map((u) => u.outcome);
    expect(outcomes.map((o) => [o.toolUseId, o.failure?.kind])).toEqual([
      ['a', 'aborted'],
      ['b', 'aborted'],
      ['c', 'aborted'],
    ]);
    expect(gate.started).toEqual(['a', 'b']);
  });

  it('interrupt cancels calls that allow it and lets blocking ones finish', async () => {
    const gate = gateTool('Gate');
    const Steady = buildTool({
      name: 'Steady',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: () => true,
      interruptBehavior: () => 'block',
      prompt: () => '',
      description: () => '',
      async call(_input, ctx) {
        await new Promise((r) => setTimeout(r, 30));
        return { data: ctx.signal.aborted ? 'aborted' : 'finished' };
      },
    }) as AnyTool;
    const Cancellable = buildTool({
      ...(gate.tool as unknown as Parameters<typeof buildTool>[0]),
      name: 'Cancel',
      interruptBehavior: () => 'cancel',
    }) as AnyTool;
    const ctx = await testContext([Cancellable, Steady], ws.root, {
      policy: 'rules:\n  - allow: [Cancel, Steady]\n',
    });
    const ex = new StreamingToolExecutor(ctx, refuseAll);
    const results = collect(ex.results());
    ex.addTool(use('Cancel', { key: 'x', safe: true }, 'x'));
    ex.addTool(use('Steady', {}, 's'));
    ex.addTool(use('Steady', {}, 'later'));
    await until(() => gate.isWaiting('x'));
    ex.interrupt();
    ex.finish();
    const outcomes = (await results).filter((u) => u.type === 'result').map((u) => u.outcome);
    expect(outcomes[0]?.failure?.kind).toBe('aborted');
    expect(outcomes[1]?.result.content).toBe('finished');
    expect(outcomes[1]?.failure).toBeUndefined();
  });

  it('property: for any arrival schedule, no unsafe overlap, the cap holds, results in block order', async () => {
    const ctx0 = await testContext([Delay], ws.root, { policy: 'rules:\n  - allow: [Delay]\n' });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            safe: fc.boolean(),
            delay: fc.integer({ min: 0, max: 3 }),
            gap: fc.integer({ min: 0, max: 2 }),
          }),
          { minLength: 1, maxLength: 12 },
        ),
        fc.integer({ min: 1, max: 3 }),
        async (calls, cap) => {
          const rec = recorder();
          const ctx = {
            ...ctx0,
            abortController: new AbortController(),
            options: { onEvent: rec.onEvent, maxConcurrency: cap },
          };
          const ex = new StreamingToolExecutor(ctx, refuseAll);
          const results = collect(ex.results());
          const ids: string[] = [];
          for (const [i, c] of calls.entries()) {
            if (c.gap > 0) await new Promise((r) => setTimeout(r, c.gap));
            ids.push(`s${i}`);
            ex.addTool(use('Delay', { key: `${i}`, safe: c.safe, delay: c.delay }, `s${i}`));
          }
          ex.finish();
          const updates = await results;
          expect(resultIds(updates)).toEqual(ids);
          expect(unsafeOverlap(rec.events, new Set(ids.filter((_, i) => !calls[i]!.safe)))).toBe(false);
          expect(rec.maxRunning()).toBeLessThanOrEqual(cap);
          expect(rec.events.filter((e) => e.event === 'start').map((e) => e.id)).toEqual(ids);
        },
      ),
      { numRuns: 40 },
    );
  });
});
