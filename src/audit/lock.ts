/**
 * An inter-process lock around "read the tail, append a line": toolgate's Claude Code hook
 * runs as a fresh process per tool call, so several processes append to one log at once.
 *
 * The lock is a file that appears atomically and complete (written under a private name, then
 * hard-linked into place: see tryCreate), holding its owner's pid, host and a random nonce. A
 * waiter backs off with jittered exponential sleeps (1 ms doubling to 50 ms), never spinning.
 * A lock is stale when its owner is on this host and no longer running, or when it is older
 * than `staleMs` (an owner on another host or pid namespace, a reused pid, a file without an
 * owner, which toolgate itself no longer leaves). Breaking a stale lock is itself
 * serialized by a short-lived `.break` file and re-checks, under it, that the lock is still
 * the very file judged stale, so two waiters cannot both break it and end up both holding it.
 * The owner keeps its lock file open and, right before writing, checks that the file at the
 * path is still that one (same inode; it cannot be reused while open).
 *
 * Known limits: NFS and other filesystems without atomic O_EXCL/link are not supported; an owner
 * paused for longer than `staleMs` (SIGSTOP, a debugger) can lose its lock and, in the instant
 * between its last check and its write, race the next owner; a crashed breaker leaves a
 * `.break` file that waiters remove after 5 s.
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fstatSync,
  linkSync,
  openSync,
  readFileSync,
  readlinkSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { AuditError } from './error.js';

export interface LockOptions {
  /** Give up waiting after this many milliseconds. Default 30 s. */
  timeoutMs?: number;
  /** A lock held longer than this is stale whatever its owner looks like. Default 30 s. */
  staleMs?: number;
}

interface Owner {
  pid: number;
  host: string;
  nonce: string;
  since: number;
  /** Linux: the owner's start time (clock ticks since boot, /proc/PID/stat field 22). */
  start?: number;
  /** Linux: the owner's pid namespace (/proc/self/ns/pid): its pid means something only in it. */
  ns?: string;
}

const BREAK_STALE_MS = 5_000;

export class FileLock {
  private constructor(
    readonly path: string,
    /** Kept open while held: the inode cannot be reused while we hold it, so it identifies our file. */
    private fd: number | undefined,
  ) {}

  static async acquire(path: string, options: LockOptions = {}): Promise<FileLock> {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const staleMs = options.staleMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    let lastLook = 0;
    const nonce = randomBytes(12).toString('hex');
    for (let attempt = 0; ; attempt++) {
      const owner: Owner = { pid: process.pid, host: HOST, nonce, since: Date.now(), ...SELF };
      const fd = tryCreate(path, JSON.stringify(owner), true);
      if (fd !== undefined) return new FileLock(path, fd);
      // Looking at the owner costs three syscalls and waiters poll often: look now and then.
      const now = Date.now();
      if (now - lastLook < LOOK_EVERY_MS && now < deadline) {
        await backoff(attempt);
        continue;
      }
      lastLook = now;
      const seen = inspect(path);
      if (seen === undefined) continue; // released between our attempt and our look: try again now
      if (isStale(seen, staleMs) && breakStale(path, seen)) continue;
      if (now >= deadline) {
        const who = seen.owner
          ? `pid ${seen.owner.pid} on ${seen.owner.host}`
          : 'a process that has not written its name yet';
        throw new AuditError('lock-timeout', `${path} is held by ${who}; gave up after ${timeoutMs} ms`);
      }
      await backoff(attempt);
    }
  }

  /** Whether the lock file is still ours (it may have been broken as stale while we worked). */
  holds(): boolean {
    if (this.fd === undefined) return false;
    try {
      const ours = fstatSync(this.fd);
      const there = statSync(this.path);
      return ours.ino === there.ino && ours.dev === there.dev;
    } catch {
      return false;
    }
  }

  release(): void {
    if (this.fd === undefined) return;
    try {
      // If it was broken as stale, the file there now is someone else's: not ours to remove.
      if (this.holds()) unlinkSync(this.path);
    } finally {
      closeSync(this.fd);
      this.fd = undefined;
    }
  }
}

const LOOK_EVERY_MS = 50;
const HOST = hostname();

/** What this process writes about itself beyond its pid (nothing where there is no /proc). */
const SELF: Pick<Owner, 'start' | 'ns'> = (() => {
  const ns = pidNamespace();
  const start = processStart(process.pid);
  return {
    ...(ns !== undefined && { ns }),
    ...(start !== undefined && start !== 'gone' && { start: start.start }),
  };
})();

function pidNamespace(): string | undefined {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return undefined;
  }
}

