import { lstatSync } from 'node:fs';
import { type FileSystemView, joinName, nodeFileSystem } from '../policy/fs-view.js';
import { isPlain } from '../policy/plain-path.js';

export { isPlain } from '../policy/plain-path.js';

/**
 * A file-system view that learns each answer once and remembers it: one replay sees one
 * consistent file system (a symlink changed halfway through cannot make records disagree),
 * and a log of many distinct paths costs one lstat per path, its directory being resolved
 * once for all its entries (the realpath calls were most of a non-Bash decision's cost).
 *
 * realpath() gives the answer of `base.realpath()` (the longest existing prefix resolved, the
 * rest appended): a path whose parent resolves to R is R/name unless it is a symlink, which
 * `base` resolves; a path under a missing directory is missing too. Paths that are not plain
 * absolute normalized paths go to `base` as they are. Bounded: the memory is dropped when it
 * grows past `limit` entries (then answers are learned again, so a file system that changes
 * during a long replay can be seen twice). 10k, not 100k: a log of distinct paths keeps the
 * memory full, and V8 sizes its heap from what survives, so replaying 1M records peaked at
 * 123 MB of RSS with 100k entries and 100 MB with 10k (in one process, same log).
 */
export function snapshotFileSystem(base: FileSystemView = nodeFileSystem(), limit = 10_000): FileSystemView {
  /** path -> its realpath, and whether it exists. */
  const known = new Map<string, { real: string; exists: boolean }>();
  const globs = new Map<string, readonly string[] | undefined>();

  const resolve = (p: string): { real: string; exists: boolean } => {
    let r = known.get(p);
    if (r !== undefined) return r;
    const slash = p.lastIndexOf('/');
    if (!isPlain(p)) {
      r = { real: base.realpath(p), exists: true };
    } else {
      const up = resolve(slash === 0 ? '/' : p.slice(0, slash));
      const st = up.exists ? entry(p) : undefined;
      if (st?.isSymbolicLink()) r = { real: base.realpath(p), exists: true };
      else r = { real: joinName(up.real, p, slash), exists: st !== undefined };
    }
    if (known.size >= limit) known.clear();
    known.set(p, r);
    return r;
  };

  const view: FileSystemView = {
    home: base.home,
    realpath: (absolutePath) => resolve(absolutePath).real,
    glob(pattern, cwd) {
      const key = `${cwd}\0${pattern}`;
      if (globs.has(key)) return globs.get(key);
      const r = base.glob(pattern, cwd);
      if (globs.size >= limit) globs.clear();
      globs.set(key, r);
      return r;
    },
  };
  // The trees `grep -r` and friends read are listed as they are now (not remembered: a tree is
  // listed once per decision anyway, and memory for every tree of a long log would be unbounded).
  if (base.walk) view.walk = base.walk.bind(base);
  return view;
}

/** What is at `p` without following a final symlink; undefined when nothing can be seen there. */
function entry(p: string): ReturnType<typeof lstatSync> | undefined {
  try {
    // No exception for a missing path: most paths in a log of new files are missing.
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    // ENOENT, ENOTDIR (a file on the way), EACCES: realpath would not get past it either.
    return undefined;
  }
}
