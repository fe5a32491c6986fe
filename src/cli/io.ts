/** What a subcommand may touch of its process: streams, environment, working directory. */
export interface CliIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Whether stdout is a terminal (progress bars, colours, interactive prompts). */
  isTTY: boolean;
}

/** A subcommand: parses its own arguments, returns the process exit code. */
export type Subcommand = (argv: string[], io: CliIO) => Promise<number>;

export class UsageError extends Error {
  override name = 'UsageError';
}
