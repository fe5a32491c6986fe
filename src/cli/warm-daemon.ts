import fs from 'node:fs';
import type { Server, Socket } from 'node:net';
import path from 'node:path';
import type { CliIO } from './io.js';
import {
  ACK,
  PER_CALL_VARS,
  parseWarmRequest,
  privateToUser,
  type WarmAnswer,
  type WarmRequest,
} from './warm.js';

const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
/** A caller sends its whole request at once: one that trickles is dropped. */
const REQUEST_READ_MS = 5_000;
/** Calls answered at once; more are refused (the hook then decides by itself). */
const MAX_CONNECTIONS = 64;
const DEFAULT_IDLE_MS = 15 * 60 * 1000;
const CHECK_MS = 30_000;

type RunHook = (argv: string[], io: CliIO) => Promise<number>;

export interface WarmOptions {
  /** Leave after this long without a call (default 15 minutes). */
  readonly idleMs?: number;
  /** Checked every half minute (or quarter of idleMs): false (the build was replaced) stops it. */
  readonly current?: () => boolean;
}

/**
 * The warm process behind `toolgate hook --warm` (see warm.ts): answers hook calls on a unix
 * socket by running the very code a hook process runs (`run`) with the call's arguments,
 * working directory and input. Its environment is the callers' own: the socket is named by it
 * (warm.ts), and the process was started with it; PWD and OLDPWD come with each call. Policies and logs are read and written per
 * call, as a hook process does, so an edited policy applies to the next call; calls run side by
 * side, as hook processes would.
 *
 * Resolves (with 0) when it stops: idle, its build replaced, its socket taken over, or another
 * warm process already answering there. It listens only in a directory private to the user.
 */
export async function serveWarmHooks(
  socket: string,
  run: RunHook,
  options: WarmOptions = {},
): Promise<number> {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  if (!privateToUser(path.dirname(socket), 'directory')) {
    process.stderr.write(
      `toolgate hook-warm: ${path.dirname(socket)} is not private to this user; not listening there\n`,
    );
    return 0;
  }
  const net = process.getBuiltinModule('node:net');
  let inFlight = 0;
  let idle: NodeJS.Timeout | undefined;
  const server = net.createServer({ allowHalfOpen: true }, (connection) => {
    // Before anything is written: a caller that is already gone (another warm process's probe)
    // makes the write fail, and an 'error' with no listener would end this process.
    connection.on('error', () => connection.destroy());
    connection.write(ACK);
    inFlight++;
    rearm();
    connection.once('close', () => {
      inFlight--;
      rearm();
    });
    receive(connection, run);
  });
  /** The idle clock runs only while no call is in flight. */
  function rearm(): void {
    clearTimeout(idle);
    idle = inFlight === 0 ? setTimeout(() => stop('idle'), idleMs) : undefined;
  }
  server.maxConnections = MAX_CONNECTIONS;
  const refused = await listen(net, server, socket);
  if (refused !== undefined) {
    process.stderr.write(`toolgate hook-warm: not listening on ${socket}: ${refused}\n`);
    // Another warm process answers there: this start did not fail, and holds no start off.
    if (refused === ANOTHER_ANSWERS) settled(socket);
    return 0;
  }
  let ours: bigint | number;
  try {
    ours = fs.lstatSync(socket).ino;
  } catch {
    // Removed between listen and here (another start took the name): not ours to serve.
    server.close();
    return 0;
  }
  settled(socket);
  const stopped = new Promise<number>((resolve) => server.once('close', () => resolve(0)));
  function stop(why: string): void {
    process.stderr.write(`toolgate hook-warm: leaving (${why})\n`);
    clearTimeout(idle);
    server.close();
    try {
      if (fs.lstatSync(socket).ino === ours) fs.unlinkSync(socket);
    } catch {}
    // Leaving is not a failed start: the next call must start a warm process at once, not
    // wait out the throttle because this line just made the log young again.
    settled(socket);
  }
  rearm();
  const check = setInterval(
    () => {
      let stillOurs = false;
      try {
        stillOurs = fs.lstatSync(socket).ino === ours;
      } catch {}
      if (!stillOurs) stop('its socket was removed or replaced');
      else if (options.current !== undefined && !options.current()) stop('its build was replaced');
    },
    Math.min(CHECK_MS, idleMs / 4),
  );
  check.unref();
  server.once('close', () => clearInterval(check));
  return stopped;
}

