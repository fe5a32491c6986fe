import { decide } from '../policy/decide.js';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { askForApproval } from './approval.js';
import { appendText, type ToolResultBlock, type ToolUseBlock } from './blocks.js';
import type { ToolUseContext } from './context.js';
import { describeError, failure, failureResult, type ToolFailure } from './failure.js';
import { hookCommon, hookInput } from './hook-input.js';
import { type PreHookVerdict, runPostToolUseHooks, runPreToolUseHooks } from './hooks.js';
import { checkInput } from './input.js';
import { decidePermission, withBehavior } from './permission.js';
import { recordDecision } from './record-decision.js';
import { boundResult } from './result-size.js';
import { callWithDeadline } from './supervise-call.js';
import type {
  AnyTool,
  CanUseTool,
  ContextModifier,
  ParentMessage,
  PermissionCheck,
  ToolProgress,
} from './tool.js';

/**
 * One tool_use -> exactly one tool_result. Lookup, schema, validateInput, PreToolUse hooks,
 * the permission decision (permission.ts has the exact order), canUseTool for asks, the
 * decision log, the call under its sandbox profile and deadline, result size, PostToolUse
 * hooks. Every failure on the way is a value that becomes an is_error result; nothing here
 * throws to the caller, and nothing runs when something before it failed.
 */
export interface RunToolUseOptions {
  parentMessage?: ParentMessage;
  /** Progress as the tool reports it, tagged with the tool's name. */
  onProgress?: (progress: ToolProgress<unknown> & { tool: string }) => void;
  /**
   * The scheduler runs this call beside others because its input was concurrency-safe. If a
   * hook or a person changes the input into one that is not, the call is refused rather than
   * run beside the others.
   */
  concurrent?: boolean;
  /** An extra stop signal for this call (the streaming executor's interrupt). */
  signal?: AbortSignal;
}

export interface ToolUseOutcome {
  toolUseId: string;
  result: ToolResultBlock;
  /** Set when the result is an error produced by the pipeline (not the tool's own error output). */
  failure?: ToolFailure;
  /** The final permission decision, when one was made. */
  decision?: Decision;
  tool?: AnyTool;
  /** The input the call ran with (or would have). */
  input?: unknown;
  /** The tool's output, for rendering; absent when it did not run. */
  output?: unknown;
  contextModifier?: ContextModifier;
  /** A hook asked to stop the whole run; the scheduler starts nothing more. */
  stop?: string;
  /** For the person running the session: non-blocking hook errors and messages. */
  notes: string[];
}

export async function runToolUse(
  block: ToolUseBlock,
  ctx: ToolUseContext,
  canUseTool: CanUseTool,
  options: RunToolUseOptions = {},
): Promise<ToolUseOutcome> {
  const notes: string[] = [];
  try {
    return await run(block, ctx, canUseTool, options, notes);
  } catch (err) {
    return failed(
      block.id,
      failure(
        'internal',
        `toolgate failed while handling this call, so it did not run: ${describeError(err)}`,
      ),
      { notes },
    );
  }
}

