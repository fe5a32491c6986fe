import type { ToolResultBlock } from '../pipeline/blocks.js';

/**
 * A built-in tool's "no" as a value: the file is missing, the path is outside the workspace,
 * the string to replace is not there. It becomes an is_error tool_result whose message tells
 * the model what to do instead; the pipeline does not see a throw.
 */
export type RefusalKind =
  | 'path-denied'
  | 'not-found'
  | 'not-a-file'
  | 'too-large'
  | 'binary'
  | 'no-match'
  | 'ambiguous'
  | 'no-change'
  | 'invalid'
  | 'sandbox'
  | 'network'
  | 'failed';

export interface Refusal {
  readonly refused: true;
  readonly kind: RefusalKind;
  readonly message: string;
}

export function refuse(kind: RefusalKind, message: string): Refusal {
  return { refused: true, kind, message };
}

export function isRefusal(value: unknown): value is Refusal {
  return value !== null && typeof value === 'object' && (value as Refusal).refused === true;
}

export function refusalBlock(r: Refusal, toolUseId: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content: r.message, is_error: true };
}
