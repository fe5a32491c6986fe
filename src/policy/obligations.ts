/**
 * The limits a decision attaches to an allowed call. The policy computes them once; the
 * sandbox layer enforces exactly these, and no other place computes limits.
 */
export interface SandboxProfile {
  /** Wall-clock deadline for the call, in milliseconds. */
  timeoutMs: number;
  /** Largest output handed back inline to the model; the rest is spilled to a file. */
  maxOutputChars: number;
  /** Hard cap on the bytes a process may write to stdout+stderr before it is killed. */
  maxOutputBytes: number;
  /** Absolute, symlink-resolved directories the call may write into. */
  writableRoots: string[];
  /** Absolute directories the call may read (besides the system); empty means "anywhere not denied". */
  readableRoots: string[];
  /** Path patterns (policy path syntax, already anchored to absolute globs) that may never be read. */
  readDeny: readonly string[];
  /** Path patterns that may never be written, even inside writable roots. */
  writeDeny: readonly string[];
  /** Whether the call may open network connections. */
  network: boolean;
  /** Environment variables passed to child processes (names; `*` suffix allowed). Secrets are dropped unless named here exactly. */
  envAllow: string[];
  /**
   * OS-level isolation: `required` (the default) refuses to run without it, `auto` uses it where
   * available and runs unjailed elsewhere, `off` never uses it. Only a policy chooses the last two.
   */
  os: 'auto' | 'required' | 'off';
  /**
   * Which jail the verdict names: `read-only` for a call predicted read-only (nothing writable,
   * no network, whatever allowed it: a wrong prediction then costs a failed command, never a
   * write), `workspace` for the rest (the workspace writable minus protected paths). Absent on
   * profiles built by hand; the limits above are what is enforced either way.
   */
  kind?: 'read-only' | 'workspace';
  /** The workspace roots: where the jail masks read-deny globs and finds nested protected paths. */
  workspaceRoots?: string[];
  /**
   * toolgate's own files of this run (its policy files, the signing key, its cache, the program;
   * the decision log's and the trust store's directories, since toolgate renames files there
   * while the call runs): read-only inside the jail even inside a writable root, existing or
   * not. Shared and frozen like readDeny. Absent when the command names none (a library caller).
   */
  ownFiles?: readonly import('./own-files.js').OwnFile[];
}
