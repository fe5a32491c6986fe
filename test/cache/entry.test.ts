import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { userCacheDir } from '../../src/cache/dir.js';
import { cacheFileName, pruneCacheDir, readCacheEntry, writeCacheEntry } from '../../src/cache/entry.js';

/**
 * A cache entry is read whole and checked (format, checksum, the exact key), or it is a miss;
 * writing one never throws.
 */
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-cache-entry-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let n = 0;
const fresh = () => path.join(base, `d${++n}`, 'entry.bin');

describe('cache entries', () => {
  it('give back what was written, in a private file', () => {
    const file = fresh();
    expect(writeCacheEntry(file, 'key ✓', 'payload ✓')).toBe(true);
    expect(readCacheEntry(file, 'key ✓')?.toString('utf8')).toBe('payload ✓');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file))).toEqual(['entry.bin']);
  });

  it('are a miss when missing, truncated, corrupt or of another format', () => {
    const file = fresh();
    expect(readCacheEntry(file, 'k')).toBeUndefined();
    writeCacheEntry(file, 'k', Buffer.alloc(1000, 7));
    const good = fs.readFileSync(file);
    fs.writeFileSync(file, good.subarray(0, good.length - 1));
    expect(readCacheEntry(file, 'k')).toBeUndefined();
    const otherFormat = Buffer.from(good);
    otherFormat[0] = 0x58;
    fs.writeFileSync(file, otherFormat);
    expect(readCacheEntry(file, 'k')).toBeUndefined();
    fs.writeFileSync(file, good);
    expect(readCacheEntry(file, 'k')?.length).toBe(1000);
  });

  it('are a miss when any byte after the format line changes (key, payload or checksum)', () => {
    const file = fresh();
    writeCacheEntry(file, 'the key', Buffer.alloc(300, 7));
    const good = fs.readFileSync(file);
    fc.assert(
      fc.property(
        fc.integer({ min: 'toolgate-cache 2\n'.length, max: good.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        (at, bits) => {
          const damaged = Buffer.from(good);
          damaged[at]! ^= bits;
          fs.writeFileSync(file, damaged);
          return readCacheEntry(file, 'the key') === undefined;
        },
      ),
      { numRuns: 200 },
    );
  });

  it('are a miss under any other key, even one whose file name is the same', () => {
    const file = fresh();
    writeCacheEntry(file, 'key one', 'one');
    expect(readCacheEntry(file, 'key two')).toBeUndefined();
    expect(readCacheEntry(file, 'key on')).toBeUndefined();
    expect(readCacheEntry(file, 'key one ')).toBeUndefined();
    expect(readCacheEntry(file, 'key one')?.toString()).toBe('one');
  });

  it('are a miss when others may write the file', () => {
    const file = fresh();
    writeCacheEntry(file, 'k', 'x');
    fs.chmodSync(file, 0o666);
    expect(readCacheEntry(file, 'k')).toBeUndefined();
  });

  it('cannot fail the caller: an unwritable place is just false', () => {
    const blocker = path.join(base, 'a-file');
    fs.writeFileSync(blocker, '');
    expect(writeCacheEntry(path.join(blocker, 'sub', 'entry.bin'), 'k', 'x')).toBe(false);
  });

  it('old entries and stray temporary files are pruned, the kept one stays', () => {
    const file = fresh();
    const dir = path.dirname(file);
    writeCacheEntry(file, 'k', 'keep');
    const old = path.join(dir, 'old.bin');
    const tmp = path.join(dir, 'x.bin.1-abc.tmp');
    const recent = path.join(dir, 'recent.bin');
    for (const f of [old, tmp, recent]) fs.writeFileSync(f, '');
    const past = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(old, past, past);
    fs.utimesSync(tmp, past, past);
    fs.utimesSync(file, past, past);
    pruneCacheDir(dir, 60 * 60 * 1000, file);
    expect(fs.readdirSync(dir).sort()).toEqual(['entry.bin', 'recent.bin']);
  });
});

describe('cacheFileName', () => {
  it('is 16 hex digits, the same for the same parts, and tells apart how the parts are split', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), (parts) => {
        const name = cacheFileName(parts);
        return /^[0-9a-f]{16}$/.test(name) && name === cacheFileName([...parts]);
      }),
    );
    expect(cacheFileName(['ab', 'c'])).not.toBe(cacheFileName(['a', 'bc']));
    expect(cacheFileName(['a'])).not.toBe(cacheFileName(['a', '']));
  });
});

describe('userCacheDir', () => {
  it('is $XDG_CACHE_HOME/toolgate, else ~/.cache/toolgate; TOOLGATE_CACHE=off turns it off', () => {
    expect(userCacheDir({ XDG_CACHE_HOME: '/x/cache', HOME: '/h' })).toBe('/x/cache/toolgate');
    expect(userCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' })).toBe('/h/.cache/toolgate');
    expect(userCacheDir({ HOME: '/h' })).toBe('/h/.cache/toolgate');
    expect(userCacheDir({ HOME: '/h', TOOLGATE_CACHE: 'off' })).toBeUndefined();
  });
});
