/**
 * How many concurrency-safe calls may run at once. TOOLGATE_MAX_TOOL_USE_CONCURRENCY first,
 * then Claude Code's CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY, so an agent configured for one
 * behaves the same under the other. A value that is unset, not a positive integer, or 0 means
 * the default, 10.
 */
export const DEFAULT_MAX_TOOL_USE_CONCURRENCY = 10;

export function maxToolUseConcurrency(env: NodeJS.ProcessEnv = process.env, override?: number): number {
  if (override !== undefined && Number.isInteger(override) && override > 0) return override;
  for (const name of ['TOOLGATE_MAX_TOOL_USE_CONCURRENCY', 'CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY']) {
    const parsed = positiveInteger(env[name]);
    if (parsed !== undefined) return parsed;
  }
  return DEFAULT_MAX_TOOL_USE_CONCURRENCY;
}

function positiveInteger(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const n = Number(trimmed);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}
