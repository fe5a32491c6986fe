import path from 'node:path';
import { GLOBSTAR, Minimatch } from 'minimatch';

/**
 * The one path matcher: Claude Code's Read/Edit path patterns (gitignore semantics, four
 * anchors), compiled once into a test on absolute, normalized paths.
 *
 * Anchors:   `//x` absolute  ·  `~/x` home  ·  `/x` the policy root  ·  `./x` and `x` the workspace.
 * Depth:     a pattern with no slash (`.env`, `*.pem`) matches at any depth. A relative pattern
 *            with a slash (`src/**`) is anchored to the workspace for allow rules; for deny and
 *            ask rules it matches at any depth, as Claude Code does (a deny should not be escaped
 *            by moving one level down). `./src/**` is anchored for every kind.
 *            Where Claude Code counts "any depth" from the working directory, toolgate's deny and
 *            ask rules count it from the file system root: a secret named `.env` in another
 *            project is still a secret (an allow stays inside the workspace).
 * Contents:  a pattern that matches a directory also matches everything inside it.
 */
export type PathRuleKind = 'allow' | 'ask' | 'deny';

export interface PathAnchors {
  /** The workspace root (absolute). */
  cwd: string;
  /** The user's home directory (absolute). */
  home: string;
  /** What `/x` is relative to: the directory that owns the policy file (absolute). */
  policyRoot: string;
}

export interface PathPattern {
  /** The pattern as written. */
  source: string;
  /** The absolute glob it became. */
  glob: string;
  /** The path, or a directory it is in, matches. */
  matches(absolutePath: string): boolean;
  /**
   * The path itself matches, its directories aside: for walking a tree top down, where each
   * directory has been tested as an entry of its own. `normalizedPath` must be normalized.
   */
  matchesItself(normalizedPath: string): boolean;
}

export class PathPatternError extends Error {
  override name = 'PathPatternError';
}

const MM_OPTIONS = {
  dot: true,
  nocomment: true,
  nonegate: true,
  noext: false,
  windowsPathsNoEscape: false,
} as const;

/** Turns a pattern into an absolute glob, applying the anchors and depth rules above. */
export function anchorPathPattern(pattern: string, kind: PathRuleKind, anchors: PathAnchors): string {
  const p = pattern.trim();
  if (p === '') throw new PathPatternError('empty path pattern');
  if (p.includes('\0')) throw new PathPatternError('path pattern contains a NUL byte');
  let glob: string;
  if (p.startsWith('//')) glob = '/' + p.slice(2).replace(/^\/+/, '');
  else if (p === '~') glob = anchors.home;
  else if (p.startsWith('~/')) glob = joinGlob(anchors.home, p.slice(2));
  else if (p.startsWith('/')) glob = joinGlob(anchors.policyRoot, p.slice(1));
  else if (p.startsWith('./')) glob = joinGlob(anchors.cwd, p.slice(2));
  else if (p === '.') glob = anchors.cwd;
  else {
    const body = p.replace(/\/+$/, '');
    const hasInnerSlash = body.includes('/');
    const anyDepth = !hasInnerSlash || kind !== 'allow';
    const base = kind === 'allow' ? anchors.cwd : '/';
    glob = anyDepth ? joinGlob(base, `**/${body.replace(/^(\*\*\/)+/, '')}`) : joinGlob(anchors.cwd, body);
  }
  return glob.length > 1 ? glob.replace(/\/+$/, '') : glob;
}

function joinGlob(base: string, rest: string): string {
  if (rest === '') return base;
  return base.endsWith('/') ? base + rest : `${base}/${rest}`;
}

