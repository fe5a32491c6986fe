import type { CliIO, Subcommand } from './io.js';
import { errnoCode, UsageError } from './io.js';
import { Reexecuted } from './reexec.js';

/**
 * Runs one subcommand and turns what it throws into one line on stderr and an exit code, in the
 * CLI's one style, `toolgate <command>: <what> — <what to do>`: a usage error is 2; anything
 * else is an internal error, 1, except for `hook`, where every failure must block (2). A stack
 * trace only with TOOLGATE_DEBUG=1: it helps whoever fixes toolgate, not whoever called it.
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
    // The reader of our output has left (`toolgate check --stdin | head`): nothing is wrong.
    // A hook still blocks: its caller never got the answer.
    if (errnoCode(err) === 'EPIPE') return name === 'hook' ? 2 : 0;
    io.stderr.write(failureLine(name, err, io.env));
    if (err instanceof UsageError) return 2;
    // A hook that fails must block (exit 2); Claude Code lets any other failure proceed.
    return name === 'hook' ? 2 : 1;
  }
}

/** The one line (or, with TOOLGATE_DEBUG=1, the line and the stack) that says what failed. */
export function failureLine(name: string, err: unknown, env: NodeJS.ProcessEnv): string {
  return `${name === '' ? 'toolgate' : `toolgate ${name}`}: ${failureMessage(name, err, env)}\n`;
}

/** `<what> — <what to do>`: a usage error's own hint, else the command's --help; else a bug. */
export function failureMessage(name: string, err: unknown, env: NodeJS.ProcessEnv): string {
  if (err instanceof UsageError)
    return `${err.message} — ${err.hint ?? `see toolgate ${name === '' ? '' : `${name} `}--help`}`;
  const message = err instanceof Error ? err.message : String(err);
  const stack = env.TOOLGATE_DEBUG === '1' && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  return `internal error: ${message} — a bug in toolgate; TOOLGATE_DEBUG=1 shows where${stack}`;
}
