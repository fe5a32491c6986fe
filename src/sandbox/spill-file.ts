import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The file that holds a run's full output, in a private (0700) temp directory. It is created
 * only when output first outgrows what memory holds anyway, so the common small call costs no
 * file system work. Writes made while it opens are queued and the pipes are paused, and the
 * pipes are paused again whenever the disk falls behind: memory stays bounded either way.
 *
 * A spill file is there for the model to page through with Read in the calls that follow, so
 * it must outlive its call, but not by much: each one can hold up to the call's output cap.
 * - the process that made it removes it when it exits (nobody is left to read it through
 *   that process), and keeps only its newest MAX_SPILLS_PER_PROCESS while it runs;
 * - spill directories of any process (one that was killed, for instance) are removed once
 *   they are older than SPILL_TTL_MS, by the next toolgate process that spills.
 */
export const SPILL_PREFIX = 'toolgate-out-';
const FILE_NAME = 'output.txt';
/** Long enough to page through a long log in one working session; a crash's leftovers go after it. */
export const SPILL_TTL_MS = 60 * 60 * 1000;
/** With the default 32 MiB output cap, at most 1 GiB of spill files per process. */
export const MAX_SPILLS_PER_PROCESS = 32;

/** The spill directories this process made, oldest first. */
const made: string[] = [];
let exitHookInstalled = false;

function removeMadeNow(): void {
  for (const dir of made.splice(0)) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // nothing to do at exit; the TTL sweep of a later process gets it
    }
  }
}

function remember(dir: string): void {
  if (!exitHookInstalled) {
    process.on('exit', removeMadeNow);
    exitHookInstalled = true;
  }
  made.push(dir);
  while (made.length > MAX_SPILLS_PER_PROCESS) {
    const oldest = made.shift()!;
    void fs.promises.rm(oldest, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Removes spill directories in `tmp` older than `ttlMs`: only directories (never a symlink)
 * named with SPILL_PREFIX and owned by this user.
 */
export async function sweepSpills(
  tmp = os.tmpdir(),
  ttlMs = SPILL_TTL_MS,
  now = Date.now(),
): Promise<string[]> {
  let names: string[];
  try {
    names = await fs.promises.readdir(tmp);
  } catch {
    return [];
  }
  const uid = process.getuid?.();
  const removed: string[] = [];
  for (const name of names) {
    if (!name.startsWith(SPILL_PREFIX)) continue;
    const dir = path.join(tmp, name);
    try {
      const st = await fs.promises.lstat(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
      if (now - st.mtimeMs <= ttlMs || made.includes(dir)) continue;
      await fs.promises.rm(dir, { recursive: true, force: true });
      removed.push(dir);
    } catch {
      // gone meanwhile, or not ours to remove
    }
  }
  return removed;
}

export class SpillFile {
  private stream: fs.WriteStream | undefined;
  private dir: string | undefined;
  private opening: Promise<void> | undefined;
  private pending: Buffer[] = [];
  private waitingForDrain = false;
  /** Why the file could not be written, if it could not. */
  failure: string | undefined;

  constructor(
    private readonly pause: () => void,
    private readonly resume: () => void,
  ) {}

  /** The file's path once it exists. */
  get path(): string | undefined {
    return this.dir === undefined ? undefined : path.join(this.dir, FILE_NAME);
  }

  get started(): boolean {
    return this.opening !== undefined;
  }

  write(chunk: Buffer): void {
    if (this.failure !== undefined) return;
    if (this.opening === undefined) {
      this.pending.push(chunk);
      this.pause();
      this.opening = this.open().then(
        () => this.flushPending(),
        (err: unknown) => {
          this.failure = err instanceof Error ? err.message : String(err);
          this.pending = [];
          this.resume();
        },
      );
      return;
    }
    if (!this.stream) {
      this.pending.push(chunk);
      return;
    }
    this.writeNow(chunk);
  }

  /** Flushes and closes the file (a no-op when it was never needed). */
  async close(): Promise<void> {
    await this.opening;
    const stream = this.stream;
    if (stream && !stream.closed) await new Promise<void>((resolve) => stream.end(resolve));
  }

  /** Closes and deletes the file and its directory. */
  async remove(): Promise<void> {
    await this.close();
    if (this.dir !== undefined) await removeDir(this.dir);
  }

  private async open(): Promise<void> {
    await sweepSpills();
    this.dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), SPILL_PREFIX));
    remember(this.dir);
    const stream = fs.createWriteStream(path.join(this.dir, FILE_NAME), { mode: 0o600, flags: 'wx' });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', reject);
    });
    stream.on('error', (err) => {
      this.failure ??= err.message;
    });
    this.stream = stream;
  }

  private flushPending(): void {
    const queued = this.pending;
    this.pending = [];
    for (const chunk of queued) this.writeNow(chunk);
    if (!this.waitingForDrain) this.resume();
  }

  private writeNow(chunk: Buffer): void {
    if (this.stream!.write(chunk) || this.waitingForDrain) return;
    this.waitingForDrain = true;
    this.pause();
    this.stream!.once('drain', () => {
      this.waitingForDrain = false;
      this.resume();
    });
  }
}

/** Removes a spill file handed out in a result, and its private directory. */
export async function removeSpill(spillPath: string): Promise<void> {
  const dir = path.dirname(spillPath);
  // Only ever delete what this module created.
  if (path.dirname(dir) !== os.tmpdir() || !path.basename(dir).startsWith(SPILL_PREFIX)) return;
  if (path.basename(spillPath) !== FILE_NAME) return;
  await removeDir(dir);
}

async function removeDir(dir: string): Promise<void> {
  const i = made.indexOf(dir);
  if (i >= 0) made.splice(i, 1);
  await fs.promises.rm(dir, { recursive: true, force: true });
}
