import fs from 'node:fs';
import path from 'node:path';
import { checksum64 } from './checksum.js';

/**
 * One cache file: a format line, a checksum of the rest (checksum.ts), the length of the key it
 * was stored under, the key and the payload. A read checks the format, the checksum, that the stored key is exactly the key asked
 * for, and that the file is the user's own and writable by nobody else; anything else
 * (missing, truncated, corrupt, another key, foreign) is a miss, never an error. A write goes
 * to a private temporary file, flushed, then renamed into place, so readers see a whole entry
 * or none; it never throws: a cache must not fail the work it speeds up.
 *
 * No sha256 here: a hook process starts for every tool call, and node:crypto costs it more to
 * load than the decision. The checksum is against damage, not against an attacker: whoever can
 * write the user's cache directory can write a matching checksum too (and the user's code).
 * V8 checks nothing of its code cache's body by itself in release builds.
 * Keys are compared whole, so a file name (see cacheFileName) only has to spread entries out.
 */
const MAGIC = Buffer.from('toolgate-cache 2\n');
const HEADER = MAGIC.length + 12;
const KEY_LENGTH_AT = MAGIC.length + 8;

export function readCacheEntry(file: string, key: string): Buffer | undefined {
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
    if (checksum64(data.subarray(MAGIC.length + 8)) !== data.readBigUInt64LE(MAGIC.length)) return undefined;
    const keyBytes = Buffer.from(key);
    const keyEnd = HEADER + data.readUInt32LE(KEY_LENGTH_AT);
    if (keyEnd > data.length || !data.subarray(HEADER, keyEnd).equals(keyBytes)) return undefined;
    return data.subarray(keyEnd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

let writes = 0;

/** Writes an entry atomically; false (and nothing left behind) when it could not. */
export function writeCacheEntry(file: string, key: string, payload: Buffer | string): boolean {
  const keyBytes = Buffer.from(key);
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  // Unique within this process by the counter, across processes by the pid; 'wx' refuses a clash.
  const tmp = `${file}.${process.pid}-${Date.now().toString(36)}-${++writes}.tmp`;
  let fd: number | undefined;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const entry = Buffer.concat([MAGIC, Buffer.alloc(12), keyBytes, body]);
    entry.writeUInt32LE(keyBytes.length, KEY_LENGTH_AT);
    entry.writeBigUInt64LE(checksum64(entry.subarray(MAGIC.length + 8)), MAGIC.length);
    fd = fs.openSync(tmp, 'wx', 0o600);
    fs.writeFileSync(fd, entry);
    // On disk before the name is: a crash cannot leave a torn entry under the real name.
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
    return true;
  } catch {
    try {
      if (fd !== undefined) fs.closeSync(fd);
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing to clean up
    }
    return false;
  }
}

/**
 * A short file name for an entry whose key is `parts`: the checksum of their JSON, in hex. A
 * clash only makes two keys share a file, each a miss for the other.
 */
export function cacheFileName(parts: readonly string[]): string {
  return checksum64(Buffer.from(JSON.stringify(parts)))
    .toString(16)
    .padStart(16, '0');
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
