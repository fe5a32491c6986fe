import path from 'node:path';
import { Minimatch } from 'minimatch';

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
  matches(absolutePath: string): boolean;
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
  return {
    source: pattern,
    glob,
    matches(absolutePath: string): boolean {
      // A directory match covers its contents: test the path and each of its ancestors.
      let current = path.posix.normalize(absolutePath);
      for (;;) {
        if (mm.match(current)) return true;
        const parent = path.posix.dirname(current);
        if (parent === current) return false;
        current = parent;
      }
    },
  };
}

/**
 * Compiles a glob that is already absolute (as the sandbox profile carries them) with the same
 * semantics as policy patterns: a match on a directory covers its contents.
 */
export function compileAbsolutePathGlob(glob: string): PathPattern {
  if (!glob.startsWith('/')) throw new PathPatternError(`expected an absolute glob, got "${glob}"`);
  return compilePathPattern(`/${glob}`, 'deny', { cwd: '/', home: '/', policyRoot: '/' });
}
