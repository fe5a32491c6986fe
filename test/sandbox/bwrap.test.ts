import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SandboxProfile } from '../../src/policy/obligations.js';
import { planBwrap, probeBwrap } from '../../src/sandbox/bwrap.js';
import { removeSpill } from '../../src/sandbox/output.js';
import { RUN_ID_VARIABLE } from '../../src/sandbox/process-tree.js';
import { type RunRequest, type RunResult, runSandboxed } from '../../src/sandbox/run.js';
import {
  commandOf,
  isAlive,
  pidsWithEnv,
  profileFor,
  settledPids,
  type TempTree,
  tempTree,
} from './fixture.js';

const probe = await probeBwrap();

function argsOf(input: Parameters<typeof planBwrap>[0]) {
  const plan = planBwrap(input);
  if (!plan.ok) throw new Error(plan.message);
  plan.close();
  return plan;
}

describe('planBwrap', () => {
  it('cuts the network off unless the profile allows it', () => {
    const base = { cwd: '/', profile: { ...profileFor([]), network: false } };
    expect(argsOf(base).args).toContain('--unshare-net');
    expect(argsOf({ ...base, profile: { ...base.profile, network: true } }).args).not.toContain(
      '--unshare-net',
    );
  });

  it('finds bwrap on PATH again when PATH changes, and forgets one that was not found', async () => {
    const saved = process.env.PATH;
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-path-'));
    try {
      process.env.PATH = empty;
      expect((await probeBwrap()).available).toBe(false);
      if (probe.path !== undefined) {
        // A bwrap that appears on the same PATH is found on the next call.
        fs.symlinkSync(probe.path, path.join(empty, 'bwrap'));
        expect((await probeBwrap()).path).toBe(path.join(empty, 'bwrap'));
        process.env.PATH = saved;
        expect((await probeBwrap()).path).toBe(probe.path);
      }
    } finally {
      process.env.PATH = saved;
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });

  it('notes the deny globs that cannot be mounted', () => {
    const plan = argsOf({
      cwd: '/',
      profile: profileFor([], { readDeny: ['/**/.env', '/nonexistent/x/**'] }),
    });
    expect(plan.notes.join(' ')).toContain('/**/.env');
    expect(plan.notes.join(' ')).not.toContain('/nonexistent');
  });
});

describe.skipIf(!probe.available)(`inside bubblewrap (${probe.reason ?? probe.path})`, () => {
  let t: TempTree;
  let ws: string;
  /** Outside /tmp on purpose: under the private /tmp a path would vanish, which proves less. */
  let outside: string;
  let spills: string[];

  beforeEach(() => {
    t = tempTree();
    ws = t.dir('ws');
    outside = fs.realpathSync(
      fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir(), 'tg-')),
    );
    spills = [];
  });
  afterEach(async () => {
    for (const spill of spills) await removeSpill(spill);
    t.cleanup();
    fs.rmSync(outside, { recursive: true, force: true });
  });

  async function run(request: Partial<RunRequest> & { profile?: SandboxProfile }): Promise<RunResult> {
    const result = await runSandboxed({
      cwd: ws,
      profile: profileFor([ws], { os: 'required' }),
      ...request,
    } as RunRequest);
    if (!result.ok) throw new Error(`${result.kind}: ${result.message}`);
    if (result.output.spillPath) spills.push(result.output.spillPath);
    expect(result.isolation).toBe('bwrap');
    return result;
  }

  it('kills the whole tree (&, nohup, setsid) at the deadline; nothing survives', async () => {
    // Host pids of everything carrying the run tag, seen from outside the namespace, collected
    // until the run ends (a snapshot could catch a child between fork and exec).
    const seen = new Set<number>();
    let watcher: NodeJS.Timeout | undefined;
    const r = await run({
      script:
        'sleep 100 & nohup sleep 100 >/dev/null 2>&1 & setsid sleep 100 & ( trap "" TERM; exec sleep 100 ) & echo "$TOOLGATE_RUN_ID"; wait',
      profile: profileFor([ws], { os: 'required', timeoutMs: 1500 }),
      killGraceMs: 300,
      onOutput: (chunk) => {
        const id = chunk.toString().trim();
        watcher ??= setInterval(() => {
          for (const pid of pidsWithEnv(RUN_ID_VARIABLE, id)) seen.add(pid);
        }, 20);
      },
    });
    clearInterval(watcher);
    expect(r.timedOut).toBe(true);
    // bwrap, its init in the namespace, bash and the four children.
    expect(seen.size).toBeGreaterThanOrEqual(7);
    for (const pid of seen) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(pidsWithEnv(RUN_ID_VARIABLE, r.runId)).toEqual([]);
    expect(r.killed.filter((p) => p.command === 'sleep')).toHaveLength(4);
  });

  it('kills background processes when the command exits (the PID namespace dies with it)', async () => {
    const seen = new Set<number>();
    let watcher: NodeJS.Timeout | undefined;
    const r = await run({
      // Handshake instead of a sleep: the script exits only after the test has seen the tree.
      script: 'setsid sleep 100 & echo "$TOOLGATE_RUN_ID"; while [ ! -e go ]; do sleep 0.01; done',
      onOutput: (chunk) => {
        const id = chunk.toString().trim();
        watcher ??= setInterval(() => {
          const pids = pidsWithEnv(RUN_ID_VARIABLE, id);
          for (const pid of pids) seen.add(pid);
          const sleeping = pids.some((pid) => commandOf(pid) === 'sleep');
          if (sleeping) fs.writeFileSync(path.join(ws, 'go'), '');
        }, 10);
      },
    });
    clearInterval(watcher);
    expect(r.exitCode).toBe(0);
    // bwrap, its init, bash and the setsid child.
    expect(seen.size).toBeGreaterThanOrEqual(4);
    for (const pid of seen) expect(isAlive(pid), `pid ${pid}`).toBe(false);
  });

  it('returns only once nothing of the run can write any more, though its init exits first', async () => {
    // The loop outlives bash and is handed to the jail's init, which exits when bash has. It is
    // killed only after the init's exit has torn the jail's mounts down: a run that called an
    // exiting init the end without looking at its children would return while the loop still
    // appends. It holds no output pipe, so waiting for the output to close does not wait for it.
    // Three runs, because the window is short.
    for (let i = 0; i < 3; i += 1) {
      const tick = path.join(ws, `tick${i}`);
      const r = await run({
        script: `(while :; do echo x >> tick${i}; done) </dev/null >/dev/null 2>&1 & while [ ! -s tick${i} ]; do :; done; exit 0`,
      });
      expect(r.exitCode).toBe(0);
      const size = fs.statSync(tick).size;
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(fs.statSync(tick).size, `run ${i}`).toBe(size);
    }
  });

  it("gives the command no terminal, though toolgate has one (no TIOCSTI into the caller's)", () => {
    // script(1) gives the fixture a terminal of its own as its controlling terminal.
    const fixture = path.join(import.meta.dirname, 'fixtures', 'terminal-in-jail.ts');
    const child = spawnSync(
      'script',
      ['-qec', `${process.execPath} --import tsx ${fixture} ${ws}`, '/dev/null'],
      { encoding: 'utf8', cwd: process.cwd() },
    );
    const lines = child.stdout.replace(/\r/g, '').trim().split('\n');
    expect(lines[0]).toMatch(/^outside [1-9]\d*$/);
    expect(lines.slice(1)).toEqual(['inside 0', 'no tty']);
  });

  it('takes the run with it when toolgate itself crashes mid-run', async () => {
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'crash-during-run.ts'), 'required', ws],
      { encoding: 'utf8', cwd: process.cwd() },
    );
    expect(child.stderr).toContain('toolgate crashed');
    const runId = child.stdout.trim();
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await settledPids(runId)).toEqual([]);
  });

  it('blocks the network: a loopback server outside is unreachable inside, reachable with network on', async () => {
    let connections = 0;
    const server = net.createServer((socket) => {
      connections += 1;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    const client = `require('net').connect(${port}, '127.0.0.1')
      .on('connect', () => { console.log('CONNECTED'); process.exit(0); })
      .on('error', (e) => { console.log('FAILED ' + e.code); process.exit(1); })`;
    try {
      const off = await run({ argv: [process.execPath, '-e', client] });
      expect(off.output.inline).toMatch(/^FAILED /);
      expect(connections).toBe(0);
      const on = await run({
        argv: [process.execPath, '-e', client],
        profile: profileFor([ws], { os: 'required', network: true }),
      });
      expect(on.output.inline).toBe('CONNECTED\n');
      expect(connections).toBe(1);
    } finally {
      server.close();
    }
  });

  it('allows writes inside the workspace and blocks them everywhere else', async () => {
    fs.writeFileSync(path.join(outside, 'existing'), 'original');
    const hostTmpName = `/tmp/toolgate-private-${randomUUID()}`;
    const r = await run({
      script: [
        'echo inside > inside.txt && echo wrote-inside',
        `echo pwned > ${outside}/new.txt || echo blocked-new`,
        `echo pwned > ${outside}/existing || echo blocked-existing`,
        'echo pwned > /etc/toolgate-test || echo blocked-etc',
        `echo private > ${hostTmpName} && echo wrote-tmp`,
      ].join('\n'),
    });
    expect(r.output.inline.split('\n').filter((l) => !l.includes(':'))).toEqual([
      'wrote-inside',
      'blocked-new',
      'blocked-existing',
      'blocked-etc',
      'wrote-tmp',
      '',
    ]);
    expect(r.output.inline).toMatch(/Read-only file system/);
    expect(fs.readFileSync(path.join(ws, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(fs.existsSync(path.join(outside, 'new.txt'))).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'existing'), 'utf8')).toBe('original');
    expect(fs.existsSync('/etc/toolgate-test')).toBe(false);
    // /tmp inside is private: the file never reaches the host's /tmp.
    expect(fs.existsSync(hostTmpName)).toBe(false);
  });

  it('masks denied paths that exist: directories become empty, files cannot be opened', async () => {
    fs.mkdirSync(path.join(outside, '.ssh'));
    fs.writeFileSync(path.join(outside, '.ssh', 'id_rsa'), 'PRIVATE KEY');
    fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=abc');
    const r = await run({
      script: `exec 2>&1; cat ${outside}/.ssh/id_rsa || echo no-key; ls -A ${outside}/.ssh | wc -l; cat .env; echo end`,
      profile: profileFor([ws], {
        os: 'required',
        readDeny: [`${outside}/.ssh/**`, `${ws}/.env`, '/**/*.pem'],
      }),
    });
    expect(r.output.inline).not.toContain('PRIVATE KEY');
    expect(r.output.inline).not.toContain('TOKEN=abc');
    expect(r.output.inline).toContain('no-key');
    expect(r.output.inline).toMatch(/\n0\n/);
    expect(r.output.inline).toMatch(/cat: \.env: Permission denied\nend\n$/);
    // What bwrap cannot mask is the operator's to know, not news for the model on every call.
    expect(r.isolationLimits.join(' ')).toContain('/**/*.pem');
    expect(r.notes.join(' ')).not.toContain('/**/*.pem');
  });

  it('masks a denied directory that contains the workspace, and the workspace stays usable', async () => {
    const parent = fs.realpathSync(fs.mkdtempSync(path.join(outside, 'home-')));
    const project = path.join(parent, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(parent, 'secret.txt'), 'SECRET');
    const r = await run({
      script: `exec 2>&1; cat ${parent}/secret.txt || echo no-secret; echo ok > out.txt && cat out.txt`,
      cwd: project,
      profile: profileFor([project], { os: 'required', readDeny: [`${parent}/**`] }),
    });
    expect(r.output.inline).not.toContain('SECRET');
    expect(r.output.inline).toContain('no-secret');
    expect(r.output.inline).toMatch(/ok\n$/);
    expect(fs.readFileSync(path.join(project, 'out.txt'), 'utf8')).toBe('ok\n');
  });

  it('keeps a read-denied file masked even when it is also a protected path', async () => {
    fs.mkdirSync(path.join(ws, '.git'));
    fs.writeFileSync(path.join(ws, '.git', 'config'), '[credential] token = SECRET');
    const r = await run({
      script: 'exec 2>&1; cat .git/config || echo no-config',
      profile: profileFor([ws], { os: 'required', readDeny: [`${ws}/.git/config`] }),
    });
    expect(r.output.inline).not.toContain('SECRET');
    expect(r.output.inline).toContain('no-config');
  });

  it('reports a sandbox that bwrap cannot build as a typed error; the command never runs', async () => {
    const sub = path.join(outside, 'sub');
    fs.mkdirSync(sub);
    const marker = path.join(ws, 'marker');
    // The cwd lies inside a masked directory, so bwrap cannot chdir into it.
    const result = await runSandboxed({
      script: `touch ${marker}`,
      cwd: sub,
      profile: profileFor([ws], { os: 'required', readDeny: [`${outside}/**`] }),
    });
    expect(result).toMatchObject({ ok: false, kind: 'isolation-failed' });
    expect(!result.ok && result.message).toMatch(/bubblewrap could not set up the sandbox \(.*chdir/i);
    expect(fs.existsSync(marker)).toBe(false);
  });

  it('keeps existing protected paths in the workspace read-only, and the rest of .git writable', async () => {
    fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.git', 'config'), '[core]\n');
    const r = await run({
      script: [
        'touch .git/hooks/pre-commit || echo blocked-hook',
        'echo "[core] fsmonitor = evil" >> .git/config || echo blocked-config',
        'touch .git/index && echo wrote-index',
      ].join('\n'),
    });
    expect(r.output.inline).toContain('blocked-hook');
    expect(r.output.inline).toContain('blocked-config');
    expect(r.output.inline).toContain('wrote-index');
    expect(fs.existsSync(path.join(ws, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(fs.readFileSync(path.join(ws, '.git', 'config'), 'utf8')).toBe('[core]\n');
  });

  it('runs with no capabilities and sees only its own processes', async () => {
    const r = await run({ script: "grep CapEff /proc/self/status; ls /proc | grep -c '^[0-9]'" });
    const [caps, count] = r.output.inline.trim().split('\n');
    expect(caps).toMatch(/CapEff:\s+0+$/);
    expect(Number(count)).toBeLessThan(10);
  });

  it('sees a read-only cwd under /tmp even though /tmp is private', async () => {
    const docs = t.dir('docs');
    fs.writeFileSync(path.join(docs, 'a.md'), 'doc');
    const r = await run({
      script: 'cat a.md; touch b || echo blocked',
      cwd: docs,
      profile: profileFor([ws], { os: 'required' }),
    });
    expect(r.output.inline).toMatch(/^doc/);
    expect(r.output.inline).toContain('blocked');
    expect(fs.existsSync(path.join(docs, 'b'))).toBe(false);
  });
});
