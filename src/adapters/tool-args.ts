import path from 'node:path';

/**
 * Helpers the agent adapters share when they read another agent's tool arguments as a Claude
 * Code tool's input. Only the shape is touched here; the tool's own schema check (on decide)
 * refuses what is still wrong, so a misnamed or missing argument denies, never slips through.
 */

/** A relative path made absolute against the hook's cwd; anything else is left for the tool's shape check. */
export function absolute(p: unknown, cwd: string): unknown {
  return typeof p === 'string' && p !== '' ? path.resolve(cwd, p) : p;
}

/** `{path}` for a search tool's directory argument, when the agent gave one. */
export function searchPath(dir: unknown, cwd: string): { path?: unknown } {
  return dir === undefined ? {} : { path: absolute(dir, cwd) };
}

/** The directory a shell call runs in, when the agent names one apart from its cwd. */
export function workdir(dir: unknown, cwd: string): { cwd?: string } {
  return typeof dir === 'string' && dir !== '' ? { cwd: path.resolve(cwd, dir) } : {};
}

export type Args = Readonly<Record<string, unknown>>;

export function isArgs(value: unknown): value is Args {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
