/**
 * Errors of the sandbox layer are values: a call that meets one did not run. The pipeline turns
 * them into a `tool_result` with `is_error`, so `message` is written for the model to act on.
 */
export type SandboxErrorKind =
  /** The profile itself is malformed (bad numbers, a glob that does not compile). */
  | 'invalid-profile'
  /** The request is malformed (no command, both argv and script, a relative cwd). */
  | 'invalid-request'
  /** The working directory does not exist, is not a directory or cannot be entered. */
  | 'invalid-cwd'
  /** A writable or readable root does not exist, is not a directory or cannot be used. */
  | 'invalid-root'
  /** `os: required` and bubblewrap does not work on this machine. */
  | 'isolation-unavailable'
  /** bubblewrap could not build this call's sandbox (a mount failed); the command did not run. */
  | 'isolation-failed'
  /** The signal was already aborted before anything started. */
  | 'aborted'
  /** The process could not be started (e.g. the program does not exist). */
  | 'spawn-failed'
  /** Something inside the sandbox layer failed; the call did not run. */
  | 'internal';

export interface SandboxError {
  ok: false;
  kind: SandboxErrorKind;
  message: string;
  /** The path the error is about, when there is one. */
  path?: string;
}

export function sandboxError(kind: SandboxErrorKind, message: string, path?: string): SandboxError {
  return path === undefined ? { ok: false, kind, message } : { ok: false, kind, message, path };
}

/** Describes an unknown thrown value in one line, for messages that wrap internal failures. */
export function describeThrown(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as NodeJS.ErrnoException).code;
    return code ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
