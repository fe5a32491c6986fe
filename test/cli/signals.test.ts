import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAIN } from '../helpers/cli.js';
import { type Workspace, workspace } from '../pipeline/fixture.js';

/**
 * A signal sent to the toolgate process a person or an agent started reaches everything that
 * process started. With `when:` conditions the CLI runs itself again (isolated-vm needs
 * --no-node-snapshot), so these tests use such a policy: the pid the test holds is the parent.
 */
const TSX = path.join(path.dirname(MAIN), '..', '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

let ws: Workspace;
const started: ChildProcess[] = [];
beforeEach(() => {
  ws = workspace('toolgate-signals-');
});
afterEach(() => {
  for (const pid of processesMentioning(ws.root)) signal(pid, 'SIGKILL');
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  started.length = 0;
  ws.cleanup();
});

function policyWithConditions(): string {
  return ws.file(
    'policy.yaml',
    'version: 1\nsandbox: { os: "off" }\nrules:\n  - allow: ["Bash(sleep *)"]\n    when: "input.command.length > 0"\n',
  );
}

function toolgate(...args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd: ws.root,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  started.push(child);
  return child;
}

/** Pids whose command line mentions `marker` (the workspace path is in every one we start). */
function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = fs.readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone already
    }
  }
  return pids;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone already
  }
}

async function until<T>(what: string, probe: () => T | undefined, ms = 90_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once('exit', (code, sig) => resolve({ code, signal: sig }));
  });

/** Starts `exec` with one Bash call that sleeps; resolves when the sleep is running. */
async function execWithSleepingCall(): Promise<{ child: ChildProcess; out: () => string; sleepArg: string }> {
  const sleepArg = `300.${process.pid}${Date.now() % 100000}`;
  const child = toolgate('exec', '--policy', policyWithConditions(), '--cwd', ws.root);
  let out = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stdin!.write(
    `${JSON.stringify({ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: `sleep ${sleepArg}` } })}\n`,
  );
  await until('the sleeping call', () => (processesMentioning(sleepArg).length > 0 ? true : undefined));
  return { child, out: () => out, sleepArg };
}

describe('signals reach everything toolgate started', () => {
  it('SIGKILL of the exec process (restarted for isolated-vm) leaves no child running calls', async () => {
    const { child, sleepArg } = await execWithSleepingCall();
    // The restarted child is there: a second toolgate process mentions the workspace.
    expect(processesMentioning(ws.root).length).toBeGreaterThanOrEqual(2);
    child.kill('SIGKILL');
    await exited(child);
    await until('the restarted child and its call to end', () =>
      processesMentioning(ws.root).length === 0 && processesMentioning(sleepArg).length === 0
        ? true
        : undefined,
    );
  }, 180_000);

  it("SIGKILL of the exec process running the calls, sandbox.os off (no bwrap to die with it): the call's processes die too, in its group or out of it", async () => {
    const tag = `${process.pid}${Date.now() % 100000}`;
    const policy = ws.file('plain.yaml', 'version: 1\nsandbox: { os: "off" }\nrules:\n  - allow: ["Bash"]\n');
    const child = toolgate('exec', '--policy', policy, '--cwd', ws.root);
    // A background sleep in the call's process group, and one that left it (setsid).
    const command = `sleep 301.${tag} & setsid sleep 302.${tag} & sleep 303.${tag}; wait`;
    child.stdin!.write(
      `${JSON.stringify({ type: 'tool_use', id: 'k1', name: 'Bash', input: { command } })}\n`,
    );
    const sleeps = () => processesMentioning(`.${tag}`);
    try {
      // bash and its three sleeps
      await until('the three sleeps', () => (sleeps().length >= 4 ? true : undefined));
      // The process that started bash: exec restarted for isolated-vm (its JavaScript tool), so
      // not the pid we hold. What the OOM killer or a `kill -9` of the wrong pid would hit.
      const bash = sleeps().find((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('bash'));
      const runner = Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${bash}/status`, 'utf8'))![1]);
      expect(fs.readFileSync(`/proc/${runner}/cmdline`, 'utf8')).toContain('exec');
      process.kill(runner, 'SIGKILL');
      await exited(child);
      await until(
        'every process of the call to end',
        () => (sleeps().length === 0 ? true : undefined),
        20_000,
      );
    } finally {
      for (const pid of sleeps()) signal(pid, 'SIGKILL');
    }
  }, 180_000);

  it('SIGTERM to exec aborts the call, answers it, kills its processes and exits 143', async () => {
    const { child, out, sleepArg } = await execWithSleepingCall();
    child.kill('SIGTERM');
    const end = await exited(child);
    expect(end.code).toBe(143);
    expect(JSON.parse(out().trim())).toMatchObject({ tool_use_id: 'b1', is_error: true });
    await until('everything to end', () =>
      processesMentioning(ws.root).length === 0 && processesMentioning(sleepArg).length === 0
        ? true
        : undefined,
    );
  }, 180_000);

  it('SIGHUP to serve with conditions reloads the policy in the same server instead of orphaning it', async () => {
    const child = toolgate('serve', '--port', '0', '--policy', policyWithConditions());
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    child.stderr!.on('data', (d) => {
      stderr += d;
    });
    const listening = await until('serve to listen', () =>
      stdout.includes('\n') ? (JSON.parse(stdout.split('\n')[0]!).listening as string) : undefined,
    );
    child.kill('SIGHUP');
    await until('the reload', () => (stderr.includes('policy reloaded') ? true : undefined));
    expect(child.exitCode).toBeNull();
    expect((await fetch(`${listening}/health`)).status).toBe(200);
    child.kill('SIGTERM');
    expect((await exited(child)).code).toBe(0);
    await until('the server to end', () => (processesMentioning(ws.root).length === 0 ? true : undefined));
  }, 180_000);

  it('serve with a slow request open exits within its grace period after SIGTERM', async () => {
    const child = toolgate('serve', '--port', '0', '--policy', policyWithConditions());
    let stdout = '';
    child.stdout!.on('data', (d) => {
      stdout += d;
    });
    const listening = await until('serve to listen', () =>
      stdout.includes('\n') ? (JSON.parse(stdout.split('\n')[0]!).listening as string) : undefined,
    );
    const url = new URL(listening);
    const socket = net.connect(Number(url.port), url.hostname);
    socket.on('error', () => undefined);
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers and a first piece of a body that never comes in full.
    socket.write(
      `POST /decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"tool"`,
    );
    await sleep(200);
    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    const end = await Promise.race([exited(child), sleep(30_000).then(() => undefined)]);
    socket.destroy();
    expect(end, 'serve was still running 30 s after SIGTERM').toBeDefined();
    // The grace period is 5 s; the bound here is loose because the machine may be loaded.
    expect(Date.now() - stoppedAt).toBeLessThan(25_000);
    await until('the server to end', () => (processesMentioning(ws.root).length === 0 ? true : undefined));
  }, 180_000);
});
