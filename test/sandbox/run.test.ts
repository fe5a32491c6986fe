import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxProfile } from '../../src/policy/obligations.js';
import type { SandboxError } from '../../src/sandbox/error.js';
import { removeSpill } from '../../src/sandbox/output.js';
import { RUN_ID_VARIABLE } from '../../src/sandbox/process-tree.js';
import { type RunRequest, type RunResult, runSandboxed } from '../../src/sandbox/run.js';
import { bundleInto } from '../helpers/bundle.js';
import { isAlive, pidsWithEnv, profileFor, settledPids, type TempTree, tempTree } from './fixture.js';

/**
 * Without OS isolation (`os: 'off'`): process groups, the run tag and the output pipeline alone.
 * bwrap.test.ts runs the same kind of scenarios inside bubblewrap.
 */
let t: TempTree;
let ws: string;
let spills: string[] = [];

beforeEach(() => {
  t = tempTree();
  ws = t.dir('ws');
  spills = [];
});
afterEach(async () => {
  for (const spill of spills) await removeSpill(spill);
  t.cleanup();
});

async function ok(request: Partial<RunRequest> & { profile?: SandboxProfile }): Promise<RunResult> {
  const result = await runSandboxed({ cwd: ws, profile: profileFor([ws]), ...request } as RunRequest);
  if (!result.ok) throw new Error(`${result.kind}: ${result.message}`);
  if (result.output.spillPath) spills.push(result.output.spillPath);
  return result;
}

async function fails(request: Partial<RunRequest>): Promise<SandboxError> {
  const result = await runSandboxed({ cwd: ws, profile: profileFor([ws]), ...request } as RunRequest);
  if (result.ok) throw new Error('expected a sandbox error');
  return result;
}

describe('running a command', () => {
  it('runs argv and scripts in the cwd and reports exit codes', async () => {
    const a = await ok({ argv: ['pwd'] });
    expect(a).toMatchObject({ exitCode: 0, timedOut: false, aborted: false, isolation: 'none', killed: [] });
    // No isolation by the policy's own choice is recorded in `isolation`, not told on every call.
    expect(a.notes).toEqual([]);
    expect(a.output.inline).toBe(`${ws}\n`);
    const b = await ok({ script: 'echo out; echo err >&2; exit 3' });
    expect(b.exitCode).toBe(3);
    expect(b.output.inline).toContain('out\n');
    expect(b.output.inline).toContain('err\n');
  });

  it('passes only the allowed environment, plus the run tag', async () => {
    const r = await ok({
      argv: ['env'],
      env: {
        PATH: process.env.PATH,
        HOME: '/h',
        GITHUB_TOKEN: 'ghp_secret',
        EDITOR: 'vi',
        SECRET_THING: 'x',
      },
      profile: profileFor([ws], { envAllow: ['EDITOR', 'GITHUB_*', 'SECRET_*'] }),
    });
    const lines = r.output.inline.trim().split('\n').sort();
    expect(lines).toEqual(
      ['EDITOR=vi', 'HOME=/h', `PATH=${process.env.PATH}`, `${RUN_ID_VARIABLE}=${r.runId}`].sort(),
    );
    expect(r.notes.join(' ')).toContain('GITHUB_TOKEN');
  });
});

describe('deadlines and process trees', () => {
  it('kills a sleep tree with &, nohup and setsid children at the deadline; nothing survives', async () => {
    const r = await ok({
      script:
        'sleep 100 & echo $!; nohup sleep 100 >/dev/null 2>&1 & echo $!; setsid sleep 100 & echo $!; ( trap "" TERM; exec sleep 100 ) & echo $!; wait',
      profile: profileFor([ws], { timeoutMs: 1000 }),
      killGraceMs: 300,
    });
    expect(r.timedOut).toBe(true);
    const pids = r.output.inline.trim().split('\n').map(Number);
    expect(pids).toHaveLength(4);
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(pidsWithEnv(RUN_ID_VARIABLE, r.runId)).toEqual([]);
    expect(r.killed.map((p) => p.pid)).toEqual(expect.arrayContaining(pids));
    expect(r.killed.filter((p) => p.command === 'sleep')).toHaveLength(4);
    expect(r.killed.find((p) => p.pid === pids[3])?.signal).toBe('SIGKILL');
    expect(r.notes.join(' ')).toMatch(/did not finish within 1000 ms/);
  });

  it('kills background processes left running when the command exits', async () => {
    const r = await ok({ script: 'setsid sleep 100 & echo $!' });
    expect(r.exitCode).toBe(0);
    const pid = Number(r.output.inline.trim());
    expect(isAlive(pid)).toBe(false);
    expect(r.killed.map((p) => p.pid)).toEqual([pid]);
    expect(r.notes.join(' ')).toMatch(/still running after the command exited/);
  });

  it('stops the run when the signal aborts', async () => {
    const controller = new AbortController();
    const r = await ok({
      script: 'echo ready; sleep 100',
      signal: controller.signal,
      onOutput: (chunk) => {
        if (chunk.toString().includes('ready')) controller.abort();
      },
    });
    expect(r).toMatchObject({ aborted: true, timedOut: false });
    expect(r.killed.length).toBeGreaterThan(0);
    expect(pidsWithEnv(RUN_ID_VARIABLE, r.runId)).toEqual([]);
  });
});

describe('when toolgate itself dies', () => {
  it('takes the runs in progress with it (an uncaught exception mid-run)', async () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'crash-during-run.ts'), 'off', ws],
      { encoding: 'utf8', cwd: process.cwd() },
    );
    expect(child.stderr).toContain('toolgate crashed');
    const runId = child.stdout.trim();
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    // Without OS isolation nothing else would ever kill these sleeps.
    expect(await settledPids(runId)).toEqual([]);
  });
});