export function compilePathPattern(pattern: string, kind: PathRuleKind, anchors: PathAnchors): PathPattern {
  const glob = anchorPathPattern(pattern, kind, anchors);
  const mm = new Minimatch(glob, MM_OPTIONS);
  if (mm.set.length === 0) throw new PathPatternError(`path pattern "${pattern}" matches nothing`);
  const prefixes = literalPrefixes(mm);
  const inside = (p: string) =>
    prefixes === undefined || prefixes.some((pre) => p === pre || p.startsWith(`${pre}/`));
  const anyDepth = anyDepthParts(mm);
  return {
    source: pattern,
    glob,
    matches(absolutePath: string): boolean {
      const normalized = path.posix.normalize(absolutePath);
      if (!inside(normalized)) return false;
      if (anyDepth) return anyDepthMatch(anyDepth, normalized, false);
      // A directory match covers its contents: test the path and each of its ancestors.
      let current = normalized;
      for (;;) {
        if (mm.match(current)) return true;
        const parent = path.posix.dirname(current);
        if (parent === current) return false;
        current = parent;
      }
    },
    matchesItself(normalizedPath: string): boolean {
      if (!inside(normalizedPath)) return false;
      return anyDepth ? anyDepthMatch(anyDepth, normalizedPath, true) : mm.match(normalizedPath);
    },
  };
}

/**
 * The literal directories each alternative of a glob starts with (`/home/u/.ssh` for
 * `~/.ssh/**`): a path that is neither one of them nor inside one cannot match, and neither
 * can its directories. Undefined when some alternative starts with a pattern right at `/`.
 */
function literalPrefixes(mm: Minimatch): string[] | undefined {
  const out: string[] = [];
  for (const parts of mm.set as unknown[][]) {
    if (parts[0] !== '') return undefined;
    let n = 1;
    while (n < parts.length && typeof parts[n] === 'string' && parts[n] !== '') n++;
    if (n === 1) return undefined;
    out.push(`/${(parts.slice(1, n) as string[]).join('/')}`);
  }
  return out;
}

type SegmentTest = (segment: string) => boolean;
type AnyDepth = readonly { readonly prefix: string; readonly test: SegmentTest }[];

/**
 * The common deny shape: a directory, then `**`, then one NAME segment (`**` + `/.env`,
 * `**` + `/*.pem`, `~/x/**` + `/id_rsa*`). The path or one of its ancestors matches exactly when a
 * segment below the directory matches NAME: one test per segment instead of one minimatch
 * match per ancestor. A recursive read (`grep -r`) checks thousands of paths against every such
 * rule. Undefined for any other shape (the general walk applies).
 */
function anyDepthParts(mm: Minimatch): AnyDepth | undefined {
  const alternatives: { prefix: string; test: SegmentTest }[] = [];
  for (const parts of mm.set as unknown[][]) {
    const n = parts.length;
    if (n < 3 || parts[0] !== '' || parts[n - 2] !== GLOBSTAR) return undefined;
    const literal = parts.slice(1, n - 2);
    if (!literal.every((p): p is string => typeof p === 'string' && p !== '')) return undefined;
    const last = parts[n - 1];
    let test: SegmentTest;
    if (typeof last === 'string') test = (s) => s === last;
    else if (typeof (last as { test?: unknown }).test === 'function') {
      const matcher = last as { test(s: string): boolean };
      test = (s) => matcher.test(s);
    } else return undefined;
    alternatives.push({ prefix: `/${literal.join('/')}`, test });
  }
  return alternatives;
}

/** A segment below the prefix matches (any of them; or, for `itself`, the last one). */
function anyDepthMatch(alternatives: AnyDepth, normalized: string, itself: boolean): boolean {
  const p = normalized.length > 1 ? normalized.replace(/\/+$/, '') : normalized;
  for (const { prefix, test } of alternatives) {
    const start = prefix === '/' ? 1 : prefix.length + 1;
    if (prefix !== '/' && !p.startsWith(`${prefix}/`)) continue;
    if (p.length < start) continue;
    if (itself) {
      if (test(p.slice(Math.max(start, p.lastIndexOf('/') + 1)))) return true;
      continue;
    }
    for (const segment of p.slice(start).split('/')) if (test(segment)) return true;
  }
  return false;
}

/**
 * Compiles a glob that is already absolute (as the sandbox profile carries them) with the same
 * semantics as policy patterns: a match on a directory covers its contents.
 */
export function compileAbsolutePathGlob(glob: string): PathPattern {
  if (!glob.startsWith('/')) throw new PathPatternError(`expected an absolute glob, got "${glob}"`);
  return compilePathPattern(`/${glob}`, 'deny', { cwd: '/', home: '/', policyRoot: '/' });
}
