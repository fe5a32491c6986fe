import fs from 'node:fs';
import path from 'node:path';
import { cacheFileName } from '../cache/entry.js';

/**
 * `toolgate hook --warm`: the hook process hands its call to a warm toolgate process over a
 * unix socket in the user's cache directory, and decides by itself when there is none (starting
 * one for the next call). What both sides share: where the socket is, who may own it, and what
 * goes over it: the request (one JSON line), then from the warm process an acknowledgement
 * (ACK, as soon as it reads the connection: it is alive) and the answer (one JSON line).
 */

/** One hook call as the hook process received it. */
export interface WarmRequest {
  readonly v: 2;
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly stdin: string;
  /** The caller's values of PER_CALL_VARS (absent ones left out). */
  readonly vars?: Readonly<Record<string, string>>;
}

/**
 * Variables the shell sets from where it runs, not from who runs it: Claude Code starts each
 * hook in the agent's current directory, which moves with `cd`. They are not part of the warm
 * process's name (one process per project and environment, not one per directory visited);
 * each call brings its own, and the warm process answers with them in place of its own.
 */
export const PER_CALL_VARS: readonly string[] = ['PWD', 'OLDPWD'];

/** The caller's PER_CALL_VARS, for its request. */
export function perCallVars(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of PER_CALL_VARS) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** What the hook process writes and exits with; or why the warm process did not answer. */
export type WarmAnswer =
  | { readonly v: 2; readonly code: 0 | 2; readonly stdout: string; readonly stderr: string }
  | { readonly v: 2; readonly fallback: string };

export const ACK = '+';

/** Linux's limit for a socket path is 107 bytes; beyond it there is no warm process. */
const MAX_SOCKET_PATH = 100;

/**
 * The socket of the warm process for this build of the hook (`build` names it), node binary,
 * user, and environment, whole: the warm process is started with the caller's environment and
 * answers only callers with the same one, so that everything that reads the environment
 * (policy discovery, the home directory, the Anthropic SDK, node itself) sees what the caller
 * would have seen. A new build, node or environment gets a process of its own; an old one
 * leaves when idle. Undefined where there can be none (Windows, a path too long for a socket).
 */
export function warmSocketPath(cacheDir: string, build: string, env: NodeJS.ProcessEnv): string | undefined {
  if (process.platform === 'win32') return undefined;
  const vars = Object.entries(env)
    .filter(([k, v]) => v !== undefined && !PER_CALL_VARS.includes(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const name = cacheFileName([
    'warm-hook 2',
    build,
    process.execPath,
    String(process.getuid?.()),
    JSON.stringify(vars),
  ]);
  const socket = path.join(cacheDir, 'warm', `${name}.sock`);
  return Buffer.byteLength(socket) <= MAX_SOCKET_PATH ? socket : undefined;
}

/**
 * Whether `file` is a directory (or a socket) of this user's that no one else may read or
 * write: only then does a hook talk to a warm process there, or a warm process listen there.
 * A shared or pre-created cache directory is passed over, never trusted.
 */
export function privateToUser(file: string, kind: 'directory' | 'socket'): boolean {
  try {
    const st = fs.lstatSync(file);
    if (kind === 'directory' ? !st.isDirectory() : !st.isSocket()) return false;
    if (process.getuid !== undefined && st.uid !== process.getuid()) return false;
    return (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The request if it is one, else undefined (the warm process then answers with a fallback). */
export function parseWarmRequest(text: string): WarmRequest | undefined {
  const r = jsonObject(text);
  const strings = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string');
  if (r?.v !== 2 || !strings(r.argv) || typeof r.cwd !== 'string' || typeof r.stdin !== 'string')
    return undefined;
  if (r.vars !== undefined) {
    const vars = r.vars;
    if (vars === null || typeof vars !== 'object' || Array.isArray(vars)) return undefined;
    for (const [k, v] of Object.entries(vars))
      if (!PER_CALL_VARS.includes(k) || typeof v !== 'string') return undefined;
  }
  return r as unknown as WarmRequest;
}

/** The answer if it is one, else undefined: the caller then decides by itself. */
export function parseWarmAnswer(text: string): WarmAnswer | undefined {
  const a = jsonObject(text);
  if (a?.v !== 2) return undefined;
  if (typeof a.fallback === 'string') return { v: 2, fallback: a.fallback };
  // A hook exits 0 (an answer, or no opinion) or 2 (block); anything else would let Claude
  // Code proceed, so it is not taken from a warm process: the call is decided here instead.
  if ((a.code !== 0 && a.code !== 2) || typeof a.stdout !== 'string' || typeof a.stderr !== 'string')
    return undefined;
  return { v: 2, code: a.code, stdout: a.stdout, stderr: a.stderr };
}

/** Zod is not loaded for this: a hook process pays for every module it loads. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
