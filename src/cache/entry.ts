import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * One cache file: a format line, the sha256 of the payload, the payload. A read checks all
 * three and that the file is the user's own and writable by nobody else; anything else
 * (missing, truncated, corrupt, foreign) is a miss, never an error. A write goes to a private
 * temporary file renamed into place, so readers see a whole entry or none; it never throws:
 * a cache must not fail the work it speeds up.
 */
const MAGIC = Buffer.from('toolgate-cache 1\n');
const HEADER = MAGIC.length + 32;

export function readCacheEntry(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || (stat.mode & 0o022) !== 0) return undefined;
    if (process.getuid !== undefined && stat.uid !== process.getuid()) return undefined;
    const data = Buffer.allocUnsafe(stat.size);
    let read = 0;
    while (read < data.length) {
      const n = fs.readSync(fd, data, read, data.length - read, read);
      if (n === 0) return undefined;
      read += n;
    }
    if (data.length < HEADER || !data.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const payload = data.subarray(HEADER);
    const digest = createHash('sha256').update(payload).digest();
    return digest.equals(data.subarray(MAGIC.length, HEADER)) ? payload : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Writes an entry atomically; false (and nothing left behind) when it could not. */
export function writeCacheEntry(file: string, payload: Buffer | string): boolean {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  const tmp = `${file}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const digest = createHash('sha256').update(body).digest();
    fs.writeFileSync(tmp, Buffer.concat([MAGIC, digest, body]), { flag: 'wx', mode: 0o600 });
    fs.renameSync(tmp, file);
    return true;
  } catch {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing to clean up
    }
    return false;
  }
}

/**
 * Removes entries of `dir` not written for `maxAgeMs` (and temporary files a crash left), so
 * old builds and edited policies do not pile up. Called after a write, never on the fast path.
 */
export function pruneCacheDir(dir: string, maxAgeMs: number, keep?: string): void {
  try {
    const now = Date.now();
    for (const name of fs.readdirSync(dir)) {
      const file = path.join(dir, name);
      if (file === keep) continue;
      try {
        const stat = fs.lstatSync(file);
        const age = now - stat.mtimeMs;
        if (stat.isFile() && (age > maxAgeMs || (name.endsWith('.tmp') && age > 60 * 60 * 1000)))
          fs.rmSync(file);
      } catch {
        // raced with another process: fine
      }
    }
  } catch {
    // no directory, no permission: nothing to prune
  }
}
