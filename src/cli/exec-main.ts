import path from 'node:path';
import { execCommand } from './exec.js';
import type { CliIO } from './io.js';
import { runCommand } from './run-command.js';

/**
 * `toolgate exec` on its own: the entry of exec's CommonJS bundle (dist/cli/exec.cjs), which
 * main.js loads with V8's code cache, as it does the hook's. Node 20 caches no ES module code,
 * and compiling exec's ES module chunks was most of its start-up. It answers exactly as
 * `main(['exec', ...argv])` does; with a cache directory and the bundle's code id, parsed policy
 * files are kept between runs (the hook's policy cache, same entries).
 */
export function runExec(
  argv: string[],
  io: CliIO,
  cache?: { readonly dir: string; readonly codeId: string },
): Promise<number> {
  const policyCache = cache && { dir: path.join(cache.dir, 'policy'), codeId: cache.codeId };
  return runCommand(
    'exec',
    (args, cliIO) => execCommand(args, cliIO, policyCache ? { policyCache } : {}),
    argv,
    io,
  );
}
