import type { z } from 'zod';
import type { ToolResultBlock } from './blocks.js';
import type { InterruptBehavior, Tool } from './tool.js';

/**
 * buildTool(): a tool definition -> a complete Tool. Defaults are merged once, here, and they
 * fail closed: not read-only, not concurrency-safe, destructive unless read-only, no deferral.
 * A flag function that throws counts as the unsafe answer, so a bug in a tool's flag can only
 * make the pipeline more careful, never less.
 */
type Required_ = 'name' | 'inputSchema' | 'call' | 'prompt' | 'description';

export type ToolDef<Input, Output, Progress> = Pick<Tool<Input, Output, Progress>, Required_> &
  Partial<Omit<Tool<Input, Output, Progress>, Required_>>;

export const DEFAULT_MAX_RESULT_SIZE_CHARS = 100_000;

export function buildTool<S extends z.ZodType, Output, Progress = never>(
  def: ToolDef<z.output<S>, Output, Progress> & { inputSchema: S },
): Tool<z.output<S>, Output, Progress> {
  type Input = z.output<S>;
  const name = def.name;
  const flag =
    <A extends unknown[], R>(fn: ((...args: A) => R) | undefined, fallback: R, onThrow: R) =>
    (...args: A): R => {
      if (fn === undefined) return fallback;
      try {
        return fn(...args);
      } catch {
        return onThrow;
      }
    };
  const isReadOnly = flag(def.isReadOnly, false, false);
  const destructive = def.isDestructive;
  const tool: Tool<Input, Output, Progress> = {
    name,
    aliases: def.aliases ?? [],
    searchHint: def.searchHint ?? '',
    inputSchema: def.inputSchema,
    maxResultSizeChars: def.maxResultSizeChars ?? DEFAULT_MAX_RESULT_SIZE_CHARS,
    shouldDefer: def.shouldDefer ?? false,
    alwaysLoad: def.alwaysLoad ?? false,
    isEnabled: flag(def.isEnabled, true, false),
    isReadOnly,
    isConcurrencySafe: flag(def.isConcurrencySafe, false, false),
    isDestructive: (input: Input) => {
      if (destructive === undefined) return !isReadOnly(input);
      try {
        return destructive(input);
      } catch {
        return true;
      }
    },
    interruptBehavior: flag<[Input], InterruptBehavior>(def.interruptBehavior, 'block', 'block'),
    validateInput: def.validateInput ?? (async () => ({ result: true })),
    checkPermissions: def.checkPermissions ?? (async () => ({ behavior: 'passthrough' })),
    backfillObservableInput: def.backfillObservableInput ?? (() => undefined),
    call: def.call,
    prompt: def.prompt,
    description: def.description,
    userFacingName: def.userFacingName ?? (() => name),
    mapToolResultToToolResultBlockParam: def.mapToolResultToToolResultBlockParam ?? defaultResultBlock,
    toAutoClassifierInput: def.toAutoClassifierInput ?? ((input) => input),
    renderToolUseMessage: def.renderToolUseMessage ?? ((input) => `${name}(${summarize(input)})`),
    renderToolUseProgressMessage:
      def.renderToolUseProgressMessage ??
      ((progress) => (progress.length === 0 ? '' : `… ${summarize(progress[progress.length - 1]!.data)}`)),
    renderToolResultMessage: def.renderToolResultMessage ?? ((output) => textOf(output)),
    renderGroupedToolUse:
      def.renderGroupedToolUse ??
      ((uses, options) => uses.map((u) => tool.renderToolUseMessage(u.input, options)).join('\n')),
    renderToolUseRejectedMessage:
      def.renderToolUseRejectedMessage ??
      ((input, reason) => `${name}(${summarize(input)}) was not run: ${reason}`),
    renderToolUseErrorMessage: def.renderToolUseErrorMessage ?? ((message) => `${name} failed: ${message}`),
  };
  return tool;
}

function defaultResultBlock(output: unknown, toolUseId: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content: textOf(output) };
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** One short line of an input for a terminal. */
export function summarize(value: unknown, max = 80): string {
  let text: string;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    text = Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${typeof v === 'string' ? JSON.stringify(v) : textOf(v)}`)
      .join(', ');
  } else {
    text = textOf(value);
  }
  text = text.replace(/\s+/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
