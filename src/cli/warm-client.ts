import fs from 'node:fs';
import path from 'node:path';
import { ACK, parseWarmAnswer, privateToUser, type WarmAnswer, type WarmRequest } from './warm.js';

/** A warm process that does not acknowledge a call this fast is stuck or overloaded. */
const ACK_TIMEOUT_MS = 2_000;
/**
 * A call it acknowledged may take as long as the hook would (an auto-mode classifier asks a
 * model); past this, the call is decided here after all, well within Claude Code's 60 s.
 */
const ANSWER_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface WarmTimeouts {
  readonly ackMs: number;
  readonly answerMs: number;
}

/**
 * Hands one hook call to the warm process at `socket`. Undefined when there is none, the socket
 * is not the user's own, the process does not acknowledge or answer in time, or its answer is
 * not one: the caller then decides by itself, so a dead, stale, stuck or foreign warm process
 * costs time, never a decision. node:net is loaded here, not with the module: only `--warm`
 * calls use it.
 */
export function askWarm(
  socket: string,
  request: WarmRequest,
  timeouts: WarmTimeouts = { ackMs: ACK_TIMEOUT_MS, answerMs: ANSWER_TIMEOUT_MS },
): Promise<WarmAnswer | undefined> {
  if (!privateToUser(path.dirname(socket), 'directory') || !privateToUser(socket, 'socket'))
    return Promise.resolve(undefined);
  const net = process.getBuiltinModule('node:net');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let acknowledged = false;
    let settled = false;
    const done = (answer: WarmAnswer | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connection.destroy();
      resolve(answer);
    };
    let timer = setTimeout(() => done(undefined), timeouts.ackMs);
    const connection = net.connect(socket);
    connection.on('error', () => done(undefined));
    connection.on('connect', () => connection.end(`${JSON.stringify(request)}\n`));
    connection.on('data', (chunk: Buffer) => {
      if (!acknowledged) {
        if (chunk[0] !== ACK.charCodeAt(0)) return done(undefined);
        acknowledged = true;
        clearTimeout(timer);
        timer = setTimeout(() => done(undefined), timeouts.answerMs);
        chunk = chunk.subarray(1);
      }
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) done(undefined);
      else chunks.push(chunk);
    });
    connection.on('end', () => done(parseWarmAnswer(Buffer.concat(chunks).toString('utf8'))));
  });
}

/**
 * A start the warm process has not confirmed (it ages its log once it listens) holds the next
 * one off this long: a warm process that cannot start costs a spawn a minute, not one a call.
 */
const RESTART_AFTER_MS = 60_000;

/**
 * Starts the warm process for later calls, detached: it outlives this process, holds none of
 * its descriptors but a log (Claude Code waits for the hook's stdout and stderr to close), and
 * leaves by itself after `TOOLGATE_WARM_IDLE_MS` (default 15 minutes) without a call. It gets
 * this process's environment, unchanged (its socket is named by it), and runs with
 * --no-node-snapshot, so that policies with conditions run in it without a restart. What it
 * says on stderr (why it could not start, say) goes to SOCKET.log. Nothing is started where the
 * socket's directory is not private to the user, or while a start is under a minute old; of
 * callers that come at once only one starts it (startLock), and none once a warm process has
 * made its socket since the caller asked (`askedAt`, ms).
 */
export function startWarm(
  socket: string,
  mainScript: string,
  env: NodeJS.ProcessEnv,
  askedAt = Number.NEGATIVE_INFINITY,
): void {
  let log: number | undefined;
  let lock: string | undefined;
  try {
    const dir = path.dirname(socket);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!privateToUser(dir, 'directory')) return;
    lock = startLock(socket);
    if (lock === undefined) return;
    // A socket made since this caller found none (give or take a second) is a warm process
    // another first call started, which has already aged its log: it answers the next call.
    // Only a socket counts: a file of that name that is not one is something else's, and the
    // warm process started below says so in its log.
    try {
      const made = fs.lstatSync(socket);
      if (made.isSocket() && made.mtimeMs >= askedAt - 1000) return;
    } catch {}
    const logFile = `${socket}.log`;
    try {
      if (Date.now() - fs.statSync(logFile).mtimeMs < RESTART_AFTER_MS) return;
    } catch {}
    log = fs.openSync(logFile, 'w', 0o600);
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(process.execPath, ['--no-node-snapshot', mainScript, 'hook-warm', socket], {
      detached: true,
      stdio: ['ignore', 'ignore', log],
      cwd: dir,
      env,
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no warm process: the next call decides by itself again
  } finally {
    if (log !== undefined) fs.closeSync(log);
    if (lock !== undefined) fs.rmSync(lock, { force: true });
  }
}

/** A lock left by a starter killed between its two lines is stale after this long. */
const STALE_LOCK_MS = 10_000;

/**
 * The right to start the warm process for `socket`, for as long as checking the log's age and
 * making it young takes: the first calls of a session come at once (Claude Code runs a
 * message's tool calls side by side), and without it two of them could both find the log old
 * and both start one. Made with O_EXCL, so one caller has it; the others start nothing (the
 * one that has it starts the process, or a start is under a minute old). Undefined: not ours.
 */
function startLock(socket: string): string | undefined {
  const lock = `${socket}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.closeSync(fs.openSync(lock, 'wx', 0o600));
      return lock;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return undefined;
    }
    try {
      if (Date.now() - fs.lstatSync(lock).mtimeMs < STALE_LOCK_MS) return undefined;
      fs.unlinkSync(lock);
    } catch {
      // gone meanwhile: try again
    }
  }
  return undefined;
}
