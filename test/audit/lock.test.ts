import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { AuditError } from '../../src/audit/error.js';
import { FileLock } from '../../src/audit/lock.js';
import { tempDir } from './fixtures/sample.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let path = '';
beforeEach(() => {
  path = join(t.dir, `${++n}.lock`);
});

const owner = (pid: number, since = Date.now(), host = hostname()) =>
  JSON.stringify({ pid, host, nonce: 'theirs', since });
/** A pid that has just exited, so nothing runs under it (pid reuse this fast is not a concern here). */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('FileLock', () => {
  it('creates the lock file with its owner, and removes it on release', async () => {
    const lock = await FileLock.acquire(path);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    expect(lock.holds()).toBe(true);
    lock.release();
    expect(existsSync(path)).toBe(false);
  });

  it('admits one holder at a time', async () => {
    let holders = 0;
    let most = 0;
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        const lock = await FileLock.acquire(path);
        holders++;
        most = Math.max(most, holders);
        await sleep(1);
        holders--;
        lock.release();
      }),
    );
    expect(most).toBe(1);
  });

  it('makes a second taker wait for the release', async () => {
    const events: string[] = [];
    const first = await FileLock.acquire(path);
    const second = FileLock.acquire(path).then((lock) => {
      events.push('second acquired');
      return lock;
    });
    await sleep(30);
    events.push('first released');
    first.release();
    (await second).release();
    expect(events).toEqual(['first released', 'second acquired']);
  });

  it('breaks a lock whose owner on this host is no longer running', async () => {
    writeFileSync(path, owner(deadPid()));
    const lock = await FileLock.acquire(path, { timeoutMs: 5_000 });
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('breaks at once a lock whose owner was killed and is a zombie its parent has not reaped yet', async () => {
    // The child exits after sh has become `sleep`, which never reaps it.
    const sh = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 5'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const zombie = Number((await once(sh.stdout, 'data'))[0].toString().trim());
    try {
      for (let i = 0; i < 200 && !/\) Z /.test(readFileSync(`/proc/${zombie}/stat`, 'latin1')); i++)
        await sleep(10);
      expect(readFileSync(`/proc/${zombie}/stat`, 'latin1')).toMatch(/\) Z /);
      writeFileSync(path, owner(zombie));
      const started = Date.now();
      const lock = await FileLock.acquire(path, { timeoutMs: 5_000, staleMs: 30_000 });
      expect(Date.now() - started).toBeLessThan(5_000);
      lock.release();
    } finally {
      sh.kill('SIGKILL');
    }
  });

  it('breaks at once a lock whose pid now belongs to another process (its start time differs)', async () => {
    writeFileSync(path, JSON.stringify({ ...JSON.parse(owner(process.ppid)), start: 1 }));
    const lock = await FileLock.acquire(path, { timeoutMs: 5_000, staleMs: 30_000 });
    expect(JSON.parse(readFileSync(path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('writes its start time and pid namespace, and keeps a lock whose owner is that very process', async () => {
    const mine = await FileLock.acquire(path);
    const written = JSON.parse(readFileSync(path, 'utf8'));
    expect(written.start).toEqual(expect.any(Number));
    expect(written.ns).toMatch(/^pid:/);
    const err = await FileLock.acquire(path, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect((err as AuditError).kind).toBe('lock-timeout');
    mine.release();
  });

  it('leaves a lock of an owner in another pid namespace to staleMs (its pid means nothing here)', async () => {
    writeFileSync(path, JSON.stringify({ ...JSON.parse(owner(deadPid())), ns: 'pid:[1]' }));
    const err = await FileLock.acquire(path, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect((err as AuditError).kind).toBe('lock-timeout');
  });

  it('breaks a lock older than staleMs even if its owner looks alive (pid reuse, another host)', async () => {
    writeFileSync(path, owner(process.pid, Date.now() - 60_000, 'another-host'));
    const lock = await FileLock.acquire(path, { timeoutMs: 5_000, staleMs: 30_000 });
    lock.release();
  });

  it('breaks an old lock file its creator never finished writing', async () => {
    writeFileSync(path, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    const lock = await FileLock.acquire(path, { timeoutMs: 5_000, staleMs: 30_000 });
    lock.release();
  });

  it('does not break a fresh lock of a live owner, and says who holds it when it gives up', async () => {
    const theirs = owner(process.ppid, Date.now(), 'another-host');
    writeFileSync(path, theirs);
    const err = await FileLock.acquire(path, { timeoutMs: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AuditError);
    expect((err as AuditError).kind).toBe('lock-timeout');
    expect((err as AuditError).message).toContain(`pid ${process.ppid} on another-host`);
    expect(readFileSync(path, 'utf8')).toBe(theirs);
  });

  it("knows when its lock was taken over, and then leaves the new owner's file alone", async () => {
    const lock = await FileLock.acquire(path);
    // What a waiter that judged us stale does: remove our file, create its own.
    unlinkSync(path);
    const theirs = owner(process.ppid);
    writeFileSync(path, theirs);
    expect(lock.holds()).toBe(false);
    lock.release();
    expect(readFileSync(path, 'utf8')).toBe(theirs);
  });

  it('waits out a breaker that is breaking the same stale lock right now', async () => {
    writeFileSync(path, owner(deadPid()));
    writeFileSync(`${path}.break`, String(process.ppid));
    const pending = FileLock.acquire(path, { timeoutMs: 5_000 });
    await sleep(30);
    expect(existsSync(`${path}.break`)).toBe(true);
    unlinkSync(`${path}.break`); // the other breaker finishes
    (await pending).release();
  });

  // strace's fault injection kills the writer at the exact syscall that puts its lock in
  // place (the write into an O_EXCL-created lock before, the link() now): a writer killed
  // there must not leave a lock that stalls the next one until staleMs.
  const strace = spawnSync('strace', ['-V']).status === 0;
  it.skipIf(!strace)(
    'a writer killed while it takes the lock does not stall the next writer',
    async () => {
      const script = join(t.dir, `taker-${n}.mts`);
      writeFileSync(
        script,
        `import { FileLock } from ${JSON.stringify(join(import.meta.dirname, '../../src/audit/lock.ts'))};\n` +
          `await FileLock.acquire(${JSON.stringify(path)});\nconsole.log('took it');\n`,
      );
      const tsx = join(import.meta.dirname, '../../node_modules/tsx/dist/esm/index.mjs');
      const killed = spawnSync(
        'strace',
        [
          '-f',
          '-qq',
          '-o',
          '/dev/null',
          '-P',
          path,
          '-e',
          'trace=write,link,linkat',
          '-e',
          'inject=write,link,linkat:signal=KILL',
          process.execPath,
          '--import',
          tsx,
          script,
        ],
        { encoding: 'utf8' },
      );
      expect(killed.stdout).not.toContain('took it');
      const lock = await FileLock.acquire(path, { timeoutMs: 3_000, staleMs: 30_000 });
      expect(lock.holds()).toBe(true);
      lock.release();
    },
    120_000,
  );
});
