import fs from 'node:fs';
import type { CliIO } from './io.js';
import type { WarmAnswer, WarmRequest } from './warm.js';

const MAX_REQUEST_BYTES = 64 * 1024 * 1024;
const DEFAULT_IDLE_MS = 15 * 60 * 1000;

type RunHook = (argv: string[], io: CliIO) => Promise<number>;

/**
 * The warm process behind `toolgate hook --warm` (see warm.ts): answers hook calls on a unix
 * socket by running the very code a hook process runs (`run`), one call at a time, each in its
 * caller's working directory and with its caller's environment, its input and its arguments,
 * so that it answers exactly as the caller would have by itself. Policies and logs are read and
 * written per call, as a hook process does: an edited policy applies to the next call.
 *
 * Resolves (with 0) when it stops: idle, its build replaced, or another warm process already
 * answers on the socket. Only the user can reach the socket: its directory is the user's cache, mode 0700.
 */
export interface WarmOptions {
  /** Stop after this long without a call (default 15 minutes). */
  readonly idleMs?: number;
  /** Checked every half minute (or quarter of idleMs): false (the build was replaced) stops the process. */
  readonly current?: () => boolean;
}

const CURRENT_CHECK_MS = 30_000;

export async function serveWarmHooks(
  socket: string,
  run: RunHook,
  options: WarmOptions = {},
): Promise<number> {
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const net = process.getBuiltinModule('node:net');
  if (await answers(net, socket)) return 0;
  try {
    fs.unlinkSync(socket); // a socket left by a process that died
  } catch {}
  // Half-open: the caller ends its side once the request is sent, and waits for the answer.
  const server = net.createServer({ allowHalfOpen: true }, (connection) => {
    const chunks: Buffer[] = [];
    let size = 0;
    connection.on('error', () => connection.destroy());
    connection.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_REQUEST_BYTES) connection.destroy();
      else chunks.push(chunk);
    });
    connection.on('end', () => {
      const request = parseRequest(Buffer.concat(chunks).toString('utf8'));
      queue = queue.then(async () => {
        const answer: WarmAnswer =
          request === undefined ? { v: 1, fallback: 'not a warm hook request' } : await serve(request);
        connection.end(`${JSON.stringify(answer)}\n`);
      });
    });
  });
  let queue: Promise<void> = Promise.resolve();
  let idle: NodeJS.Timeout | undefined;

  const serve = async (request: WarmRequest): Promise<WarmAnswer> => {
    clearTimeout(idle);
    try {
      try {
        process.chdir(request.cwd);
      } catch {
        return { v: 1, fallback: `cannot enter ${request.cwd}` };
      }
      const stdout = new TextSink();
      const stderr = new TextSink();
      const io: CliIO = {
        get stdin(): never {
          throw new Error('a warm hook call reads its input from the request');
        },
        stdout: stdout as unknown as NodeJS.WritableStream,
        stderr: stderr as unknown as NodeJS.WritableStream,
        // TOOLGATE_REEXEC: this process already runs with --no-node-snapshot; never restart it.
        env: { ...request.env, TOOLGATE_REEXEC: '1' },
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
      return { v: 1, code, stdout: stdout.text, stderr: stderr.text };
    } finally {
      idle = setTimeout(stop, idleMs);
    }
  };

  const listening = new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socket, () => resolve());
  });
  try {
    await listening;
  } catch {
    return 0; // another warm process took the socket first
  }
  fs.chmodSync(socket, 0o600);
  const ours = fs.statSync(socket).ino;
  const stopped = new Promise<number>((resolve) => server.once('close', () => resolve(0)));
  function stop(): void {
    server.close();
    try {
      if (fs.statSync(socket).ino === ours) fs.unlinkSync(socket);
    } catch {}
  }
  idle = setTimeout(stop, idleMs);
  const current = options.current;
  if (current !== undefined) {
    const check = setInterval(
      () => {
        if (!current()) stop();
      },
      Math.min(CURRENT_CHECK_MS, idleMs / 4),
    );
    check.unref();
    server.once('close', () => clearInterval(check));
  }
  return stopped;
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

function parseRequest(text: string): WarmRequest | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  const env = r.env as Record<string, unknown> | null;
  if (
    r.v !== 1 ||
    !strings(r.argv) ||
    typeof r.cwd !== 'string' ||
    typeof r.stdin !== 'string' ||
    typeof env !== 'object' ||
    env === null ||
    !Object.values(env).every((v) => typeof v === 'string')
  )
    return undefined;
  return value as WarmRequest;
}
