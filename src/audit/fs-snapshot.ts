import { type FileSystemView, nodeFileSystem } from '../policy/fs-view.js';

/**
 * A file-system view that asks the real one once per path and remembers the answer: one
 * replay sees one consistent file system (a symlink changed halfway through cannot make
 * records disagree), and it saves the realpath calls that dominate a non-Bash decision.
 * Bounded: the memory is dropped when it grows past `limit` entries.
 */
export function snapshotFileSystem(base: FileSystemView = nodeFileSystem(), limit = 100_000): FileSystemView {
  const real = new Map<string, string>();
  const globs = new Map<string, readonly string[] | undefined>();
  return {
    home: base.home,
    realpath(absolutePath) {
      let r = real.get(absolutePath);
      if (r === undefined) {
        r = base.realpath(absolutePath);
        if (real.size >= limit) real.clear();
        real.set(absolutePath, r);
      }
      return r;
    },
    glob(pattern, cwd) {
      const key = `${cwd}\0${pattern}`;
      if (globs.has(key)) return globs.get(key);
      const r = base.glob(pattern, cwd);
      if (globs.size >= limit) globs.clear();
      globs.set(key, r);
      return r;
    },
  };
}
