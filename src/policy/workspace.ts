import path from 'node:path';
import type { CompiledPolicy } from './compile.js';
import { resolveAsOpened } from './dot-dot.js';
import type { FileSystemView } from './fs-view.js';
import { isPlain, resolvePlain } from './plain-path.js';

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
  const home = fs.home;
  let literal: string[];
  let root: string;
  if (policy.roots === undefined && policy.additionalDirectories.length === 0) {
    // The common case, and one decide() pays on every call: the cwd is the workspace.
    root = cwd;
    literal = [isPlain(cwd) ? cwd : path.resolve(cwd)];
  } else {
    const declared = policy.roots?.map((r) => resolveDir(r.path, cwd, home)) ?? [cwd];
    const additional = policy.additionalDirectories.map((d) => resolveDir(d.path, cwd, home));
    root = declared[0] ?? cwd;
    literal = [...declared, ...additional].map((p) => path.resolve(p));
  }
  const real = literal.map((p) => (fs.realpathAnchor ? fs.realpathAnchor(p) : fs.realpath(p)));
  return new Roots(root, literal, real, fs);
}

/** A Workspace (a class: decide() makes one per call). */
class Roots implements Workspace {
  private readonly all: readonly string[];

  constructor(
    readonly root: string,
    readonly roots: readonly string[],
    /** Each of `roots` resolved. */
    private readonly real: readonly string[],
    private readonly fs: FileSystemView,
  ) {
    this.all =
      roots.length === 1
        ? roots[0] === real[0]
          ? roots
          : [roots[0]!, real[0]!]
        : [...new Set([...roots, ...real])];
  }

  contains(absolutePath: string): boolean {
    const p = isPlain(absolutePath) ? absolutePath : path.resolve(absolutePath);
    if (!this.all.some((r) => isInside(p, r))) return false;
    // A root itself (most often the cwd a command runs in) was resolved already.
    const root = this.roots.indexOf(p);
    const target = root >= 0 ? this.real[root]! : this.fs.realpath(p);
    return this.all.some((r) => isInside(target, r));
  }
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
  return resolvePlain(cwd, p);
}

/** absolutePath, with each `..` taken where the kernel takes it (dot-dot.ts). */
export function openedPath(p: string, cwd: string, fs: FileSystemView): string {
  if (p === '~') return fs.home;
  if (p.startsWith('~/')) return resolveAsOpened(fs.home, p.slice(2), fs);
  return resolveAsOpened(cwd, p, fs);
}
