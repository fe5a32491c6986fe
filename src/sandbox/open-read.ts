import fs from 'node:fs';
import type { PathVerdict } from './paths.js';

/**
 * Opening a file for reading without a time-of-check/time-of-use hole, the reading twin of
 * `open-write.ts`. The guard judged the path where it really lands (every symlink resolved);
 * between that check and the open, any directory on the path can be swapped for a symlink to a
 * denied one. `O_NOFOLLOW` on the last component alone does not help: the kernel still follows
 * links in the middle of the path. So the path is walked one component at a time from `/`,
 * each directory opened with `O_DIRECTORY | O_NOFOLLOW` relative to the one before it (through
 * `/proc/self/fd/N/name`, which the kernel resolves to that very directory, like `openat`), and
 * the file itself with `O_NOFOLLOW | O_NONBLOCK` (a FIFO swapped in must not hang the call).
 * A symlink anywhere fails the open (ELOOP/ENOTDIR): the call gets a refusal, never the target.
 *
 * Hard links cannot be told apart from the original: `notes.txt` may be `.env` under another
 * name, made by an earlier call. Where the profile denies reading anything, a file with more
 * than one link is refused; the walk cannot know what its other names are.
 *
 * Without `/proc` (not Linux) the walk degrades to one `O_NOFOLLOW` open and a realpath check
 * after it.
 */
export type OpenedForRead =
  | { ok: true; fd: number; stat: fs.Stats; path: string }
  | { ok: false; path: string; reason: string };

export interface OpenForReadOptions {
  /** Refuse files with more than one hard link (set when the profile denies any reads). */
  refuseHardLinks?: boolean;
}

const { O_RDONLY, O_NOFOLLOW, O_DIRECTORY, O_NONBLOCK } = fs.constants;

export function openCheckedForRead(
  verdict: Extract<PathVerdict, { ok: true }>,
  options: OpenForReadOptions = {},
): OpenedForRead {
  const target = verdict.path;
  const refuse = (reason: string): OpenedForRead => ({ ok: false, path: target, reason });
  let fd: number | undefined;
  try {
    const walked = walkOpen(target);
    if (!walked.ok) return refuse(walked.reason);
    fd = walked.fd;
    const stat = fs.fstatSync(fd);
    if (!walked.pinned && safeRealpath(target) !== target) {
      return refuse(`"${verdict.literal}" changed while it was being opened; it was not read.`);
    }
    if (options.refuseHardLinks && stat.isFile() && stat.nlink > 1) {
      return refuse(
        `"${verdict.literal}" has ${stat.nlink} hard links, so it may be the same file as one the policy denies reading; it was not read.`,
      );
    }
    const opened: OpenedForRead = { ok: true, fd, stat, path: target };
    fd = undefined;
    return opened;
  } catch (err) {
    return refuse(`Cannot open "${verdict.literal}": ${(err as Error).message}.`);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

type Walked = { ok: true; fd: number; pinned: boolean } | { ok: false; reason: string };

function walkOpen(target: string): Walked {
  const parts = target.split('/').filter((p) => p !== '');
  let dirFd: number;
  try {
    dirFd = fs.openSync('/', O_RDONLY | O_DIRECTORY);
  } catch (err) {
    return { ok: false, reason: `Cannot open "/": ${(err as Error).message}.` };
  }
  if (!procWorks(dirFd)) {
    fs.closeSync(dirFd);
    return openPlain(target);
  }
  try {
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      const flags = last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK : O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
      let next: number;
      try {
        next = fs.openSync(`/proc/self/fd/${dirFd}/${parts[i]}`, flags);
      } catch (err) {
        return { ok: false, reason: walkFailure(target, parts.slice(0, i + 1), err) };
      }
      fs.closeSync(dirFd);
      dirFd = next;
    }
    const fd = dirFd;
    dirFd = -1;
    return { ok: true, fd, pinned: true };
  } finally {
    if (dirFd >= 0) fs.closeSync(dirFd);
  }
}

function openPlain(target: string): Walked {
  try {
    return { ok: true, fd: fs.openSync(target, O_RDONLY | O_NOFOLLOW | O_NONBLOCK), pinned: false };
  } catch (err) {
    return { ok: false, reason: walkFailure(target, target.split('/').filter(Boolean), err) };
  }
}

function walkFailure(target: string, reached: string[], err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  const at = `/${reached.join('/')}`;
  if (code === 'ELOOP' || code === 'ENOTDIR') {
    return `"${at}" is no longer the directory or file that was checked (a symbolic link or another kind of file is there now); "${target}" was not read.`;
  }
  if (code === 'ENOENT') return `"${target}" does not exist (anymore).`;
  return `Cannot open "${at}": ${(err as Error).message}.`;
}

let procChecked: boolean | undefined;

/** Whether `/proc/self/fd/N` resolves to the open directory (Linux with /proc mounted). */
function procWorks(fd: number): boolean {
  if (procChecked === undefined) {
    try {
      procChecked = fs.readlinkSync(`/proc/self/fd/${fd}`) === '/';
    } catch {
      procChecked = false;
    }
  }
  return procChecked;
}

function safeRealpath(p: string): string | undefined {
  try {
    return fs.realpathSync.native(p);
  } catch {
    return undefined;
  }
}