describe('output caps', () => {
  it('kills a runaway writer at the hard cap and says so', async () => {
    const r = await ok({
      argv: ['yes'],
      profile: profileFor([ws], { maxOutputBytes: 5_000_000, maxOutputChars: 2000 }),
    });
    expect(r.output).toMatchObject({ capped: true, truncated: true });
    expect(fs.statSync(r.output.spillPath!).size).toBe(5_000_000);
    expect(r.output.inline.length).toBeLessThanOrEqual(2000);
    expect(r.killed.map((p) => p.command)).toContain('yes');
    expect(r.notes.join(' ')).toMatch(/more than 5000000 bytes/);
  });

  it('streams 1 GB of output to disk without memory growth', async () => {
    const profile = profileFor([ws], { maxOutputBytes: 2_000_000_000, timeoutMs: 120_000 });
    // Warm up first: the first streaming run grows allocator arenas and V8's external-memory
    // budget once; what must not happen is growth with the amount of output.
    await ok({ script: 'head -c 100000000 /dev/zero', profile });
    const before = process.memoryUsage.rss();
    let peak = before;
    let chunks = 0;
    const r = await ok({
      script: 'head -c 1000000000 /dev/zero',
      profile,
      onOutput: () => {
        chunks += 1;
        if (chunks % 64 === 0) peak = Math.max(peak, process.memoryUsage.rss());
      },
    });
    expect(r.exitCode).toBe(0);
    expect(r.output).toMatchObject({ totalBytes: 1_000_000_000, capped: false, truncated: true });
    expect(fs.statSync(r.output.spillPath!).size).toBe(1_000_000_000);
    expect(peak - before, 'RSS growth in bytes').toBeLessThan(50 * 1024 * 1024);
  });
});

describe('bad input: a clear error and no process', () => {
  const marker = () => path.join(t.root, 'marker');
  const touch = () => `touch ${marker()}`;

  it.each([
    ['a nonexistent cwd', () => ({ cwd: path.join(t.root, 'missing') }), 'invalid-cwd', /does not exist/],
    ['a cwd that is a file', () => ({ cwd: t.file('f') }), 'invalid-cwd', /not a directory/],
    ['a relative cwd', () => ({ cwd: 'ws' }), 'invalid-cwd', /not an absolute path/],
    [
      'a writable root that does not exist',
      () => ({ profile: profileFor([ws, path.join(t.root, 'gone')]) }),
      'invalid-root',
      /writable root .* does not exist/,
    ],
    [
      'a readable root that does not exist',
      () => ({ profile: profileFor([ws], { readableRoots: [path.join(t.root, 'gone')] }) }),
      'invalid-root',
      /readable root .* does not exist/,
    ],
    [
      'a malformed profile',
      () => ({ profile: profileFor([ws], { timeoutMs: Number.NaN }) }),
      'invalid-profile',
      /timeoutMs/,
    ],
    [
      'an invalid deny glob',
      () => ({ profile: profileFor([ws], { readDeny: ['not/absolute'] }) }),
      'invalid-profile',
      /readDeny/,
    ],
    ['both argv and script', () => ({ argv: ['true'] }), 'invalid-request', /exactly one/],
    [
      'os required without a working bwrap',
      () => ({ profile: profileFor([ws], { os: 'required' }), bwrapPath: '/nonexistent/bwrap' }),
      'isolation-unavailable',
      /sandbox\.os is required/,
    ],
  ] as const)('%s', async (_, request, kind, message) => {
    const error = await fails({ script: touch(), ...request() });
    expect(error.kind).toBe(kind);
    expect(error.message).toMatch(message);
    expect(fs.existsSync(marker())).toBe(false);
  });

  it('an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await fails({ script: touch(), signal: controller.signal });
    expect(error.kind).toBe('aborted');
    expect(fs.existsSync(marker())).toBe(false);
  });

  it('a program that does not exist', async () => {
    const error = await fails({ argv: [path.join(t.root, 'no-such-program')] });
    expect(error).toMatchObject({ kind: 'spawn-failed' });
  });

  it('a root this user cannot read (checked as an unprivileged user)', () => {
    fs.chmodSync(t.root, 0o755);
    fs.chmodSync(ws, 0o777);
    const locked = t.dir('locked');
    fs.chmodSync(locked, 0o000);
    // The marker goes where the unprivileged user could write it, so only the check can stop it.
    const wsMarker = path.join(ws, 'marker');
    const request = {
      script: `touch ${wsMarker}`,
      cwd: ws,
      profile: profileFor([ws], { readableRoots: [locked] }),
    };
    const asNobody = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    // The checkout may be a directory nobody cannot read: the child runs a bundle under t.root.
    const script = bundleInto(path.join(import.meta.dirname, 'fixtures', 'run-as.ts'), t.root);
    const child = spawnSync(process.execPath, [script, JSON.stringify(request)], {
      ...asNobody,
      encoding: 'utf8',
      cwd: ws,
    });
    expect(child.stderr).toBe('');
    const result = JSON.parse(child.stdout) as SandboxError;
    expect(result).toMatchObject({ ok: false, kind: 'invalid-root', path: locked });
    expect(result.message).toMatch(/cannot be read and entered/);
    expect(fs.existsSync(wsMarker)).toBe(false);
    fs.chmodSync(locked, 0o755);
  });

  it('runs without isolation under os: auto when bwrap is missing, and says so', async () => {
    const r = await ok({
      argv: ['true'],
      profile: profileFor([ws], { os: 'auto' }),
      bwrapPath: '/nonexistent/bwrap',
    });
    expect(r.isolation).toBe('none');
    expect(r.notes.join(' ')).toMatch(/without OS isolation/);
  });
});
