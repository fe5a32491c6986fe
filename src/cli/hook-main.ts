import { policyParserLoaded } from '../policy/parse-cache.js';
import { type BundleCache, runBundledCommand } from './bundle-entry.js';
import { hookCommand } from './hook.js';
import type { CliIO } from './io.js';

export { serveWarmHooks } from './warm-daemon.js';

/**
 * `toolgate hook` on its own: the entry of the hook's CommonJS bundle (dist/cli/hook.cjs), which
 * main.js loads with V8's code cache. It holds only what a decision needs, and answers exactly
 * as `main(['hook', ...argv])` does. With a cache directory and the bundle's code id, parsed
 * policy files are kept between calls.
 */
export function runHook(argv: string[], io: CliIO, cache?: BundleCache): Promise<number> {
  return runBundledCommand('hook', hookCommand, argv, io, cache);
}

/**
 * Called before V8's code cache is written (once per build and node version): V8 keeps the
 * functions that ran, so not after a call that had to parse the policy (the YAML parser and zod
 * would ride along on every later call), and only after compiling the Bash classifier too, so
 * that Bash calls find it in the cache whichever call wrote it.
 */
export async function prepareCodeCache(): Promise<boolean> {
  if (policyParserLoaded()) return false;
  try {
    const { classifyBash } = await import('../bash/classify.js');
    classifyBash('git status && cat README.md | head -n 5 > /dev/null');
    classifyBash('echo "$HOME"'); // a line the parser reads (the one above is built without it)
  } catch {
    // no grammar: the cache simply holds less
  }
  return true;
}
