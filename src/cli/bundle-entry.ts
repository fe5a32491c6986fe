import path from 'node:path';
import type { PolicyCache } from '../policy/parse-cache.js';
import type { CliIO } from './io.js';
import { runCommand } from './run-command.js';

/** What main.js hands a bundle entry: the user cache dir and the bundle's code id. */
export interface BundleCache {
  readonly dir: string;
  readonly codeId: string;
}

/**
 * One subcommand run from its own CommonJS bundle (hook, exec), answering exactly as `main` does
 * (runCommand's exit codes and failure lines); with a cache, parsed policy files are kept between
 * runs under `<dir>/policy`, the same entries for every bundle.
 */
export function runBundledCommand(
  name: string,
  command: (argv: string[], io: CliIO, options: { policyCache?: PolicyCache }) => Promise<number>,
  argv: string[],
  io: CliIO,
  cache?: BundleCache,
): Promise<number> {
  const policyCache = cache && { dir: path.join(cache.dir, 'policy'), codeId: cache.codeId };
  return runCommand(
    name,
    (args, cliIO) => command(args, cliIO, policyCache ? { policyCache } : {}),
    argv,
    io,
  );
}
