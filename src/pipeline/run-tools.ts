import type { ToolUseBlock } from './blocks.js';
import { Channel } from './channel.js';
import { maxToolUseConcurrency } from './concurrency.js';
import type { ToolUseContext } from './context.js';
import { failure, failureResult } from './failure.js';
import { partitionToolCalls } from './partition.js';
import { runToolUse, type ToolUseOutcome } from './run-tool-use.js';
import type { CanUseTool, ParentMessage } from './tool.js';

/**
 * Runs the tool_use blocks of one assistant message. Consecutive concurrency-safe calls run as
 * one batch, at most maxToolUseConcurrency() at a time; any other call runs alone, after
 * everything before it finished and before anything after it starts. Progress is handed out
 * as it arrives; results come out in block order, each as soon as it and all before it are done.
 *
 * Context modifiers: a call running alone changes the context at once, for the next call; the
 * modifiers of a batch are queued by tool_use id and applied in block order after the batch.
 */
export type ToolUpdate =
  | { type: 'progress'; toolUseId: string; tool: string; data: unknown }
  | { type: 'result'; outcome: ToolUseOutcome; context: ToolUseContext };

export interface RunToolsOptions {
  parentMessage?: ParentMessage;
}

type Event =
  | { kind: 'progress'; update: Extract<ToolUpdate, { type: 'progress' }> }
  | { kind: 'done'; index: number; outcome: ToolUseOutcome };

export async function* runTools(
  blocks: readonly ToolUseBlock[],
  ctx: ToolUseContext,
  canUseTool: CanUseTool,
  options: RunToolsOptions = {},
): AsyncGenerator<ToolUpdate, ToolUseContext> {
  let context = ctx;
  let stopped: string | undefined;
  const cap = maxToolUseConcurrency(ctx.options.env, ctx.options.maxConcurrency);
  const channel = new Channel<Event>();
  const emit = (event: 'start' | 'end', id: string) => {
    try {
      ctx.options.onEvent?.({ event, id, t: performance.now() });
    } catch {
      // tracing must never change what runs
    }
  };

  for (const batch of partitionToolCalls(blocks, ctx.tools)) {
    const list = batch.blocks;
    if (stopped !== undefined) {
      for (const block of list) yield { type: 'result', outcome: stoppedOutcome(block, stopped), context };
      continue;
    }
    const batchContext = context;
    const outcomes: (ToolUseOutcome | undefined)[] = list.map(() => undefined);
    let cursor = 0;
    const startNext = () => {
      const index = cursor++;
      if (index >= list.length) return;
      const block = list[index]!;
      emit('start', block.id);
      void runToolUse(block, batchContext, canUseTool, {
        ...(options.parentMessage ? { parentMessage: options.parentMessage } : {}),
        concurrent: batch.concurrent,
        onProgress: (p) =>
          channel.push({
            kind: 'progress',
            update: { type: 'progress', toolUseId: p.toolUseId, tool: p.tool, data: p.data },
          }),
      }).then((outcome) => {
        emit('end', block.id);
        channel.push({ kind: 'done', index, outcome });
        startNext();
      });
    };
    const width = batch.concurrent ? Math.min(cap, list.length) : 1;
    for (let i = 0; i < width; i++) startNext();

    let yielded = 0;
    while (yielded < list.length) {
      const event = await channel.next();
      if (event.kind === 'progress') {
        yield event.update;
        continue;
      }
      outcomes[event.index] = event.outcome;
      while (yielded < list.length && outcomes[yielded] !== undefined) {
        const outcome = outcomes[yielded]!;
        yielded++;
        if (!batch.concurrent && outcome.contextModifier) context = applyModifier(context, outcome);
        stopped ??= outcome.stop;
        yield { type: 'result', outcome, context };
      }
    }
    if (batch.concurrent) {
      for (const outcome of outcomes) if (outcome?.contextModifier) context = applyModifier(context, outcome);
    }
  }
  return context;
}

/** A modifier that throws leaves the context as it was: one tool's bug must not end the run. */
export function applyModifier(context: ToolUseContext, outcome: ToolUseOutcome): ToolUseContext {
  try {
    return outcome.contextModifier?.(context) ?? context;
  } catch {
    outcome.notes.push('the context change of this call failed and was not applied');
    return context;
  }
}

export function stoppedOutcome(block: ToolUseBlock, reason: string): ToolUseOutcome {
  const f = failure('hook-stopped', `Not run: a hook stopped the run before this call (${reason}).`);
  return { toolUseId: block.id, result: failureResult(block.id, f), failure: f, notes: [] };
}
