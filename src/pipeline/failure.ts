import type { ToolResultBlock } from './blocks.js';

/**
 * Every way a tool_use can fail to produce a normal result. Each one still produces exactly
 * one `tool_result` (with `is_error: true`) whose text tells the model what to do next.
 */
export type FailureKind =
  /** No tool of that name (and no deprecated alias of one). */
  | 'unknown-tool'
  /** The tool exists but is switched off in this session. */
  | 'disabled'
  /** The run was aborted before or while the call ran. */
  | 'aborted'
  /** The input does not match the tool's zod schema. */
  | 'invalid-input'
  /** The tool's own validateInput refused the input. */
  | 'validation'
  /** A PreToolUse hook blocked the call (exit 2 or a deny decision). */
  | 'hook-blocked'
  /** A PreToolUse hook stopped the whole run (`continue: false`). */
  | 'hook-stopped'
  /** The policy (or the tool's own permission check) denied the call. */
  | 'denied'
  /** The call needed approval and canUseTool refused it (or nobody could be asked). */
  | 'ask-refused'
  /** The tool's call threw. */
  | 'threw'
  /** The call did not finish within its deadline. */
  | 'timeout'
  /** The decision could not be written to the decision log, so the call did not run. */
  | 'log-failed'
  /** A rewritten input is not safe to run beside the calls it was scheduled with. */
  | 'unsafe-rewrite'
  /** Anything else inside the pipeline; the call did not run (or its result was lost). */
  | 'internal';

export interface ToolFailure {
  readonly kind: FailureKind;
  /** A sentence for the model: what happened and what it can do about it. */
  readonly message: string;
}

export function failure(kind: FailureKind, message: string): ToolFailure {
  return { kind, message };
}

export function failureResult(toolUseId: string, f: ToolFailure): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content: f.message, is_error: true };
}

/** One line about a thrown value, for messages that wrap it. */
export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
