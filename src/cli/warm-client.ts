import fs from 'node:fs';
import path from 'node:path';
import { parseWarmAnswer, type WarmAnswer, type WarmRequest } from './warm.js';

/** A warm process that takes longer than this is passed over: the hook decides by itself. */
const ANSWER_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/**
 * Hands one hook call to the warm process at `socket`. Undefined when there is none, it does
 * not answer in time, or its answer is not one: the caller then decides by itself, so a dead,
 * stale or broken warm process costs time, never a decision. node:net is loaded here, not with
 * the module: only `--warm` calls use it.
 */
export function askWarm(
  socket: string,
  request: WarmRequest,
  timeoutMs = ANSWER_TIMEOUT_MS,
): Promise<WarmAnswer | undefined> {
  const net = process.getBuiltinModule('node:net');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = (answer: WarmAnswer | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      connection.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    const connection = net.connect(socket);
    connection.on('error', () => done(undefined));
    connection.on('connect', () => connection.end(`${JSON.stringify(request)}\n`));
    connection.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) done(undefined);
      else chunks.push(chunk);
    });
    connection.on('end', () => done(parseWarmAnswer(Buffer.concat(chunks).toString('utf8'))));
  });
}

/**
 * Starts the warm process for later calls, detached: it outlives this process, holds none of
 * its descriptors (Claude Code waits for the hook's stdout and stderr to close), and exits by
 * itself after `TOOLGATE_WARM_IDLE_MS` (default 15 minutes) without a call. It runs with
 * --no-node-snapshot, so that policies with conditions run in it without a restart.
 */
export function startWarm(socket: string, mainScript: string, env: NodeJS.ProcessEnv): void {
  try {
    fs.mkdirSync(path.dirname(socket), { recursive: true, mode: 0o700 });
    const { spawn } = process.getBuiltinModule('node:child_process');
    const child = spawn(process.execPath, ['--no-node-snapshot', mainScript, 'hook-warm', socket], {
      detached: true,
      stdio: 'ignore',
      cwd: path.dirname(socket),
      env,
    });
    child.on('error', () => {});
    child.unref();
  } catch {
    // no warm process: the next call decides by itself again
  }
}
