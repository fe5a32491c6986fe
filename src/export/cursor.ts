/**
 * How far a log has been exported: `LOG.exported`, beside the log and its checkpoint. Every
 * process that writes the log with export on reads it, ships what comes after it and moves it
 * (under `LOG.exported.lock`), so the log file itself is the export queue: nothing that was
 * acknowledged locally is lost while the collector is down, whichever process wrote it, and
 * memory does not grow with the outage.
 */
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { GENESIS, HEX64 } from '../audit/format.js';

export interface Cursor {
  v: 1;
  /** The last exported record (0: none yet)... */
  seq: number;
  /** ...its hash (GENESIS when none)... */
  hash: string;
  /** ...and the byte offset right after its line. */
  offset: number;
  /** The log file's inode the offset belongs to (0 before the first export). */
  ino: number;
  /** The count of the last checkpoint exported (0: none). */
  checkpoint: number;
  /** Sends that failed in a row, and when (ms since the epoch) the next may be tried. */
  failures?: number;
  retryAt?: number;
}

export function cursorPathOf(logPath: string): string {
  return `${logPath}.exported`;
}

export const START: Cursor = { v: 1, seq: 0, hash: GENESIS, offset: 0, ino: 0, checkpoint: 0 };

/** The cursor, START when there is none; a cursor file that is not one is an error to say. */
export function readCursor(path: string): Cursor {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return START;
    throw err;
  }
  const c = JSON.parse(text) as Partial<Cursor>;
  const count = (n: unknown) => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
  if (
    c.v !== 1 ||
    !count(c.seq) ||
    !count(c.offset) ||
    !count(c.ino) ||
    !count(c.checkpoint) ||
    (c.failures !== undefined && !count(c.failures)) ||
    (c.retryAt !== undefined && !count(c.retryAt)) ||
    typeof c.hash !== 'string' ||
    !HEX64.test(c.hash)
  ) {
    throw new Error(`${path} is not an export cursor`);
  }
  return c as Cursor;
}

/** Atomically (temp file + rename): a crash leaves the old cursor, so records go out again, never missing. */
export function writeCursor(path: string, cursor: Cursor): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(cursor)}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
}
