import os from 'node:os';
import { compileAbsolutePathGlob, type PathPattern } from '../policy/match/path.js';
import type { SandboxProfile } from '../policy/obligations.js';
import { describeThrown, type SandboxError, sandboxError } from './error.js';
import { protectedEntryOf } from './protected.js';
import { isInside, literalPathOf, realPathOf } from './real-path.js';

/**
 * The one place that decides whether a path may be read or written. File tools ask it before
 * they touch a file; the Bash tool asks it for redirect targets and write operands.
 *
 * A path is judged twice over: as written (`~` expanded, made absolute against the cwd) and
 * where it really lands (every existing symlink resolved). Containment is decided on where it
 * lands; a deny glob or a protected name refuses the path when *either* form matches, so neither
 * a symlink into a denied directory nor a denied name that points elsewhere gets through.
 */
export type PathAccess = 'read' | 'write';

export type PathDenial = 'invalid' | 'unresolvable' | 'outside-roots' | 'denied' | 'protected' | 'hardlink';

export type PathVerdict =
  | {
      ok: true;
      /** Where the path really lands (symlinks resolved). Use this path for the operation. */
      path: string;
      /** The path as written, made absolute. */
      literal: string;
      exists: boolean;
    }
  | {
      ok: false;
      path: string;
      denial: PathDenial;
      /** A sentence the model can act on. */
      reason: string;
    };

export type PathLimits = Pick<SandboxProfile, 'writableRoots' | 'readableRoots' | 'readDeny' | 'writeDeny'>;

export interface PathGuardOptions {
  /** The directory relative paths are resolved against (absolute). */
  cwd: string;
  profile: PathLimits;
  /** The home directory `~` expands to; defaults to the current user's. */
  home?: string;
  /**
   * Absolute globs of protected paths that a rule explicitly allows writing (for example an
   * `Edit(.git/hooks/**)` allow rule). Nothing else lifts the protection.
   */
  allowProtected?: readonly string[];
}

export interface PathGuard {
  check(path: string, access: PathAccess): PathVerdict;
  /** Checks the write targets of a Bash line (redirects and write operands, as written). */
  checkWrites(targets: readonly string[]): WriteTargetsVerdict;
}

export type WriteTargetsVerdict =
  | { ok: true; verdicts: Extract<PathVerdict, { ok: true }>[] }
  | { ok: false; denied: Extract<PathVerdict, { ok: false }>[]; reason: string };

/** Writes that go nowhere or back to the caller; Claude Code exempts `/dev/null` the same way. */
const HARMLESS_WRITE_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

