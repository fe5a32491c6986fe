import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The file that holds a run's full output, in a private (0700) temp directory. It is created
 * only when output first outgrows what memory holds anyway, so the common small call costs no
 * file system work. Writes made while it opens are queued and the pipes are paused, and the
 * pipes are paused again whenever the disk falls behind: memory stays bounded either way.
 */
export const SPILL_PREFIX = 'toolgate-out-';
const FILE_NAME = 'output.txt';

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
    if (this.dir !== undefined) await fs.promises.rm(this.dir, { recursive: true, force: true });
  }

  private async open(): Promise<void> {
    this.dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), SPILL_PREFIX));
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
  await fs.promises.rm(dir, { recursive: true, force: true });
}
