import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { describeThrown, type SandboxError, sandboxError } from './error.js';

/**
 * Output of a sandboxed process: stdout and stderr, interleaved as they arrive, go straight to
 * a spill file in a private temp directory. Memory holds only a bounded head and tail (about
 * 4 bytes per inline character each, enough for any UTF-8), and the file stream applies
 * backpressure to the pipes, so a process that writes a gigabyte costs disk, not memory.
 *
 * What the model gets: everything inline when it fits in `maxOutputChars`; otherwise an excerpt
 * that fits (the head for a success; head and tail for a failure, where the error is usually at
 * the end) plus the path of the full output. Past `maxOutputBytes` nothing more is kept and the
 * owner is told to kill the writer.
 */
export type StreamName = 'stdout' | 'stderr';

export interface CapturedOutput {
  /** What the model sees, at most `maxOutputChars` characters. */
  inline: string;
  /** Whether `inline` is an excerpt rather than the whole output. */
  truncated: boolean;
  /** Bytes the process wrote to stdout and stderr (including any past the hard cap). */
  totalBytes: number;
  /** Whether the hard cap (`maxOutputBytes`) was reached; bytes past it were discarded. */
  capped: boolean;
  /** The full output (up to the hard cap) when `inline` is an excerpt. Remove with `removeSpill`. */
  spillPath?: string;
}

export interface OutputLimits {
  maxOutputChars: number;
  maxOutputBytes: number;
}

const SPILL_PREFIX = 'toolgate-out-';

export class OutputCapture {
  private readonly headCap: number;
  private readonly tailCap: number;
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private stored = 0;
  private seen = 0;
  private capped = false;
  private waitingForDrain = false;
  private readonly streams: Readable[] = [];
  private readonly ended: Promise<void>[] = [];
  private overflowListener: (() => void) | undefined;

  private constructor(
    private readonly limits: OutputLimits,
    private readonly dir: string,
    private readonly file: fs.WriteStream,
    private onOutput: ((chunk: Buffer, stream: StreamName) => void) | undefined,
  ) {
    const perSide = Math.max(4 * limits.maxOutputChars, 1024);
    this.headCap = perSide;
    this.tailCap = perSide;
  }