/** Characters that mean a Bash word is expanded at run time, so its target cannot be known now. */
const SHELL_EXPANSION = /[$`*?[\]]|\{.*\}/;

export function createPathGuard(options: PathGuardOptions): { ok: true; guard: PathGuard } | SandboxError {
  const home = options.home ?? os.homedir();
  let readDeny: PathPattern[];
  let writeDeny: PathPattern[];
  let allowProtected: PathPattern[];
  try {
    readDeny = options.profile.readDeny.map(compileAbsolutePathGlob);
    writeDeny = options.profile.writeDeny.map(compileAbsolutePathGlob);
    allowProtected = (options.allowProtected ?? []).map(compileAbsolutePathGlob);
  } catch (err) {
    return sandboxError(
      'invalid-profile',
      `a deny glob in the sandbox profile is invalid: ${describeThrown(err)}`,
    );
  }
  const writableRoots: string[] = [];
  const readableRoots: string[] = [];
  for (const [list, roots] of [
    [writableRoots, options.profile.writableRoots],
    [readableRoots, options.profile.readableRoots],
  ] as const) {
    for (const root of roots) {
      const real = realPathOf(root);
      if (!real.ok)
        return sandboxError('invalid-root', `the root "${root}" cannot be resolved: ${real.reason}`, root);
      list.push(real.real);
    }
  }

  const check = (input: string, access: PathAccess): PathVerdict => {
    const lit = literalPathOf(input, options.cwd, home);
    if (!lit.ok) return deny(input, 'invalid', `Cannot use the path "${input}": ${lit.reason}.`);
    const literal = lit.literal;
    if (access === 'write' && HARMLESS_WRITE_TARGETS.has(literal)) {
      return { ok: true, path: literal, literal, exists: true };
    }
    const resolved = realPathOf(lit.absolute);
    if (!resolved.ok) return deny(literal, 'unresolvable', `Cannot resolve "${input}": ${resolved.reason}.`);
    const real = resolved.real;
    const shown = real === literal ? `"${literal}"` : `"${literal}" (which resolves to "${real}")`;

    const denyList = access === 'read' ? readDeny : writeDeny;
    const hit = denyList.find((p) => p.matches(literal) || p.matches(real));
    if (hit) {
      return deny(
        real,
        'denied',
        `${verb(access)} ${shown} is denied by the policy (it matches ${hit.glob}).`,
      );
    }

    if (access === 'read') {
      if (readableRoots.length > 0 && !inAny(real, readableRoots) && !inAny(real, writableRoots)) {
        return deny(
          real,
          'outside-roots',
          `Reading ${shown} is not allowed: it is outside the readable directories (${[...readableRoots, ...writableRoots].join(', ')}).`,
        );
      }
      return { ok: true, path: real, literal, exists: resolved.stat !== undefined };
    }

    if (!inAny(real, writableRoots)) {
      const where =
        writableRoots.length === 0
          ? 'no directory is writable for this call'
          : `write inside ${writableRoots.join(', ')}`;
      return deny(
        real,
        'outside-roots',
        `Writing ${shown} is not allowed: it is outside the workspace; ${where}.`,
      );
    }
    const entry = protectedEntryOf(real, writableRoots) ?? protectedEntryOf(literal, writableRoots);
    if (entry !== undefined && !allowProtected.some((p) => p.matches(real))) {
      return deny(
        real,
        'protected',
        `Writing ${shown} is not allowed: "${entry}" is a protected path (its contents run code later); only an explicit allow rule for it permits this.`,
      );
    }
    const stat = resolved.stat;
    if (stat?.isFile() && stat.nlink > 1) {
      return deny(
        real,
        'hardlink',
        `Writing ${shown} is not allowed: the file has ${stat.nlink} hard links, so it may be the same file as one outside the workspace. Write a new file instead.`,
      );
    }
    return { ok: true, path: real, literal, exists: stat !== undefined };
  };

  const checkWrites = (targets: readonly string[]): WriteTargetsVerdict => {
    const verdicts: PathVerdict[] = targets.map((target) =>
      SHELL_EXPANSION.test(target)
        ? deny(
            target,
            'unresolvable',
            `Cannot check the write target "${target}": it uses shell expansion, so where it writes is only known when it runs. Write to a literal path.`,
          )
        : check(target, 'write'),
    );
    const denied = verdicts.filter((v): v is Extract<PathVerdict, { ok: false }> => !v.ok);
    if (denied.length > 0) return { ok: false, denied, reason: denied.map((d) => d.reason).join(' ') };
    return { ok: true, verdicts: verdicts as Extract<PathVerdict, { ok: true }>[] };
  };

  return { ok: true, guard: { check, checkWrites } };
}

/** One-shot form of `createPathGuard(...).guard.checkWrites(targets)`. */
export function checkWriteTargets(
  targets: readonly string[],
  options: PathGuardOptions,
): WriteTargetsVerdict | SandboxError {
  const made = createPathGuard(options);
  return made.ok ? made.guard.checkWrites(targets) : made;
}

function deny(path: string, denial: PathDenial, reason: string): Extract<PathVerdict, { ok: false }> {
  return { ok: false, path, denial, reason };
}

function verb(access: PathAccess): string {
  return access === 'read' ? 'Reading' : 'Writing';
}

function inAny(candidate: string, roots: readonly string[]): boolean {
  return roots.some((root) => isInside(candidate, root));
}
