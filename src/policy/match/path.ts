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

/**
 * Compiling a glob (minimatch) costs far more than testing a path, and a hook process tests one
 * path against every rule once: a pattern is compiled only when a path that could match comes
 * to it, one inside its literal directory (`~/.ssh/**`) that holds its required text (`.pem`).
 */
export function compilePathPattern(pattern: string, kind: PathRuleKind, anchors: PathAnchors): PathPattern {
  const glob = anchorPathPattern(pattern, kind, anchors);
  const directory = literalDirectory(glob);
  const required = requiredText(glob);
  const outside = (p: string) =>
    (required !== '' && !p.includes(required)) ||
    (directory !== '' &&
      !(p.startsWith(directory) && (p.length === directory.length || p[directory.length] === '/')));
  let compiled: Omit<PathPattern, 'source' | 'glob'> | undefined;
  return {
    source: pattern,
    glob,
    matches(absolutePath: string): boolean {
      const normalized = normalizedOf(absolutePath);
      if (outside(normalized)) return false;
      compiled ??= compileGlob(pattern, glob);
      return compiled.matches(normalized);
    },
    matchesItself(normalizedPath: string): boolean {
      if (outside(normalizedPath)) return false;
      compiled ??= compileGlob(pattern, glob);
      return compiled.matchesItself(normalizedPath);
    },
  };
}

/**
 * The directories an absolute glob starts with, up to its first segment with anything a glob
 * may treat specially (`/home/u/.ssh` for `/home/u/.ssh/**`): every path the glob matches is
 * that directory or inside it. '' when the first segment is already special (`/**` + `/.env`),
 * and whenever minimatch may rewrite the glob (see rewritable).
 */
/** Whether a pattern segment holds anything a glob may read specially (or an escape). */
export function hasGlobSyntax(segment: string): boolean {
  return /[*?[\]{}()!+@\\]/.test(segment);
}

export function literalDirectory(glob: string): string {
  if (rewritable(glob)) return '';
  const segments = glob.split('/');
  let end = 1;
  while (end < segments.length - 1 && !hasGlobSyntax(segments[end]!)) end++;
  return segments.slice(0, end).join('/');
}

/**
 * Text every path the glob matches contains: the longest literal run of its last segment
 * before any class or group (`.pem` for `/**` + `/*.pem`, `.env` for `/**` + `/.env!(*.example)`,
 * `id_rsa` for `/**` + `/id_rsa*`). The last segment matches the last segment of the path or of
 * one of its directories, so a path without the text cannot match. The scan stops at the
 * first `[`, `]`, `(` or `)`: minimatch reads a `]` right after `[` or `[!` as a member, and a
 * `)` inside a class as a character, which a bracket count gets wrong. '' when there is no such
 * text, when the segment has an escape, and whenever minimatch may rewrite the glob.
 */
export function requiredText(glob: string): string {
  if (rewritable(glob)) return '';
  const last = glob.slice(glob.lastIndexOf('/') + 1);
  if (last.includes('\\')) return '';
  let best = '';
  let run = '';
  for (const c of last) {
    if (c === '[' || c === ']' || c === '(' || c === ')') break;
    if (c === '*' || c === '?' || c === '!' || c === '+' || c === '@') run = '';
    else {
      run += c;
      if (run.length > best.length) best = run;
    }
  }
  return best;
}

/**
 * Whether minimatch may turn the glob into something else before matching: it expands braces
 * (which can make `..`, as `{..,x}` or `{.,x}{.,y}` do) and then folds `a/..`, `.` and doubled
 * slashes. The filters above hold only for a glob that means what it says.
 */
function rewritable(glob: string): boolean {
  if (glob.includes('{') || glob.includes('}')) return true;
  return glob.split('/').some((s, i) => (s === '' && i > 0) || s === '.' || s === '..');
}

