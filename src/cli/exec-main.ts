import { type BundleCache, runBundledCommand } from './bundle-entry.js';
import { execCommand } from './exec.js';
import type { CliIO } from './io.js';

/**
 * `toolgate exec` on its own: the entry of exec's CommonJS bundle (dist/cli/exec.cjs), which
 * main.js loads with V8's code cache, as it does the hook's. Node 20 caches no ES module code,
 * and compiling exec's ES module chunks was most of its start-up. It answers exactly as
 * `main(['exec', ...argv])` does; with a cache directory and the bundle's code id, parsed policy
 * files are kept between runs (the hook's policy cache, same entries).
 */
export function runExec(argv: string[], io: CliIO, cache?: BundleCache): Promise<number> {
  return runBundledCommand('exec', execCommand, argv, io, cache);
}
