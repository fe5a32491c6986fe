import type { CliIO, Subcommand } from './io.js';
import { UsageError } from './io.js';
import { Reexecuted } from './reexec.js';

/**
 * Runs one subcommand and turns what it throws into an exit code: a usage error is 2; anything
 * else is an internal error, 1, except for `hook`, where every failure must block (2).
 */
export async function runCommand(
  name: string,
  command: Subcommand,
  argv: string[],
  io: CliIO,
): Promise<number> {
  try {
    return await command(argv, io);
  } catch (err) {
    if (err instanceof Reexecuted) return err.code;
    if (err instanceof UsageError) {
      io.stderr.write(`toolgate ${name}: ${err.message}\n`);
      return 2;
    }
    io.stderr.write(
      `toolgate ${name}: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    // A hook that fails must block (exit 2); Claude Code lets any other failure proceed.
    return name === 'hook' ? 2 : 1;
  }
}
