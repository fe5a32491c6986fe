/**
 * The last line of a log file, found by reading backwards from the end, so that appending to
 * a large log costs the same as appending to a small one.
 */
import { readSync } from 'node:fs';

export type Tail =
  | { kind: 'empty' }
  /** The last line, without its newline. */
  | { kind: 'line'; line: Buffer }
  /** The file does not end in a newline: the last write was cut off. */
  | { kind: 'torn' };

/** Enough for a typical record in one read; longer last lines take more reads. */
const FIRST_READ = 8 * 1024;

export function readTail(fd: number, size: number): Tail {
  if (size === 0) return { kind: 'empty' };
  let start = Math.max(0, size - FIRST_READ);
  let buf = readAt(fd, start, size - start);
  if (buf[buf.length - 1] !== 0x0a) return { kind: 'torn' };
  for (;;) {
    // buf covers [start, size); the last line ends at size - 1 and starts after the newline before it.
    const nl = buf.lastIndexOf(0x0a, buf.length - 2);
    if (nl >= 0) return { kind: 'line', line: buf.subarray(nl + 1, buf.length - 1) };
    if (start === 0) return { kind: 'line', line: buf.subarray(0, buf.length - 1) };
    const earlier = Math.max(0, start - buf.length); // double what we hold each time
    buf = Buffer.concat([readAt(fd, earlier, start - earlier), buf]);
    start = earlier;
  }
}

function readAt(fd: number, position: number, length: number): Buffer {
  const into = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, done, length - done, position + done);
    if (n === 0) throw new Error(`the file shrank while its tail was read (at byte ${position + done})`);
    done += n;
  }
  return into;
}
