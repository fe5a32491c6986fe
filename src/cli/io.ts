/** What a subcommand may touch of its process: streams, environment, working directory. */
export interface CliIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stdout is a terminal (progress bars, colours, interactive prompts). */
  isTTY: boolean;
  /**
   * The descriptors behind stdin and stdout when they are the process's own. A command that
   * reads all of its input and writes one answer may use them directly (see stdio.ts): the
   * hook's process then never builds the streams, which costs it more than the decision.
   */
  fds?: { readonly stdin: number; readonly stdout: number };
  /** All of stdin, when the caller has read it already (a warm hook that fell back). */
  input?: string;
}

/** A subcommand: parses its own arguments, returns the process exit code. */
export type Subcommand = (argv: string[], io: CliIO) => Promise<number>;

/**
 * A mistake in how toolgate was called (exit 2). `hint` says what to do instead; without one the
 * CLI points at the command's --help. Printed as `toolgate <command>: <message> — <hint>`.
 */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The errno code (ENOENT, EPIPE, ...) of an error or of what caused it, however deep it was wrapped. */
export function errnoCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E')) return code;
  }
  return undefined;
}
