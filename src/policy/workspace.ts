import path from 'node:path';
import type { CompiledPolicy } from './compile.js';
import type { FileSystemView } from './fs-view.js';

/**
 * The directories a request may work in without asking: the policy's workspace roots (or the
 * request's cwd), plus additional directories. Roots are known both as written and through
 * their symlinks; a path counts as inside only when both its literal form and its resolved
 * form are inside (an allow needs link and target to match).
 */
export interface Workspace {
  /** The first root: what `./x` and `x` in path rules are relative to. */
  readonly root: string;
  readonly roots: readonly string[];
  contains(absolutePath: string): boolean;
}

export function workspaceFor(cwd: string, policy: CompiledPolicy, fs: FileSystemView): Workspace {
  const declared = policy.roots?.map((r) => resolveDir(r.path, cwd, fs.home)) ?? [cwd];
  const additional = policy.additionalDirectories.map((d) => resolveDir(d.path, cwd, fs.home));
  const literal = [...declared, ...additional].map((p) => path.resolve(p));
  const real = literal.map((p) => (fs.realpathAnchor ? fs.realpathAnchor(p) : fs.realpath(p)));
  const all = [...new Set([...literal, ...real])];
  return {
    root: declared[0] ?? cwd,
    roots: literal,
    contains(absolutePath) {
      const p = path.resolve(absolutePath);
      if (!all.some((r) => isInside(p, r))) return false;
      // A root itself (most often the cwd a command runs in) was resolved already.
      const root = literal.indexOf(p);
      const target = root >= 0 ? real[root]! : fs.realpath(p);
      return all.some((r) => isInside(target, r));
    },
  };
}

export function isInside(candidate: string, root: string): boolean {
  if (root === '/') return candidate.startsWith('/');
  return candidate === root || candidate.startsWith(`${root}/`);
}

function resolveDir(dir: string, cwd: string, home: string): string {
  if (dir === '~') return home;
  if (dir.startsWith('~/')) return path.join(home, dir.slice(2));
  return path.resolve(cwd, dir);
}

/** A path as a tool or a command names it -> absolute (relative to cwd, `~` to home). */
export function absolutePath(p: string, cwd: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return path.resolve(cwd, p);
}
