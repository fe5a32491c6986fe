import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TSX } from '../adapters/fixtures/proxy-process.js';
import { MAIN, runCli } from '../helpers/cli.js';

/**
 * Issue 19, Why bullet 12: "a lock file left by a killed writer stalls the next writer 30 s".
 * Through the real CLI, a writer is killed with SIGKILL at the two moments that leave a lock
 * behind: while it takes L's lock (strace kills it at the syscall that puts the lock in place)
 * and while it holds it (a `check --stdin` stream, frozen when its lock is there). The next
 * `toolgate check --log L` must go ahead at once (not wait 30 s for the lock to go stale, nor
 * give up), and `toolgate verify L` must pass.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-killed-writer-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const env = { TOOLGATE_LOG: '', TOOLGATE_LOG_KEY: '' };
const REQUEST = `${JSON.stringify({ tool: 'Bash', input: { command: 'ls -la' } })}\n`;
const recordsIn = (log: string) =>
  fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;

/** Runs a streaming writer on `log` and kills it while it holds the lock; resolves with its pid. */
async function killWhileHoldingLock(log: string): Promise<number> {
  const writer = spawn(process.execPath, ['--import', TSX, MAIN, 'check', '--stdin', '--log', log], {
    cwd: work,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  writer.stdin.on('error', () => undefined); // it is killed while we feed it
  const feed = setInterval(() => writer.stdin.write(REQUEST.repeat(20)), 5);
  const closed = new Promise((resolve) => writer.once('close', resolve));
  const lock = `${log}.lock`;
  const deadline = Date.now() + 45_000;
  try {
    // Mid-stream: some records are in before it is killed.
    while (recordsIn(log) < 20) {
      if (Date.now() > deadline) throw new Error('the writer wrote no records');
      await new Promise((r) => setTimeout(r, 20));
    }
    // Look often, and freeze it when the lock is there: if the lock is its own, kill it there.
    for (;;) {
      if (Date.now() > deadline) throw new Error('never caught the writer holding its lock');
      for (let i = 0; i < 5_000; i++) {
        if (!fs.existsSync(lock)) continue;
        process.kill(writer.pid!, 'SIGSTOP');
        let owner: { pid?: number } = {};
        try {
          owner = JSON.parse(fs.readFileSync(lock, 'utf8'));
        } catch {}
        if (owner.pid === writer.pid) {
          process.kill(writer.pid!, 'SIGKILL');
          return writer.pid!;
        }
        process.kill(writer.pid!, 'SIGCONT');
      }
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    clearInterval(feed);
    if (writer.exitCode === null && writer.signalCode === null) writer.kill('SIGKILL');
    await closed;
  }
}

/** How long `check --log LOG -- ls` takes; it must decide (exit 0) and append one record. */
async function timedCheck(log: string): Promise<number> {
  const before = recordsIn(log);
  const t = Date.now();
  const r = await runCli(['check', '--log', log, '--', 'ls'], { cwd: work, env });
  const ms = Date.now() - t;
  expect(r.code, r.stderr).toBe(0);
  expect(recordsIn(log)).toBe(before + 1);
  return ms;
}

const strace = spawnSync('strace', ['-V']).status === 0;

describe("a killed writer's lock, through the CLI (issue 19)", () => {
  it.skipIf(!strace)(
    'a writer killed while it takes the lock does not stall the next one',
    async () => {
      const log = path.join(work, 'taking.jsonl');
      // The same command on this log before anything is killed: how long it takes on this machine now.
      const baselineMs = await timedCheck(log);
      const run = spawnSync(
        'strace',
        // -P: only syscalls on the lock's own path, i.e. the one that puts the lock in place
        // (link() now; before, the write into the O_EXCL-created lock). KILL on entering it.
        [
          '-f',
          '-qq',
          '-o',
          '/dev/null',
          '-P',
          `${log}.lock`,
          '-e',
          'trace=write,link,linkat',
          '-e',
          'inject=write,link,linkat:signal=KILL',
          process.execPath,
          '--import',
          TSX,
          MAIN,
          'check',
          '--log',
          log,
          '--',
          'ls',
        ],
        { cwd: work, env: { ...process.env, ...env }, encoding: 'utf8' },
      );
      expect(run.stdout, 'the writer was not killed while taking its lock').toBe('');
      expect(recordsIn(log)).toBe(1);
      // Before: an empty lock file was left, and the next writer waited 30 s for it to go stale.
      const nextMs = await timedCheck(log);
      expect(nextMs - baselineMs).toBeLessThan(10_000);
      const verify = await runCli(['verify', log], { cwd: work, env });
      expect(verify.code, verify.stdout + verify.stderr).toBe(0);
    },
    120_000,
  );

  it('a writer killed while it holds the lock does not stall the next one', async () => {
    const log = path.join(work, 'holding.jsonl');
    const baselineMs = await timedCheck(path.join(work, 'fresh.jsonl'));
    const dead = await killWhileHoldingLock(log);
    const left = JSON.parse(fs.readFileSync(`${log}.lock`, 'utf8')) as { pid: number };
    expect(left.pid).toBe(dead);
    const nextMs = await timedCheck(log);
    // Its owner is gone, so the lock is broken at once rather than left to its 30 s staleness.
    expect(nextMs - baselineMs).toBeLessThan(10_000);
    expect(fs.existsSync(`${log}.lock`)).toBe(false);
    const verify = await runCli(['verify', log], { cwd: work, env });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  }, 120_000);
});
