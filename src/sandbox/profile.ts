import { z } from 'zod';
import { compileAbsolutePathGlob } from '../policy/match/path.js';
import type { SandboxProfile } from '../policy/obligations.js';
import { type SandboxError, sandboxError } from './error.js';

/**
 * The profile arrives from the policy already computed; the sandbox does not second-guess its
 * limits, but it does refuse one that is malformed, because a NaN timeout or a relative root
 * would silently mean "no limit" further down.
 */
const absolutePath = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/') && !p.includes('\0'), 'must be an absolute path');
const absoluteGlob = z
  .string()
  .min(1)
  .refine((p) => p.startsWith('/') && !p.includes('\0'), 'must be an absolute glob');

const profileSchema = z.object({
  // setTimeout cannot wait longer than 2^31-1 ms; a larger value would fire at once.
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1),
  maxOutputChars: z.number().int().nonnegative(),
  maxOutputBytes: z.number().int().positive(),
  writableRoots: z.array(absolutePath),
  readableRoots: z.array(absolutePath),
  readDeny: z.array(absoluteGlob),
  writeDeny: z.array(absoluteGlob),
  network: z.boolean(),
  envAllow: z.array(
    z.string().regex(/^(\*|[A-Za-z_][A-Za-z0-9_]*\*?)$/, 'must be a variable name, optionally ending in *'),
  ),
  os: z.enum(['auto', 'required', 'off']),
  kind: z.enum(['read-only', 'workspace']).optional(),
  workspaceRoots: z.array(absolutePath).optional(),
  ownFiles: z.array(z.object({ path: absolutePath, what: z.string() })).optional(),
});

export function checkProfile(profile: SandboxProfile): SandboxError | undefined {
  const parsed = profileSchema.safeParse(profile);
  if (parsed.success) {
    // A read-only jail that writes or connects is a contradiction, not a choice: refuse it.
    if (profile.kind === 'read-only' && (profile.writableRoots.length > 0 || profile.network)) {
      return sandboxError(
        'invalid-profile',
        'The sandbox profile is read-only but names writable directories or the network.',
      );
    }
    for (const glob of [...profile.readDeny, ...profile.writeDeny]) {
      try {
        compileAbsolutePathGlob(glob);
      } catch (err) {
        return sandboxError(
          'invalid-profile',
          `The sandbox profile has an invalid glob "${glob}": ${(err as Error).message}.`,
        );
      }
    }
    return undefined;
  }
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || 'profile'}: ${issue.message}`,
  );
  return sandboxError('invalid-profile', `The sandbox profile is invalid (${problems.join('; ')}).`);
}
