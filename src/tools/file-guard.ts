import os from 'node:os';
import type { ToolUseContext } from '../pipeline/context.js';
import type { ToolCallContext } from '../pipeline/tool.js';
import { absolutePath } from '../policy/workspace.js';
import { openCheckedForRead } from '../sandbox/open-read.js';
import { createPathGuard, type PathAccess, type PathGuard, type PathVerdict } from '../sandbox/paths.js';
import { type Refusal, refuse } from './refusal.js';

/**
 * File tools ask the sandbox's path guard, built from the call's own profile, before they
 * touch anything: the policy allowed the call, the guard enforces where it may land.
 */
export function guardOf(ctx: ToolCallContext): PathGuard | Refusal {
  const made = createPathGuard({ cwd: ctx.cwd, profile: ctx.sandbox });
  return made.ok ? made.guard : refuse('sandbox', made.message);
}

export function checkPath(
  ctx: ToolCallContext,
  file: string,
  access: PathAccess,
): Extract<PathVerdict, { ok: true }> | Refusal {
  const guard = guardOf(ctx);
  if ('refused' in guard) return guard;
  const verdict = guard.check(file, access);
  return verdict.ok ? verdict : refuse('path-denied', verdict.reason);
}

/**
 * Opens a file the guard approved for reading, refusing if a directory on its path was swapped
 * for a symlink since the check, or (where the profile denies any reads) if it has other hard
 * links. The caller owns and closes `fd`.
 */
export function openApprovedForRead(
  ctx: ToolCallContext,
  verdict: Extract<PathVerdict, { ok: true }>,
): { fd: number; stat: import('node:fs').Stats } | Refusal {
  const opened = openCheckedForRead(verdict, { refuseHardLinks: ctx.sandbox.readDeny.length > 0 });
  return opened.ok ? { fd: opened.fd, stat: opened.stat } : refuse('path-denied', opened.reason);
}

/** Backfill for hooks and the policy: a path field made absolute (`~` and relative expanded). */
export function absoluteField(input: Record<string, unknown>, field: string, ctx: ToolUseContext): void {
  const value = input[field];
  if (typeof value === 'string' && value !== '') {
    input[field] = absolutePath(value, ctx.permission.cwd, ctx.permission.fs?.home ?? os.homedir());
  }
}
