import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Finding and killing every process a run started.
 *
 * A run's processes are found two ways, both from /proc:
 * - its **process group** (the child is started with `detached: true`, so it leads a new group
 *   that its ordinary children inherit, background `&` and `nohup` ones included);
 * - its **run tag**: the child environment carries `TOOLGATE_RUN_ID=<uuid>`, inherited by every
 *   descendant, so a `setsid` or double-forked process that left the group is still found by
 *   reading `/proc/<pid>/environ`.
 *
 * Limits:
 * - a process that both leaves the group and execs with a cleaned environment (`setsid env -i
 *   sleep 100 &`) is invisible to this scan. Under bubblewrap this hole does not exist: the run
 *   has its own PID namespace, and when its init dies the kernel kills everything in it;
 * - if toolgate itself dies, an exit hook kills the runs in progress (see trackRun); that hook
 *   cannot run when toolgate is SIGKILLed: then bwrap's --die-with-parent holds a jailed run,
 *   and the watchdog (watchdog.ts), a shell that sees toolgate's end of a pipe close, an unjailed one.
 * - the scan costs one read of /proc/<pid>/environ per process on the machine, per call.
 */
export const RUN_ID_VARIABLE = 'TOOLGATE_RUN_ID';

export interface ProcessInfo {
  pid: number;
  /** The command name from /proc/<pid>/comm. */
  command: string;
}

export interface KilledProcess extends ProcessInfo {
  /** The last signal sent before it died. */
  signal: 'SIGTERM' | 'SIGKILL';
}

interface StatLine {
  /** Zombie, or already inside exit(): it can never run user code again. */
  dying: boolean;
  pgrp: number;
}

/** PF_EXITING in /proc/<pid>/stat's flags: set when the task enters do_exit(). */
const PF_EXITING = 0x4;

/**
 * A scan reads two small files of every process on the machine, once per call, so it reads
 * them with one open/read/close into a shared buffer instead of readFileSync's extra stat,
 * second read and fresh allocation each. The view is valid until the next read.
 */
const scratch = Buffer.allocUnsafe(64 * 1024);

function readProcFile(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const n = fs.readSync(fd, scratch, 0, scratch.length, null);
    // A file that fills the buffer may be longer (a huge environment): read it whole.
    return n < scratch.length ? scratch.subarray(0, n) : fs.readFileSync(file);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

function readStat(pid: number): StatLine | undefined {
  const bytes = readProcFile(`/proc/${pid}/stat`);
  if (!bytes) return undefined;
  const text = bytes.toString('latin1');
  // The command name is in parentheses and may itself contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0] ?? '?';
  const dying = state === 'Z' || state === 'X' || (Number(fields[6]) & PF_EXITING) !== 0;
  return { dying, pgrp: Number(fields[2]) };
}

function readCommand(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '?';
  }
}

function carriesTag(pid: number, tag: Buffer): boolean {
  const environ = readProcFile(`/proc/${pid}/environ`);
  if (!environ) return false;
  // Entries are NUL-separated; require a boundary on both sides so that a value merely
  // containing the tag neither matches nor hides the real entry behind it.
  for (let at = environ.indexOf(tag); at !== -1; at = environ.indexOf(tag, at + 1)) {
    if (at === 0 || environ[at - 1] === 0) return true;
  }
  return false;
}

/** The live (not zombie, not exiting) processes of a run: its process group and everything carrying its tag. */
export function findRunProcesses(runId: string, pgid?: number): ProcessInfo[] {
  return scan(runId, pgid).map(({ pid, command }) => ({ pid, command }));
}

interface Found extends ProcessInfo {
  inGroup: boolean;
}

