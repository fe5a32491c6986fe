import type { Readable } from 'node:stream';
import { SpillFile } from './spill-file.js';

export { removeSpill } from './spill-file.js';

/**
 * Output of a sandboxed process: stdout and stderr, interleaved as they arrive. Memory holds
 * only a bounded head and tail (about 4 bytes per inline character each, enough for any UTF-8);
 * everything past the head streams to a spill file (spill-file.ts) with backpressure on the
 * pipes, so a process that writes a gigabyte costs disk, not memory.
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
  private readonly streams: Readable[] = [];
  private readonly ended: Promise<void>[] = [];
  private overflowListener: (() => void) | undefined;
  private readonly spill: SpillFile;

  constructor(
    private readonly limits: OutputLimits,
    private onOutput?: (chunk: Buffer, stream: StreamName) => void,
  ) {
    const perSide = Math.max(4 * limits.maxOutputChars, 1024);
    this.headCap = perSide;
    this.tailCap = perSide;
    this.spill = new SpillFile(
      () => {
        for (const s of this.streams) s.pause();
      },
      () => {
        for (const s of this.streams) s.resume();
      },
    );
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
      const inHead = this.keepHead(kept);
      this.keepTail(kept);
      if (this.onOutput) {
        try {
          this.onOutput(kept, name);
        } catch {
          // A failing listener must not take the capture (or the process) down with it.
          this.onOutput = undefined;
        }
      }
      // Until output outgrows the head, the head *is* the output; past it, the file starts
      // with the head and continues with everything after.
      if (this.spill.started) this.spill.write(kept);
      else if (inHead < kept.length) this.spill.write(Buffer.concat([...this.head, kept.subarray(inHead)]));
    }
    if (chunk.length > room) {
      this.capped = true;
      // Keep reading (and discarding) so the writer is not blocked on a full pipe until killed.
      for (const s of this.streams) s.resume();
      this.overflowListener?.();
    }
  }

  /** Keeps the start of the output; returns how many bytes of `chunk` it took. */
  private keepHead(chunk: Buffer): number {
    if (this.headBytes >= this.headCap) return 0;
    const part = chunk.subarray(0, this.headCap - this.headBytes);
    // Copied: a small slice must not pin a whole pipe-read buffer for the life of the run.
    this.head.push(Buffer.from(part));
    this.headBytes += part.length;
    return part.length;
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
   * Builds what the model sees and closes the spill file. `failed` picks the excerpt shape.
   * The spill file exists only when the inline text is an excerpt.
   */
  async finish(failed: boolean): Promise<CapturedOutput> {
    const max = this.limits.maxOutputChars;
    const headText = Buffer.concat(this.head).toString('utf8');
    if (!this.spill.started && headText.length <= max && !this.capped) {
      return { inline: headText, truncated: false, totalBytes: this.seen, capped: false };
    }
    // Everything fit in the head but not inline (e.g. many short characters): save it too.
    if (!this.spill.started) this.spill.write(Buffer.concat(this.head));
    await this.spill.close();
    const spillPath = this.spill.path;
    const where = spillPath
      ? `full output in ${spillPath}`
      : `the full output could not be saved (${this.spill.failure})`;
    const tailText = decodeTail(Buffer.concat(this.tail));
    const capNote = this.capped
      ? ` the output passed the ${this.limits.maxOutputBytes}-byte limit and was cut there;`
      : '';
    let inline: string;
    if (failed) {
      const marker = `\n… [${this.seen} bytes in total;${capNote} middle omitted; ${where}] …\n`;
      const budget = max - marker.length;
      inline =
        budget > 1
          ? safeSlice(headText, Math.ceil(budget / 2)) +
            marker +
            safeSliceEnd(tailText, Math.floor(budget / 2))
          : safeSlice(headText, max);
    } else {
      const marker = `\n… [${this.seen} bytes in total;${capNote} ${where}]`;
      const budget = max - marker.length;
      inline = budget > 0 ? safeSlice(headText, budget) + marker : safeSlice(headText, max);
    }
    const result: CapturedOutput = { inline, truncated: true, totalBytes: this.seen, capped: this.capped };
    if (spillPath && this.spill.failure === undefined) result.spillPath = spillPath;
    return result;
  }

  /** The start of the output as text (at most the in-memory head), without finishing. */
  headText(): string {
    return Buffer.concat(this.head).toString('utf8');
  }

  /** Removes the spill file (for calls that never produced a result). */
  discard(): Promise<void> {
    return this.spill.remove();
  }
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
