import path from 'node:path';
import { cacheFileName } from '../cache/entry.js';

/**
 * `toolgate hook --warm`: the hook process hands its call to a warm toolgate process of the
 * same build over a unix socket in the user's cache directory, and decides by itself when there
 * is none (starting one for the next call). What both sides share: where the socket is, and
 * what goes over it (one JSON line each way per call).
 */

/** One hook call as the hook process received it. */
export interface WarmRequest {
  readonly v: 1;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly stdin: string;
}

/** What the hook process writes and exits with; or why the warm process did not answer. */
export type WarmAnswer =
  | { readonly v: 1; readonly code: number; readonly stdout: string; readonly stderr: string }
  | { readonly v: 1; readonly fallback: string };

/** Linux's limit for a socket path is 107 bytes; beyond it there is no warm process. */
const MAX_SOCKET_PATH = 100;

/**
 * The socket of the warm process for this build of the hook (`build` names it), node binary
 * and home directory. A new build or node gets a new process; the old one exits when idle.
 * Undefined when the path would be too long for a unix socket.
 */
export function warmSocketPath(cacheDir: string, build: string, env: NodeJS.ProcessEnv): string | undefined {
  const name = cacheFileName(['warm-hook 1', build, process.execPath, env.HOME ?? '']);
  const socket = path.join(cacheDir, 'warm', `${name}.sock`);
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH ? socket : undefined;
}

/** The answer if it is one, else undefined: the caller then decides by itself. */
export function parseWarmAnswer(text: string): WarmAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const a = value as Record<string, unknown>;
  if (a.v !== 1) return undefined;
  if (typeof a.fallback === 'string') return { v: 1, fallback: a.fallback };
  if (!Number.isInteger(a.code) || typeof a.stdout !== 'string' || typeof a.stderr !== 'string')
    return undefined;
  return { v: 1, code: a.code as number, stdout: a.stdout, stderr: a.stderr };
}