function scan(runId: string, pgid: number | undefined): Found[] {
  const tag = Buffer.from(`${RUN_ID_VARIABLE}=${runId}\0`);
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  // Most scans happen after the group is gone; then one read per process (its environment)
  // is enough, and the status is read only for the few that carry the tag.
  const groupAlive = pgid !== undefined && groupExists(pgid);
  const found: Found[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let stat: StatLine | undefined;
    let inGroup = false;
    if (groupAlive) {
      stat = readStat(pid);
      inGroup = stat?.pgrp === pgid;
      if (!inGroup && !carriesTag(pid, tag)) continue;
    } else {
      if (!carriesTag(pid, tag)) continue;
      stat = readStat(pid);
    }
    if (!stat || stat.dying) continue;
    found.push({ pid, command: readCommand(pid), inGroup });
  }
  return found;
}

/** Whether any process is in the group (signal 0 only checks). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone (ESRCH) or not ours (EPERM): nothing more this signal can do.
  }
}

export interface TerminateOptions {
  runId: string;
  /** The process group of the run (the child's pid), if it was started detached. */
  pgid?: number;
  /** How long SIGTERM gets before SIGKILL. */
  graceMs: number;
}

export interface TerminateOutcome {
  killed: KilledProcess[];
  /** Processes still alive after every attempt (should be empty; reported, never hidden). */
  survivors: ProcessInfo[];
}

const POLL_MS = 20;
const KILL_ROUNDS = 100;

/**
 * SIGTERM to the group and every tagged process, SIGKILL after the grace period, then SIGKILL
 * again until a scan finds nothing (a process may fork between a scan and a kill).
 */
export async function terminateRun(options: TerminateOptions): Promise<TerminateOutcome> {
  const { runId, pgid, graceMs } = options;
  const signalled = new Map<number, KilledProcess>();
  const send = (procs: Found[], sig: 'SIGTERM' | 'SIGKILL') => {
    // The group signal reaches members forked since the scan; it is only sent while the scan
    // still sees a member, so a recycled group id can never be hit.
    if (pgid !== undefined && procs.some((p) => p.inGroup)) signal(-pgid, sig);
    for (const p of procs) {
      signalled.set(p.pid, { pid: p.pid, command: p.command, signal: sig });
      signal(p.pid, sig);
    }
  };

  let alive = scan(runId, pgid);
  if (alive.length > 0) send(alive, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(POLL_MS);
    alive = scan(runId, pgid);
  }
  for (let round = 0; round < KILL_ROUNDS && alive.length > 0; round += 1) {
    send(alive, 'SIGKILL');
    await sleep(round === 0 ? 1 : POLL_MS / 2);
    alive = scan(runId, pgid);
  }
  const survivors = new Set(alive.map((p) => p.pid));
  return {
    killed: [...signalled.values()].filter((p) => !survivors.has(p.pid)).sort((a, b) => a.pid - b.pid),
    survivors: alive.map(({ pid, command }) => ({ pid, command })),
  };
}

/**
 * Runs in progress, so that they die with toolgate. bwrap's --die-with-parent covers a
 * toolgate that dies later in a run, but not one that dies in the first milliseconds (a
 * start-up race in which bwrap's namespace init outlives it, observed with bwrap 0.8). An exit
 * hook cannot await, so it scans and SIGKILLs synchronously, a few rounds.
 */
const inProgress = new Map<string, number | undefined>();
let hookInstalled = false;

/** Registers a run until the returned function is called. */
export function trackRun(runId: string, pgid: number | undefined): () => void {
  if (!hookInstalled) {
    process.on('exit', killTrackedRunsNow);
    hookInstalled = true;
  }
  inProgress.set(runId, pgid);
  return () => {
    inProgress.delete(runId);
  };
}

function killTrackedRunsNow(): void {
  for (const [runId, pgid] of inProgress) {
    for (let round = 0; round < 3; round += 1) {
      const alive = scan(runId, pgid);
      if (alive.length === 0) break;
      if (pgid !== undefined && alive.some((p) => p.inGroup)) signal(-pgid, 'SIGKILL');
      for (const p of alive) signal(p.pid, 'SIGKILL');
    }
  }
  inProgress.clear();
}
