import type { ToolUseBlock } from './blocks.js';
import { Channel } from './channel.js';
import { maxToolUseConcurrency } from './concurrency.js';
import type { ToolUseContext } from './context.js';
import { failure, failureResult } from './failure.js';
import { isConcurrencySafeCall } from './partition.js';
import { runToolUse, type ToolUseOutcome } from './run-tool-use.js';
import { applyModifier, stoppedOutcome, type ToolUpdate } from './run-tools.js';
import type { CanUseTool, ParentMessage } from './tool.js';

/**
 * Starts tools while the model is still streaming its message, as each tool_use block
 * completes. The rule is the batch rule of runTools, applied as blocks arrive:
 *
 * - a concurrency-safe call starts when only safe calls are running (up to the cap);
 * - any other call starts only when nothing is running, and while it waits it holds back
 *   every call after it, so effects never reorder;
 * - calls start in block order (a call never overtakes one queued before it);
 * - results come out in block order; progress comes out as it arrives.
 *
 * abort() stops everything: running calls see their signal fire, queued ones are answered
 * without running. interrupt() is a user interrupt: calls whose interruptBehavior is 'cancel'
 * are stopped, 'block' ones finish; nothing queued starts.
 */
interface Tracked {
  readonly block: ToolUseBlock;
  readonly index: number;
  readonly safe: boolean;
  status: 'queued' | 'running' | 'done';
  outcome?: ToolUseOutcome;
  readonly interrupt: AbortController;
}

type Event = { kind: 'progress'; update: Extract<ToolUpdate, { type: 'progress' }> } | { kind: 'done' };

export class StreamingToolExecutor {
  private readonly tracked: Tracked[] = [];
  private readonly channel = new Channel<Event>();
  private readonly cap: number;
  private ctx: ToolUseContext;
  private pendingModifiers: Tracked[] = [];
  private finished = false;
  private stopped: string | undefined;
  private interrupted = false;

  constructor(
    ctx: ToolUseContext,
    private readonly canUseTool: CanUseTool,
    private readonly options: { parentMessage?: ParentMessage } = {},
  ) {
    this.ctx = ctx;
    this.cap = maxToolUseConcurrency(ctx.options.env, ctx.options.maxConcurrency);
  }

  /** The context after every modifier applied so far. */
  get context(): ToolUseContext {
    return this.ctx;
  }

  addTool(block: ToolUseBlock): void {
    if (this.finished) throw new Error('StreamingToolExecutor: addTool() after finish()');
    const safe = isConcurrencySafeCall(block, this.ctx.tools);
    this.tracked.push({
      block,
      index: this.tracked.length,
      safe,
      status: 'queued',
      interrupt: new AbortController(),
    });
    this.pump();
  }

  /** No more blocks will come; results() ends after the last one. */
  finish(): void {
    this.finished = true;
    this.channel.push({ kind: 'done' });
  }

  abort(reason?: unknown): void {
    this.ctx.abortController.abort(reason);
    this.pump();
  }

  interrupt(): void {
    this.interrupted = true;
    for (const t of this.tracked) {
      if (t.status !== 'running') continue;
      let behavior: 'cancel' | 'block' = 'block';
      try {
        const tool = this.ctx.tools.find(t.block.name);
        const parsed = tool?.inputSchema.safeParse(t.block.input);
        if (tool && parsed?.success) behavior = tool.interruptBehavior(parsed.data);
      } catch {
        behavior = 'block';
      }
      if (behavior === 'cancel') t.interrupt.abort(new Error('interrupted'));
    }
    this.pump();
  }

  async *results(): AsyncGenerator<ToolUpdate, ToolUseContext> {
    let next = 0;
    for (;;) {
      while (next < this.tracked.length && this.tracked[next]!.status === 'done') {
        const t = this.tracked[next++]!;
        yield { type: 'result', outcome: t.outcome!, context: this.ctx };
      }
      if (this.finished && next >= this.tracked.length) return this.ctx;
      const event = await this.channel.next();
      if (event.kind === 'progress') yield event.update;
    }
  }

  private running(): Tracked[] {
    return this.tracked.filter((t) => t.status === 'running');
  }

  private pump(): void {
    for (const t of this.tracked) {
      if (t.status !== 'queued') continue;
      const reason = this.stopped !== undefined ? 'stop' : this.interrupted ? 'interrupt' : undefined;
      if (reason !== undefined) {
        this.complete(
          t,
          reason === 'stop' ? stoppedOutcome(t.block, this.stopped!) : interruptedOutcome(t.block),
        );
        continue;
      }
      if (this.ctx.abortController.signal.aborted) {
        // An aborted run answers queued calls at once; none of them starts.
        this.complete(t, abortedOutcome(t.block));
        continue;
      }
      const running = this.running();
      const fits =
        running.length < this.cap && (t.safe ? running.every((r) => r.safe) : running.length === 0);
      if (!fits) break;
      this.start(t);
    }
  }

  private start(t: Tracked): void {
    t.status = 'running';
    const ctx = this.ctx;
    this.emit('start', t.block.id);
    void runToolUse(t.block, ctx, this.canUseTool, {
      ...(this.options.parentMessage ? { parentMessage: this.options.parentMessage } : {}),
      concurrent: t.safe,
      signal: t.interrupt.signal,
      onProgress: (p) =>
        this.channel.push({
          kind: 'progress',
          update: { type: 'progress', toolUseId: p.toolUseId, tool: p.tool, data: p.data },
        }),
    }).then((outcome) => {
      this.emit('end', t.block.id);
      this.complete(t, outcome);
      this.pump();
    });
  }

  private complete(t: Tracked, outcome: ToolUseOutcome): void {
    t.status = 'done';
    t.outcome = outcome;
    this.stopped ??= outcome.stop;
    if (outcome.contextModifier) {
      if (t.safe) this.pendingModifiers.push(t);
      else this.ctx = applyModifier(this.ctx, outcome);
    }
    if (this.running().length === 0 && this.pendingModifiers.length > 0) {
      // The safe group has drained: its modifiers apply now, in block order.
      const group = this.pendingModifiers.sort((a, b) => a.index - b.index);
      this.pendingModifiers = [];
      for (const m of group) this.ctx = applyModifier(this.ctx, m.outcome!);
    }
    this.channel.push({ kind: 'done' });
  }

  private emit(event: 'start' | 'end', id: string): void {
    try {
      this.ctx.options.onEvent?.({ event, id, t: performance.now() });
    } catch {
      // tracing must never change what runs
    }
  }
}

function interruptedOutcome(block: ToolUseBlock): ToolUseOutcome {
  return notRun(block, 'Not run: the user interrupted before this call started.');
}

function abortedOutcome(block: ToolUseBlock): ToolUseOutcome {
  return notRun(block, 'Not run: the run was aborted before this call started.');
}

function notRun(block: ToolUseBlock, message: string): ToolUseOutcome {
  const f = failure('aborted', message);
  return { toolUseId: block.id, result: failureResult(block.id, f), failure: f, notes: [] };
}
