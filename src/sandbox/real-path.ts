import fs from 'node:fs';
import path from 'node:path';

/**
 * Where a path really lands, computed the way the kernel walks it: component by component,
 * following every symlink and applying `..` to the *resolved* parent. (A lexical
 * `path.resolve('link/..')` is wrong when `link` points elsewhere, and that difference is exactly
 * what an escape exploits.) Components that do not exist yet are appended as written, so a path
 * that a command is about to create resolves to where it will be created.
 */
export type RealPath =
  | {
      ok: true;
      /** Absolute path with every existing symlink resolved. */
      real: string;
      /** lstat of `real`, or undefined when it does not exist yet. */
      stat: fs.Stats | undefined;
    }
  | { ok: false; reason: string };

/** Linux gives up after 40 links (ELOOP); so do we, so that a loop is an error, not a hang. */
const MAX_LINKS = 40;

export function realPathOf(absolute: string): RealPath {
  if (!path.isAbsolute(absolute)) return { ok: false, reason: `"${absolute}" is not an absolute path` };
  if (absolute.includes('\0')) return { ok: false, reason: 'the path contains a NUL byte' };
  const pending = absolute.split('/').filter((part) => part !== '');
  let current = '/';
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      current = path.dirname(current);
      continue;
    }
    const next = current === '/' ? `/${part}` : `${current}/${part}`;
    let stat: fs.Stats | undefined;
    try {
      // Missing: undefined rather than a thrown error, which costs more than the lstat itself
      // (the jail's plan resolves every concrete read-deny path on every call).
      stat = fs.lstatSync(next, { throwIfNoEntry: false });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Under a non-directory: the write fails (as it does when missing, see below).
      if (code === 'ENOTDIR') {
        current = next;
        continue;
      }
      return { ok: false, reason: `cannot inspect "${next}" (${code ?? 'error'})` };
    }
    // Missing: it will be created as written, or the write fails.
    if (stat === undefined || !stat.isSymbolicLink()) {
      current = next;
      continue;
    }
    links += 1;
    if (links > MAX_LINKS) return { ok: false, reason: `too many levels of symbolic links at "${next}"` };
    let target: string;
    try {
      target = fs.readlinkSync(next);
    } catch (err) {
      return { ok: false, reason: `cannot read the link "${next}" (${(err as NodeJS.ErrnoException).code})` };
    }
    if (target.startsWith('/')) current = '/';
    pending.unshift(...target.split('/').filter((p) => p !== ''));
  }
  let stat: fs.Stats | undefined;
  try {
    stat = fs.lstatSync(current, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  return { ok: true, real: current, stat };
}

/**
 * Expands `~` and `~/x` against `home` and makes the path absolute against `cwd`.
 * - `literal` is the path *as written*, with `.`, `..` and `//` normalized lexically: what deny
 *   globs and protected names are matched against;
 * - `absolute` keeps every `..` in place, because only the kernel's walk (`realPathOf`) may
 *   apply them: `link/..` is the parent of the link's *target*.
 * `~user` forms are refused: resolving another user's home is not worth the ambiguity.
 */
export function literalPathOf(
  input: string,
  cwd: string,
  home: string,
): { ok: true; literal: string; absolute: string } | { ok: false; reason: string } {
  if (input === '') return { ok: false, reason: 'the path is empty' };
  if (input.includes('\0')) return { ok: false, reason: 'the path contains a NUL byte' };
  let expanded = input;
  if (input === '~' || input.startsWith('~/')) expanded = home + input.slice(1);
  else if (input.startsWith('~')) {
    return { ok: false, reason: `"${input}" names another user's home directory` };
  }
  const absolute = expanded.startsWith('/') ? expanded : `${cwd}/${expanded}`;
  return { ok: true, literal: path.resolve(absolute), absolute };
}

/** Whether `candidate` is `root` or inside it. Both must be absolute and normalized. */
export function isInside(candidate: string, root: string): boolean {
  if (root === '/') return candidate.startsWith('/');
  return candidate === root || candidate.startsWith(`${root}/`);
}
