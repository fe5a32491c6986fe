import fs from 'node:fs';
import path from 'node:path';
import type { PathGuard, PathVerdict } from './paths.js';

/**
 * Opening a file for writing without a time-of-check/time-of-use hole. The guard checked a
 * path; between that check and the open, a directory on the path can be swapped for a symlink
 * to somewhere else, or the file itself for a symlink or a hard link. So:
 *
 * 1. the parent directory is opened first and *pinned*: its real location (read back from
 *    `/proc/self/fd`) must be the directory the guard approved;
 * 2. the file is opened relative to the pinned directory (through `/proc/self/fd/N/name`, which
 *    the kernel resolves to that very directory, like `openat`), with `O_NOFOLLOW`, so a
 *    symlink in the final component fails with ELOOP instead of being followed;
 * 3. the opened file must be a regular file with one link, and the parent must still be where
 *    it was; only then is it truncated (never before, so a refused open destroys nothing).
 *
 * Without `/proc` (not Linux) step 1 degrades to comparing realpaths before and after the open.
 */
export type OpenedForWrite =
  | { ok: true; fd: number; path: string }
  | { ok: false; path: string; reason: string };

export interface OpenForWriteOptions {
  /** Empty the file once it is verified (default true; false keeps the contents). */
  truncate?: boolean;
  append?: boolean;
  /** Create missing parent directories (inside what the guard approved). */
  createParents?: boolean;
  /** File mode for a new file (default 0o666, minus the umask). */
  mode?: number;
}

const { O_WRONLY, O_CREAT, O_NOFOLLOW, O_APPEND, O_RDONLY, O_DIRECTORY } = fs.constants;

/** Checks `input` with the guard, then opens it. */
export function openForWrite(
  guard: PathGuard,
  input: string,
  options: OpenForWriteOptions = {},
): OpenedForWrite {
  const verdict = guard.check(input, 'write');
  if (!verdict.ok) return { ok: false, path: verdict.path, reason: verdict.reason };
  return openCheckedForWrite(verdict, options);
}

/** Opens a path the guard approved earlier, refusing if anything on it changed since. */
export function openCheckedForWrite(
  verdict: Extract<PathVerdict, { ok: true }>,
  options: OpenForWriteOptions = {},
): OpenedForWrite {
  const target = verdict.path;
  const refuse = (reason: string): OpenedForWrite => ({ ok: false, path: target, reason });
  if (target.startsWith('/dev/')) {
    // Only the guard's harmless device targets get here (/dev/null, /dev/stdout, /dev/stderr).
    try {
      return { ok: true, fd: fs.openSync(target, O_WRONLY | (options.append ? O_APPEND : 0)), path: target };
    } catch (err) {
      return refuse(`Cannot open "${target}": ${(err as Error).message}.`);
    }
  }
  const parent = path.dirname(target);
  const name = path.basename(target);
  try {
    if (options.createParents) fs.mkdirSync(parent, { recursive: true });
  } catch (err) {
    return refuse(`Cannot create the directory "${parent}": ${(err as Error).message}.`);
  }
  const flags = O_WRONLY | O_CREAT | O_NOFOLLOW | (options.append ? O_APPEND : 0);
  const mode = options.mode ?? 0o666;

  let dirFd: number;
  try {
    dirFd = fs.openSync(parent, O_RDONLY | O_DIRECTORY);
  } catch (err) {
    return refuse(`Cannot open the directory "${parent}": ${(err as Error).message}.`);
  }
  let fd: number | undefined;
  try {
    const pinned = locationOf(dirFd);
    const viaProc = pinned !== undefined;
    if (viaProc && pinned !== parent) return refuse(moved(parent, pinned));
    if (!viaProc && safeRealpath(parent) !== parent) return refuse(moved(parent, safeRealpath(parent)));
    try {
      fd = fs.openSync(viaProc ? `/proc/self/fd/${dirFd}/${name}` : target, flags, mode);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ELOOP') {
        return refuse(
          `"${target}" is a symbolic link (it changed after it was checked); it was not followed.`,
        );
      }
      return refuse(`Cannot open "${target}": ${(err as Error).message}.`);
    }
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) return refuse(`"${target}" is not a regular file.`);
    if (stat.nlink > 1) {
      return refuse(`"${target}" has ${stat.nlink} hard links, so it may be a file outside the workspace.`);
    }
    const after = viaProc ? locationOf(dirFd) : safeRealpath(parent);
    if (after !== parent) return refuse(moved(parent, after));
    if (!viaProc) {
      // Without a pinned directory, make sure the name still denotes the file we opened.
      const now = fs.lstatSync(target, { throwIfNoEntry: false });
      if (!now || now.ino !== stat.ino || now.dev !== stat.dev) {
        return refuse(`"${target}" changed while it was being opened.`);
      }
    }
    if (options.truncate !== false && !options.append) fs.ftruncateSync(fd, 0);
    const opened: OpenedForWrite = { ok: true, fd, path: target };
    fd = undefined;
    return opened;
  } catch (err) {
    return refuse(`Cannot open "${target}": ${(err as Error).message}.`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    fs.closeSync(dirFd);
  }
}

/** Writes a whole file through `openCheckedForWrite`. */
export function writeCheckedFile(
  verdict: Extract<PathVerdict, { ok: true }>,
  data: string | Uint8Array,
  options: OpenForWriteOptions = {},
): { ok: true; path: string; bytes: number } | { ok: false; path: string; reason: string } {
  const opened = openCheckedForWrite(verdict, options);
  if (!opened.ok) return opened;
  try {
    const buffer = typeof data === 'string' ? Buffer.from(data) : data;
    let written = 0;
    while (written < buffer.length) written += fs.writeSync(opened.fd, buffer, written);
    return { ok: true, path: opened.path, bytes: written };
  } catch (err) {
    return {
      ok: false,
      path: opened.path,
      reason: `Writing "${opened.path}" failed: ${(err as Error).message}.`,
    };
  } finally {
    fs.closeSync(opened.fd);
  }
}

/** Where an open directory really is, from the kernel; undefined when /proc is not there. */
function locationOf(fd: number): string | undefined {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return undefined;
  }
}

function safeRealpath(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}

function moved(expected: string, actual: string | undefined): string {
  return `The directory "${expected}" changed after it was checked (it now resolves to "${actual ?? 'nothing'}"); nothing was written.`;
}
