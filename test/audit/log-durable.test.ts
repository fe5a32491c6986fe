import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { DecisionLog } from '../../src/audit/log.js';
import { verifyLog } from '../../src/audit/verify.js';
import { readLines, sampleEntry, tempDir } from './fixtures/sample.js';

/**
 * A durable log (#18 item 2, #20): an append is acknowledged only once fdatasync(2) has
 * returned for its batch, and appends that arrive while a flush runs leave together in the
 * next batch (one flush for many records). fdatasync is held back by a spy so that "not yet
 * flushed" is a state the test can look at.
 */
const t = tempDir();
afterAll(() => t.cleanup());
const real = fs.fdatasync;
afterEach(() => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
});

/** fdatasync calls wait until the test lets them go (or fail with `error`). */
function holdFlushes(error?: NodeJS.ErrnoException) {
  const waiting: (() => void)[] = [];
  let calls = 0;
  vi.spyOn(fs, 'fdatasync').mockImplementation(((
    fd: number,
    cb: (err: NodeJS.ErrnoException | null) => void,
  ) => {
    calls++;
    waiting.push(() => (error ? cb(error) : real(fd, cb)));
  }) as typeof fs.fdatasync);
  syncBuiltinESMExports();
  return {
    calls: () => calls,
    release: () => {
      for (const go of waiting.splice(0)) go();
    },
  };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('durable decision log', () => {
  it('acknowledges a record only after its flush, and flushes what arrived meanwhile in one batch', async () => {
    const path = join(t.dir, 'a.jsonl');
    const flushes = holdFlushes();
    const log = await DecisionLog.open(path, {
      grammarVersion: '0.25.1',
      durable: true,
      checkpointPath: `${path}.cp`,
    });
    const acked: number[] = [];
    const first = log.append(sampleEntry(0)).then((r) => acked.push(r.seq));
    await tick();
    expect(flushes.calls()).toBe(1);
    expect(readLines(path)).toHaveLength(1); // written, not yet flushed...
    expect(acked).toEqual([]); // ...so not acknowledged
    // 63 more decisions while the first flush runs: they wait for the next batch.
    const rest = Array.from({ length: 63 }, (_, i) =>
      log.append(sampleEntry(i + 1)).then((r) => acked.push(r.seq)),
    );
    await tick();
    expect(flushes.calls()).toBe(1);
    expect(acked).toEqual([]);
    flushes.release();
    await first;
    await tick();
    expect(flushes.calls()).toBe(2); // one flush for the 63
    expect(acked).toEqual([1]);
    flushes.release();
    await Promise.all(rest);
    expect(acked).toHaveLength(64);
    await log.close();
    expect(await verifyLog(path, { checkpointPath: `${path}.cp` })).toMatchObject({ ok: true, count: 64 });
  });

  it('a flush that fails acknowledges nothing of its batch', async () => {
    const path = join(t.dir, 'b.jsonl');
    const flushes = holdFlushes(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const log = await DecisionLog.open(path, { grammarVersion: '0.25.1', durable: true });
    const appends = Array.from({ length: 3 }, (_, i) => log.append(sampleEntry(i)));
    await tick();
    flushes.release();
    for (const a of appends)
      await expect(a).rejects.toThrow(
        /records 1\.\.3 were written but could not be flushed .* not acknowledged/,
      );
    await log.close();
  });
});