const ANOTHER_ANSWERS = 'another warm process answers there';

/**
 * The log's age is how the hook that starts a warm process throttles starts (warm-client.ts):
 * a young log is a start not yet confirmed. Once this process listens, leaves, or finds another
 * one answering, no start is pending: the log is aged (its mtime set to the epoch), after
 * whatever was just written to it, since every write makes it young again.
 */
function settled(socket: string): void {
  try {
    fs.utimesSync(`${socket}.log`, 0, 0);
  } catch {}
}

/**
 * Listens on `socket`: at once when the name is free; when a socket file is there, only if no
 * process answers on it (one that died left it), removing it first. Else says why not.
 */
async function listen(
  net: typeof import('node:net'),
  server: Server,
  socket: string,
): Promise<string | undefined> {
  // Born private: callers pass over a socket anyone else could reach (warm.ts), so one made
  // with the usual umask, between listen and chmod, would send them to start another process.
  process.umask(0o077);
  const attempt = () =>
    new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      const failed = (err: NodeJS.ErrnoException) => resolve(err);
      server.once('error', failed);
      server.listen(socket, () => {
        server.off('error', failed);
        resolve(undefined);
      });
    });
  let err = await attempt();
  if (err?.code === 'EADDRINUSE') {
    if (!privateToUser(socket, 'socket'))
      return 'something else of that name is there, and not ours to remove';
    if (await answers(net, socket)) return ANOTHER_ANSWERS;
    try {
      fs.unlinkSync(socket);
    } catch {}
    err = await attempt();
  }
  if (err !== undefined) return err.message;
  fs.chmodSync(socket, 0o600);
  return undefined;
}

function receive(connection: Socket, run: RunHook): void {
  const chunks: Buffer[] = [];
  let size = 0;
  connection.setTimeout(REQUEST_READ_MS, () => connection.destroy());
  connection.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) connection.destroy();
    else chunks.push(chunk);
  });
  connection.on('end', () => {
    connection.setTimeout(0);
    const request = parseWarmRequest(Buffer.concat(chunks).toString('utf8'));
    // A caller that gave up before its call started is not decided (nor logged) for nothing.
    if (connection.destroyed) return;
    void answer(request, run).then((a) => {
      if (!connection.destroyed) connection.end(`${JSON.stringify(a)}\n`);
    });
  });
}

async function answer(request: WarmRequest | undefined, run: RunHook): Promise<WarmAnswer> {
  if (request === undefined) return { v: 2, fallback: 'not a warm hook request' };
  const stdout = new TextSink();
  const stderr = new TextSink();
  const io: CliIO = {
    get stdin(): never {
      throw new Error('a warm hook call reads its input from the request');
    },
    stdout: stdout as unknown as NodeJS.WritableStream,
    stderr: stderr as unknown as NodeJS.WritableStream,
    // TOOLGATE_REEXEC: this process already runs with --no-node-snapshot; never restart it.
    env: callEnv(request),
    cwd: request.cwd,
    isTTY: false,
    input: request.stdin,
  };
  let code: number;
  try {
    code = await run([...request.argv], io);
  } catch (err) {
    // runHook turns every failure into exit 2; this is the same rule, should it ever throw
    stderr.write(`toolgate hook: internal error: ${err instanceof Error ? err.message : String(err)}\n`);
    code = 2;
  }
  if (code !== 0 && code !== 2) return { v: 2, fallback: `the hook exited ${code}` };
  return { v: 2, code, stdout: stdout.text, stderr: stderr.text };
}

/** This process's environment, with the caller's own PER_CALL_VARS (its PWD) in place. */
function callEnv(request: WarmRequest): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, TOOLGATE_REEXEC: '1' };
  for (const k of PER_CALL_VARS) delete env[k];
  return { ...env, ...request.vars };
}

/** What a call writes (the hook writes text only, and never waits on a write). */
class TextSink {
  text = '';
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }
}

/** Whether a warm process already answers on `socket`. */
function answers(net: typeof import('node:net'), socket: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(socket);
    probe.on('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.on('error', () => resolve(false));
  });
}