/** From /proc/PID/stat: its start time and whether it is a zombie; 'gone' when there is no such process. */
function processStart(pid: number): { start: number; zombie: boolean } | 'gone' | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // No /proc at all (another OS, a sandbox without it): we cannot tell.
    return code === 'ENOENT' && SELF_HAS_PROC ? 'gone' : undefined;
  }
  // "pid (comm) state ..." where comm may hold spaces and parentheses: fields start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]); // field 22 overall; fields[0] is field 3 (state)
  if (!Number.isSafeInteger(start)) return undefined;
  return { start, zombie: fields[0] === 'Z' || fields[0] === 'X' };
}

const SELF_HAS_PROC = (() => {
  try {
    statSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/**
 * Full jitter, the ceiling doubling from 1 ms to 50 ms: a waiter behind one short hold gets in
 * within a few ms, and 30 waiters do not hammer the directory while one of them writes.
 */
function backoff(attempt: number): Promise<void> {
  const cap = Math.min(50, 2 ** Math.min(attempt, 6));
  return sleep(1 + Math.random() * cap);
}

/**
 * The open descriptor when `keep`, else closes it; undefined when the file exists.
 *
 * The file appears at `path` complete or not at all: it is written under a private name and
 * then hard-linked into place (link() fails with EEXIST like O_EXCL does). A writer killed
 * between an O_EXCL create and its write used to leave an empty lock that stalled the next
 * writer until it went stale (30 s); killed now, it leaves at most its private file.
 */
function tryCreate(path: string, content: string, keep: boolean): number | undefined {
  // Waiters poll: the common "held" answer costs one stat, not a file made and removed.
  if (existsSync(path)) return undefined;
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  let fd: number;
  try {
    fd = openSync(temp, 'wx', 0o600);
  } catch (err) {
    throw new AuditError('io', `cannot create lock ${path}: ${(err as Error).message}`, { cause: err });
  }
  let linked = false;
  try {
    writeSync(fd, content);
    linkSync(temp, path);
    linked = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new AuditError('io', `cannot write lock ${path}: ${(err as Error).message}`, { cause: err });
  } finally {
    try {
      unlinkSync(temp);
    } catch {}
    if (!linked || !keep) closeSync(fd);
  }
  if (!linked) return undefined;
  return keep ? fd : -1;
}

interface Seen {
  ino: number;
  mtimeMs: number;
  content: string;
  owner?: Owner;
}

function inspect(path: string): Seen | undefined {
  try {
    const st = statSync(path);
    const content = readFileSync(path, 'utf8');
    const seen: Seen = { ino: st.ino, mtimeMs: st.mtimeMs, content };
    const owner = parseOwner(content);
    if (owner !== undefined) seen.owner = owner;
    return seen;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new AuditError('io', `cannot read lock ${path}: ${(err as Error).message}`, { cause: err });
  }
}

function parseOwner(content: string): Owner | undefined {
  try {
    const o = JSON.parse(content) as Partial<Owner>;
    if (
      typeof o.pid === 'number' &&
      typeof o.host === 'string' &&
      typeof o.nonce === 'string' &&
      typeof o.since === 'number' &&
      (o.start === undefined || typeof o.start === 'number') &&
      (o.ns === undefined || typeof o.ns === 'string')
    ) {
      return o as Owner;
    }
  } catch {}
  return undefined;
}

function isStale(seen: Seen, staleMs: number): boolean {
  const since = seen.owner?.since ?? seen.mtimeMs;
  if (Date.now() - since > staleMs) return true;
  return seen.owner !== undefined && seen.owner.host === HOST && !isRunning(seen.owner);
}

function isRunning(owner: Owner): boolean {
  const { pid } = owner;
  // A pid from another pid namespace names some other process here, or none: only time tells.
  if (owner.ns !== undefined && SELF.ns !== undefined && owner.ns !== SELF.ns) return true;
  if (SELF.ns !== undefined) {
    const now = processStart(pid);
    if (now === 'gone') return false;
    if (now !== undefined) {
      if (now.zombie) return false; // killed, not yet reaped by its parent
      if (owner.start !== undefined && now.start !== owner.start) return false; // pid reused
      return true;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // exists, owned by someone else
  }
}

/** False when another waiter is breaking it right now (the caller then backs off). */
function breakStale(path: string, seen: Seen): boolean {
  const breaker = `${path}.break`;
  if (tryCreate(breaker, String(process.pid), false) === undefined) {
    // A breaker that died leaves its file behind.
    try {
      if (Date.now() - statSync(breaker).mtimeMs > BREAK_STALE_MS) unlinkSync(breaker);
    } catch {}
    return false;
  }
  try {
    const now = inspect(path);
    if (now !== undefined && now.ino === seen.ino && now.content === seen.content) unlinkSync(path);
  } finally {
    unlinkSync(breaker);
  }
  return true;
}
