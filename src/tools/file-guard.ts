import os from 'node:os';
import type { ToolUseContext } from '../pipeline/context.js';
import type { ToolCallContext } from '../pipeline/tool.js';
import { absolutePath } from '../policy/workspace.js';
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

/** Backfill for hooks and the policy: a path field made absolute (`~` and relative expanded). */
export function absoluteField(input: Record<string, unknown>, field: string, ctx: ToolUseContext): void {
  const value = input[field];
  if (typeof value === 'string' && value !== '') {
    input[field] = absolutePath(value, ctx.permission.cwd, ctx.permission.fs?.home ?? os.homedir());
  }
}