async function run(
  block: ToolUseBlock,
  ctx: ToolUseContext,
  canUseTool: CanUseTool,
  options: RunToolUseOptions,
  notes: string[],
): Promise<ToolUseOutcome> {
  const id = block.id;
  // A signal of the call's own, so listeners attach to it and not to the session's signal,
  // which many concurrent calls would otherwise pile listeners on.
  const signal = AbortSignal.any([ctx.abortController.signal, ...(options.signal ? [options.signal] : [])]);
  const tool = ctx.tools.find(block.name);
  const request = (input: unknown): ToolRequest => ({
    tool: tool?.name ?? block.name,
    input,
    cwd: ctx.permission.cwd,
    mode: ctx.permission.mode,
    ...(ctx.permission.sessionId ? { sessionId: ctx.permission.sessionId } : {}),
    ...(ctx.permission.agentId ? { agentId: ctx.permission.agentId } : {}),
  });
  const reject = async (f: ToolFailure, input: unknown, extra: Partial<ToolUseOutcome> = {}) => {
    const decision = withBehavior(
      decide(request(input), ctx.permission.policy, ctx.permission.fs ? { fs: ctx.permission.fs } : {}),
      'deny',
      f.kind === 'hook-stopped' || f.kind === 'hook-blocked' ? 'hook' : 'error',
      f.message,
    );
    const logged = await recordDecision(ctx, request(input), decision);
    return failed(id, logged ?? f, { decision, notes, ...(tool ? { tool } : {}), ...extra });
  };

  if (!tool) {
    const names = ctx.tools
      .enabled()
      .map((t) => t.name)
      .join(', ');
    return reject(
      failure('unknown-tool', `No tool is called "${block.name}". Available tools: ${names || '(none)'}.`),
      block.input,
    );
  }
  if (!tool.isEnabled())
    return reject(failure('disabled', `The ${tool.name} tool is switched off in this session.`), block.input);
  if (signal.aborted) return failed(id, aborted('before it started'), { tool, notes });

  let checked = await checkInput(tool, block.input, ctx);
  if (!checked.ok) return reject(checked.failure, block.input);
  let { input, observable } = checked;
  let changed = false;

  const hooks = ctx.options.hooks;
  let hook: PreHookVerdict = { additionalContext: [], notes: [] };
  if (hooks?.PreToolUse && hooks.PreToolUse.length > 0) {
    hook = await runPreToolUseHooks(hooks, hookInput(ctx, tool.name, observable, id), signal);
    notes.push(...hook.notes);
    if (signal.aborted) return failed(id, aborted('before it started'), { tool, notes });
    if (hook.stop !== undefined) {
      const f = failure(
        'hook-stopped',
        `A PreToolUse hook stopped the run: ${hook.stop}. This call did not run.`,
      );
      return reject(f, observable, { stop: hook.stop });
    }
    if (hook.conflict)
      return reject(failure('hook-blocked', `The call was not run: ${hook.conflict}.`), observable);
    if (hook.updatedInput !== undefined && hook.permission !== 'deny') {
      checked = await checkInput(tool, hook.updatedInput, ctx, 'The input rewritten by a PreToolUse hook');
      if (!checked.ok) return reject(checked.failure, hook.updatedInput);
      ({ input, observable } = checked);
      changed = true;
    }
  }

  let check: PermissionCheck;
  try {
    check = await tool.checkPermissions(input, ctx);
  } catch (err) {
    check = {
      behavior: 'deny',
      message: `${tool.name} could not check its permissions: ${describeError(err)}`,
    };
  }
  let decision = await decidePermission(request(observable), ctx, hook, check);
  if (decision.behavior === 'ask') {
    const approval = await askForApproval(
      tool,
      request(observable),
      decision,
      { input, observable },
      ctx,
      canUseTool,
      {
        toolUseId: id,
        signal,
      },
    );
    if (!approval.ok) {
      const logged = await recordDecision(ctx, request(observable), approval.decision);
      return failed(id, logged ?? approval.failure, { tool, input, decision: approval.decision, notes });
    }
    changed ||= approval.input !== input;
    ({ decision, input, observable } = approval);
  }
  const logged = await recordDecision(ctx, request(observable), decision);
  if (logged) return failed(id, logged, { tool, input, decision, notes });
  if (decision.behavior === 'deny') {
    const kind = decision.decidedBy === 'hook' ? 'hook-blocked' : 'denied';
    return failed(id, failure(kind, denialMessage(tool.name, decision)), { tool, input, decision, notes });
  }
  if (decision.sandbox === undefined) {
    return failed(
      id,
      failure(
        'internal',
        `${tool.name} was allowed without a sandbox profile, so it did not run (toolgate never runs a call without limits).`,
      ),
      {
        tool,
        input,
        decision,
        notes,
      },
    );
  }
  if (options.concurrent && changed && !tool.isConcurrencySafe(input)) {
    const f = failure(
      'unsafe-rewrite',
      `The input of ${tool.name} was changed into one that cannot run beside other calls, and this call was scheduled beside others; call it again on its own.`,
    );
    return failed(id, f, { tool, input, decision, notes });
  }

  const started = performance.now();
  const called = await callWithDeadline(tool, input, ctx, canUseTool, {
    toolUseId: id,
    decision,
    sandbox: decision.sandbox,
    signal,
    graceMs: ctx.options.deadlineGraceMs,
    parentMessage: options.parentMessage,
    onProgress: options.onProgress,
  });
  if (!called.ok) return failed(id, called.failure, { tool, input, decision, notes });

  let result: ToolResultBlock;
  try {
    result = { ...tool.mapToolResultToToolResultBlockParam(called.output.data, id), tool_use_id: id };
  } catch (err) {
    return failed(
      id,
      failure(
        'internal',
        `${tool.name} ran, but its result could not be turned into a tool_result: ${describeError(err)}`,
      ),
      {
        tool,
        input,
        decision,
        notes,
      },
    );
  }
  result = await boundResult(result, tool.maxResultSizeChars, ctx.options.resultDir);
  const texts = hook.additionalContext.map((c) => `PreToolUse hook context: ${c}`);
  let stop: string | undefined;
  if (hooks?.PostToolUse && hooks.PostToolUse.length > 0) {
    const post = await runPostToolUseHooks(
      hooks,
      {
        ...hookCommon(ctx),
        hook_event_name: 'PostToolUse',
        tool_name: tool.name,
        tool_input: observable,
        tool_response: called.output.data,
        tool_use_id: id,
        duration_ms: Math.round(performance.now() - started),
      },
      signal,
    );
    texts.push(...post.feedback);
    notes.push(...post.notes);
    stop = post.stop;
  }
  result = { ...result, content: appendText(result.content, texts) };
  const outcome: ToolUseOutcome = {
    toolUseId: id,
    result,
    tool,
    input,
    decision,
    output: called.output.data,
    notes,
  };
  if (called.output.contextModifier) outcome.contextModifier = called.output.contextModifier;
  if (stop !== undefined) outcome.stop = stop;
  return outcome;
}

function denialMessage(tool: string, d: Decision): string {
  const rule = d.rule
    ? ` [rule ${d.rule.text} in ${d.rule.source}${d.rule.line === undefined ? '' : `:${d.rule.line}`}]`
    : '';
  return `Permission to use ${tool} was denied: ${d.reason}${rule}. Do not retry the same call; choose another way or ask the user.`;
}

function aborted(when: string): ToolFailure {
  return failure('aborted', `The call was not run: the run was aborted ${when} (interrupted).`);
}

function failed(
  toolUseId: string,
  f: ToolFailure,
  extra: Partial<ToolUseOutcome> & { notes: string[] },
): ToolUseOutcome {
  return { ...extra, toolUseId, result: failureResult(toolUseId, f), failure: f };
}
