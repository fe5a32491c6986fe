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

export class UsageError extends Error {
  override name = 'UsageError';
}