  static async create(
    limits: OutputLimits,
    onOutput?: (chunk: Buffer, stream: StreamName) => void,
  ): Promise<OutputCapture | SandboxError> {
    try {
      const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), SPILL_PREFIX));
      const file = fs.createWriteStream(path.join(dir, 'output.txt'), { mode: 0o600, flags: 'wx' });
      await new Promise<void>((resolve, reject) => {
        file.once('open', () => resolve());
        file.once('error', reject);
      });
      return new OutputCapture(limits, dir, file, onOutput);
    } catch (err) {
      return sandboxError('internal', `cannot create the output spill file: ${describeThrown(err)}`);
    }
  }

  /** Called once, when the hard cap is reached: the owner should kill the writer. */
  onOverflow(listener: () => void): void {
    this.overflowListener = listener;
  }

  attach(stream: Readable, name: StreamName): void {
    this.streams.push(stream);
    this.ended.push(
      new Promise<void>((resolve) => {
        stream.once('close', resolve);
        stream.once('end', resolve);
        stream.once('error', () => resolve());
      }),
    );
    stream.on('data', (chunk: Buffer) => this.accept(chunk, name));
  }

  /** Stops reading (for pipes that a surviving process still holds open). */
  detach(): void {
    for (const stream of this.streams) stream.destroy();
  }

  /** Resolves when every attached stream has ended. */
  drained(): Promise<void> {
    return Promise.all(this.ended).then(() => undefined);
  }

  private accept(chunk: Buffer, name: StreamName): void {
    this.seen += chunk.length;
    if (this.capped) return;
    const room = this.limits.maxOutputBytes - this.stored;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    if (kept.length > 0) {
      this.stored += kept.length;
      this.keepHead(kept);
      this.keepTail(kept);
      if (this.onOutput) {
        try {
          this.onOutput(kept, name);
        } catch {
          // A failing listener must not take the capture (or the process) down with it.
          this.onOutput = undefined;
        }
      }
      if (!this.file.write(kept) && !this.waitingForDrain) {
        this.waitingForDrain = true;
        for (const s of this.streams) s.pause();
        this.file.once('drain', () => {
          this.waitingForDrain = false;
          for (const s of this.streams) s.resume();
        });
      }
    }
    if (chunk.length > room) {
      this.capped = true;
      // Keep reading (and discarding) so the writer is not blocked on a full pipe until killed.
      for (const s of this.streams) s.resume();
      this.overflowListener?.();
    }
  }

  private keepHead(chunk: Buffer): void {
    if (this.headBytes >= this.headCap) return;
    const part = chunk.subarray(0, this.headCap - this.headBytes);
    this.head.push(Buffer.from(part));
    this.headBytes += part.length;
  }

  private keepTail(chunk: Buffer): void {
    // No copy: every chunk of a pipe read owns its memory, and copying a gigabyte of chunks
    // only to drop them again doubles the garbage the collector has to catch up with.
    const part = chunk.length > this.tailCap ? chunk.subarray(chunk.length - this.tailCap) : chunk;
    this.tail.push(part);
    this.tailBytes += part.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= this.tailCap) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /**
   * Closes the spill file and builds what the model sees. `failed` picks the excerpt shape.
   * When everything fits inline, the spill file is removed at once.
   */
  async finish(failed: boolean): Promise<CapturedOutput> {
    await new Promise<void>((resolve) => this.file.end(resolve));
    const spillPath = path.join(this.dir, 'output.txt');
    const max = this.limits.maxOutputChars;
    const whole = this.stored <= this.headCap ? Buffer.concat(this.head).toString('utf8') : undefined;
    if (whole !== undefined && whole.length <= max && !this.capped) {
      await this.discard();
      return { inline: whole, truncated: false, totalBytes: this.seen, capped: false };
    }
    const headText = Buffer.concat(this.head).toString('utf8');
    const tailText = decodeTail(Buffer.concat(this.tail));
    const capNote = this.capped
      ? ` the output passed the ${this.limits.maxOutputBytes}-byte limit and was cut there;`
      : '';
    let inline: string;
    if (failed) {
      const marker = `\n… [${this.seen} bytes in total;${capNote} middle omitted; full output in ${spillPath}] …\n`;
      const budget = max - marker.length;
      inline =
        budget > 1
          ? safeSlice(headText, Math.ceil(budget / 2)) +
            marker +
            safeSliceEnd(tailText, Math.floor(budget / 2))
          : safeSlice(headText, max);
    } else {
      const marker = `\n… [${this.seen} bytes in total;${capNote} full output in ${spillPath}]`;
      const budget = max - marker.length;
      inline = budget > 0 ? safeSlice(headText, budget) + marker : safeSlice(headText, max);
    }
    return { inline, truncated: true, totalBytes: this.seen, capped: this.capped, spillPath };
  }

  /** Removes the spill directory (for calls that never produced a result). */
  async discard(): Promise<void> {
    if (!this.file.closed) await new Promise<void>((resolve) => this.file.end(resolve));
    await fs.promises.rm(this.dir, { recursive: true, force: true });
  }
}

/** Removes a spill file handed out in a result, and its private directory. */
export async function removeSpill(spillPath: string): Promise<void> {
  const dir = path.dirname(spillPath);
  // Only ever delete what this module created.
  if (path.dirname(dir) !== os.tmpdir() || !path.basename(dir).startsWith(SPILL_PREFIX)) return;
  await fs.promises.rm(dir, { recursive: true, force: true });
}

/** A tail buffer may start inside a UTF-8 sequence; skip the continuation bytes. */
function decodeTail(buffer: Buffer): string {
  let start = 0;
  while (start < 3 && start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start += 1;
  return buffer.subarray(start).toString('utf8');
}

/** The first `n` UTF-16 units, without splitting a surrogate pair. */
function safeSlice(text: string, n: number): string {
  if (n <= 0) return '';
  const end = isHighSurrogate(text.charCodeAt(n - 1)) ? n - 1 : n;
  return text.slice(0, end);
}

/** The last `n` UTF-16 units, without splitting a surrogate pair. */
function safeSliceEnd(text: string, n: number): string {
  if (n <= 0) return '';
  if (n >= text.length) return text;
  const start = text.length - n;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
