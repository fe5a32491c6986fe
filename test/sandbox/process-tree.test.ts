import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { findRunProcesses, RUN_ID_VARIABLE, terminateRun } from '../../src/sandbox/process-tree.js';
import { commandOf, isAlive, pidsWithEnv } from './fixture.js';

/** Trees a test started, killed afterwards even when the test failed half-way. */
const started: { runId: string; pgid?: number }[] = [];
afterEach(async () => {
  for (const tree of started.splice(0)) await terminateRun({ ...tree, graceMs: 0 });
});

/** Starts a detached, tagged bash and waits until it has printed one pid per background child. */
async function startTree(script: string, children: number) {
  const runId = randomUUID();
  const child = spawn('bash', ['-c', script], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { PATH: process.env.PATH, [RUN_ID_VARIABLE]: runId },
  });
  started.push({ runId, pgid: child.pid });
  let text = '';
  child.stdout.on('data', (c: Buffer) => {
    text += c.toString();
  });
  while (text.trim().split('\n').filter(Boolean).length < children) await once(child.stdout, 'data');
  const pids = text.trim().split('\n').map(Number);
  // A background child is forked before it execs; wait until each one runs its real program.
  while (!pids.every((pid) => commandOf(pid) === 'sleep')) await new Promise((r) => setImmediate(r));
  return { runId, pgid: child.pid!, pids, child };
}

describe('finding and killing a run', () => {
  it('finds group members and tagged processes that left the group', async () => {
    const { runId, pgid, pids } = await startTree(
      'sleep 100 & echo $!; setsid sleep 100 & echo $!; ( trap "" TERM; exec sleep 100 ) & echo $!; wait',
      3,
    );
    const found = findRunProcesses(runId, pgid).map((p) => p.pid);
    expect(found).toEqual(expect.arrayContaining([pgid, ...pids]));
    // Without the group id, the tag alone still finds the setsid child.
    expect(findRunProcesses(runId).map((p) => p.pid)).toEqual(expect.arrayContaining(pids));

    const outcome = await terminateRun({ runId, pgid, graceMs: 300 });
    expect(outcome.survivors).toEqual([]);
    for (const pid of [pgid, ...pids]) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(pidsWithEnv(RUN_ID_VARIABLE, runId)).toEqual([]);
    const killedPids = outcome.killed.map((p) => p.pid);
    expect(killedPids).toEqual(expect.arrayContaining([pgid, ...pids]));
    // The one that ignores SIGTERM needed SIGKILL; it is reported with its command name.
    expect(outcome.killed.find((p) => p.pid === pids[2])).toMatchObject({
      command: 'sleep',
      signal: 'SIGKILL',
    });
  });

  it('finds a process whose environment hides a decoy of the tag before the real one', async () => {
    const runId = randomUUID();
    const env = [
      'env',
      '-i',
      `A=x${RUN_ID_VARIABLE}=${runId}`,
      `${RUN_ID_VARIABLE}=${runId}`,
      'sleep',
      '100',
    ];
    const child = spawn(env[0]!, env.slice(1), { stdio: 'ignore', detached: true });
    started.push({ runId });
    while (commandOf(child.pid!) !== 'sleep') await new Promise((r) => setImmediate(r));
    expect(findRunProcesses(runId).map((p) => p.pid)).toEqual([child.pid]);
    const outcome = await terminateRun({ runId, graceMs: 300 });
    expect(outcome.killed.map((p) => p.pid)).toEqual([child.pid]);
    expect(isAlive(child.pid!)).toBe(false);
  });

  it('reports nothing when nothing of the run is alive', async () => {
    const outcome = await terminateRun({ runId: randomUUID(), graceMs: 100 });
    expect(outcome).toEqual({ killed: [], survivors: [] });
  });
});
