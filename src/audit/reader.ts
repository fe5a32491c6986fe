/**
 * Reads a file as lines in large chunks, handing each line to a visitor as a view into the
 * chunk (no copy, no string), so that memory stays at one chunk plus the longest line
 * whatever the size of the log.
 */
import type { FileHandle } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Return false to stop reading. The line is only valid during the call. */
export type LineVisitor = (line: Buffer, lineNumber: number) => boolean;

export interface ReadSummary {
  /** Complete lines visited. */
  lines: number;
  stopped: boolean;
  /** Bytes after the last newline: a line whose write was cut off. */
  tornBytes: number;
}

const CHUNK = 1 << 20;
/** A writer may be mid-write when we reach the end; give it this long before calling the line torn. */
const SETTLE_MS = 20;

export async function readLines(file: FileHandle, visit: LineVisitor): Promise<ReadSummary> {
  let buf = Buffer.allocUnsafe(CHUNK);
  let filled = 0; // bytes in buf not yet handed out (the start of an unfinished line)
  let lines = 0;
  let settled = false;
  for (;;) {
    if (filled === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, filled);
      buf = bigger;
    }
    const { bytesRead } = await file.read(buf, filled, buf.length - filled, null);
    if (bytesRead === 0) {
      if (filled === 0 || settled) return { lines, stopped: false, tornBytes: filled };
      settled = true;
      await sleep(SETTLE_MS);
      continue;
    }
    settled = false;
    const end = filled + bytesRead;
    const view = buf.subarray(0, end);
    let start = 0;
    for (;;) {
      const nl = view.indexOf(0x0a, start);
      if (nl < 0) break;
      lines++;
      if (!visit(view.subarray(start, nl), lines)) return { lines, stopped: true, tornBytes: 0 };
      start = nl + 1;
    }
    buf.copy(buf, 0, start, end);
    filled = end - start;
  }
}