function compileGlob(pattern: string, glob: string): Omit<PathPattern, 'source' | 'glob'> {
  const mm = new Minimatch(glob, MM_OPTIONS);
  if (mm.set.length === 0) throw new PathPatternError(`path pattern "${pattern}" matches nothing`);
  const prefixes = literalPrefixes(mm);
  const inside = (p: string) =>
    prefixes === undefined || prefixes.some((pre) => p === pre || p.startsWith(`${pre}/`));
  const anyDepth = anyDepthParts(mm);
  return {
    matches(normalized: string): boolean {
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
type AnyDepth = readonly { readonly prefix: string; readonly tail: readonly SegmentTest[] }[];

/**
 * The common shape: a directory, then `**`, then a few segments with no `**` among them
 * (`**` + `/.env`, `**` + `/*.pem`, `~/x/**` + `/id_rsa*`, `**` + `/.git/hooks`). The path or one of
 * its ancestors matches exactly when, somewhere below the directory, consecutive segments
 * match the tail: one test per segment instead of one minimatch match per ancestor. Decisions
 * test every path against every such rule (and the protected paths), and a recursive read
 * (`grep -r`) thousands of paths. Undefined for any other shape (the general walk applies).
 */
function anyDepthParts(mm: Minimatch): AnyDepth | undefined {
  const alternatives: { prefix: string; tail: SegmentTest[] }[] = [];
  for (const parts of mm.set as unknown[][]) {
    const star = parts.indexOf(GLOBSTAR);
    if (parts[0] !== '' || star < 1 || star === parts.length - 1) return undefined;
    const literal = parts.slice(1, star);
    if (!literal.every((p): p is string => typeof p === 'string' && p !== '')) return undefined;
    const tail: SegmentTest[] = [];
    for (const part of parts.slice(star + 1)) {
      if (typeof part === 'string') {
        if (part === '') return undefined;
        tail.push((s) => s === part);
      } else if (part !== GLOBSTAR && typeof (part as { test?: unknown }).test === 'function') {
        const matcher = part as { test(s: string): boolean };
        tail.push((s) => matcher.test(s));
      } else return undefined;
    }
    alternatives.push({ prefix: `/${literal.join('/')}`, tail });
  }
  return alternatives;
}

/**
 * A decision tests one path against every rule in a row: the last path's normalized form and
 * segments are kept, so each rule does not normalize and split it again.
 */
let lastPath = '';
let lastNormalized = '/';
let lastSegments: { path: string; segments: string[]; starts: number[] } | undefined;

function normalizedOf(absolutePath: string): string {
  if (absolutePath !== lastPath) {
    lastPath = absolutePath;
    lastNormalized = path.posix.normalize(absolutePath);
  }
  return lastNormalized;
}

/** The segments of a normalized path, each with the offset it starts at. */
function segmentsOf(p: string): { segments: string[]; starts: number[] } {
  if (lastSegments?.path === p) return lastSegments;
  const segments: string[] = [];
  const starts: number[] = [];
  let at = 1;
  while (at <= p.length) {
    let end = p.indexOf('/', at);
    if (end < 0) end = p.length;
    if (end > at) {
      segments.push(p.slice(at, end));
      starts.push(at);
    }
    at = end + 1;
  }
  lastSegments = { path: p, segments, starts };
  return lastSegments;
}

/** Consecutive segments below the prefix match the tail (anywhere; or, for `itself`, at the end). */
function anyDepthMatch(alternatives: AnyDepth, normalized: string, itself: boolean): boolean {
  const { segments, starts } = segmentsOf(normalized);
  for (const { prefix, tail } of alternatives) {
    let first = 0;
    if (prefix !== '/') {
      if (!normalized.startsWith(prefix) || normalized.charCodeAt(prefix.length) !== 47 /* / */) continue;
      // The first segment that starts after the prefix and its slash.
      while (first < starts.length && starts[first]! <= prefix.length) first++;
    }
    const last = segments.length - tail.length;
    for (let j = itself ? last : first; j >= first && j <= last; j++) {
      let k = 0;
      while (k < tail.length && tail[k]!(segments[j + k]!)) k++;
      if (k === tail.length) return true;
    }
  }
  return false;
}

/**
 * Compiles a glob that is already absolute (as the sandbox profile carries them) with the same
 * semantics as policy patterns: a match on a directory covers its contents.
 */
export function compileAbsolutePathGlob(glob: string): PathPattern {
  let compiled = absoluteGlobs.get(glob);
  if (compiled === undefined) {
    if (!glob.startsWith('/')) throw new PathPatternError(`expected an absolute glob, got "${glob}"`);
    compiled = compilePathPattern(`/${glob}`, 'deny', { cwd: '/', home: '/', policyRoot: '/' });
    if (absoluteGlobs.size >= MAX_CACHED_GLOBS) absoluteGlobs.clear();
    absoluteGlobs.set(glob, compiled);
  }
  return compiled;
}

/**
 * Compiled absolute globs by text: a pure function of the text (no anchors, no file system),
 * asked for the same profile globs on every sandboxed call (profile check, jail plan, path
 * guard). Bounded, so that a stream of distinct globs cannot grow it without end.
 */
const absoluteGlobs = new Map<string, PathPattern>();
const MAX_CACHED_GLOBS = 4096;
