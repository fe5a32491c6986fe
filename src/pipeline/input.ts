import type { z } from 'zod';
import type { ToolUseContext } from './context.js';
import { failure, type ToolFailure } from './failure.js';
import type { AnyTool } from './tool.js';

/**
 * From what the model sent to what the tool runs with: the zod schema (every issue listed, so
 * the model can fix them all in one go), then the tool's own validateInput. The observable
 * input is a separate clone with derived fields, for hooks and the policy; the call input is
 * never changed by it.
 */
export type CheckedInput =
  | { ok: true; input: unknown; observable: Record<string, unknown> }
  | { ok: false; failure: ToolFailure };

export async function checkInput(
  tool: AnyTool,
  raw: unknown,
  ctx: ToolUseContext,
  origin = 'The input',
): Promise<CheckedInput> {
  const parsed = tool.inputSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, failure: failure('invalid-input', describeIssues(tool.name, parsed.error, origin)) };
  }
  let valid: Awaited<ReturnType<AnyTool['validateInput']>>;
  try {
    valid = await tool.validateInput(parsed.data, ctx);
  } catch (err) {
    return {
      ok: false,
      failure: failure(
        'validation',
        `${tool.name} could not check its input: ${(err as Error)?.message ?? String(err)}`,
      ),
    };
  }
  if (!valid.result) return { ok: false, failure: failure('validation', valid.message) };
  const observable = observableInput(tool, parsed.data, ctx);
  if (!observable.ok) return observable;
  return { ok: true, input: parsed.data, observable: observable.value };
}

function observableInput(
  tool: AnyTool,
  input: unknown,
  ctx: ToolUseContext,
): { ok: true; value: Record<string, unknown> } | { ok: false; failure: ToolFailure } {
  let clone: unknown;
  try {
    clone = structuredClone(input);
  } catch (err) {
    return {
      ok: false,
      failure: failure(
        'invalid-input',
        `The input of ${tool.name} cannot be copied: ${(err as Error).message}`,
      ),
    };
  }
  const value: Record<string, unknown> =
    clone !== null && typeof clone === 'object' && !Array.isArray(clone)
      ? (clone as Record<string, unknown>)
      : { value: clone };
  try {
    tool.backfillObservableInput(value, ctx);
  } catch (err) {
    return {
      ok: false,
      failure: failure('internal', `${tool.name} could not prepare its input: ${(err as Error).message}`),
    };
  }
  return { ok: true, value };
}

export function describeIssues(tool: string, error: z.ZodError, origin: string): string {
  const lines = error.issues.map(
    (i) => `- ${i.path.length > 0 ? i.path.join('.') : '(input)'}: ${i.message}`,
  );
  return `${origin} of ${tool} does not match its schema; fix these and call it again:\n${lines.join('\n')}`;
}
