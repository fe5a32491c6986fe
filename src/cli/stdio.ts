import fs from 'node:fs';
import type { CliIO } from './io.js';

/**
 * All of stdin as text, refused beyond `max` bytes: io.input when the caller read it already,
 * else from the process's own descriptor when the CLI has one (a blocking read to the end, no
 * stream), else from the stream; a descriptor that would block (non-blocking stdin) hands the
 * rest over to the stream.
 */
export async function readStdin(io: CliIO, max: number, what: string): Promise<string> {
  if (io.input !== undefined) {
    if (Buffer.byteLength(io.input) > max) throw new Error(`${what} is larger than ${max} bytes`);
    return io.input;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  const add = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > max) throw new Error(`${what} is larger than ${max} bytes`);
    chunks.push(chunk);
  };
  if (io.fds !== undefined) {
    const buffer = Buffer.allocUnsafe(64 * 1024);
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(io.fds.stdin, buffer, 0, buffer.length, null);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') break;
        if (code !== 'EOF') throw err;
        n = 0;
      }
      if (n === 0) return Buffer.concat(chunks).toString('utf8');
      add(Buffer.from(buffer.subarray(0, n)));
    }
  }
  for await (const chunk of io.stdin) add(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes text to stdout: to the process's own descriptor when there is one, else to the stream. */
export function writeStdout(io: CliIO, text: string): void {
  if (io.fds === undefined) {
    io.stdout.write(text);
    return;
  }
  const bytes = Buffer.from(text);
  let written = 0;
  try {
    while (written < bytes.length) written += fs.writeSync(io.fds.stdout, bytes, written);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    io.stdout.write(bytes.subarray(written));
  }
}
