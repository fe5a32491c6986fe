#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import { loadBundle } from '../cache/code-cache.js';
import { userCacheDir } from '../cache/dir.js';
import type { prepareCodeCache as PrepareCodeCache, runHook as RunHook } from './hook-main.js';
import type { CliIO } from './io.js';

const argv = process.argv.slice(2);
// A crash anywhere in a hook must still block the call: Claude Code proceeds on any exit code but 2.
const failureCode = argv[0] === 'hook' ? 2 : 1;
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err) => {
    process.stderr.write(`toolgate: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(failureCode);
  });
}

// The streams are built on first use: a hook process reads and writes the descriptors instead.
const io: CliIO = {
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  env: process.env,
  cwd: process.cwd(),
  get isTTY() {
    return process.stdout.isTTY === true;
  },
  fds: { stdin: 0, stdout: 1 },
};

/**
 * `toolgate hook` starts once per tool call, so the build gives it a bundle of its own
 * (hook.cjs, beside this file) holding only what a decision needs, loaded with V8's code cache.
 * Run from source there is no bundle, and the hook runs through main() like every command.
 */
const HOOK_BUNDLE = path.join(import.meta.dirname, 'hook.cjs');

async function run(): Promise<number> {
  if (argv[0] === 'hook' && fs.existsSync(HOOK_BUNDLE)) {
    const dir = userCacheDir(io.env);
    // Built, this file is CommonJS beside the bundle, and its require() resolves as theirs would.
    const bundle = loadBundle(HOOK_BUNDLE, dir, typeof require === 'function' ? require : undefined);
    const runHook = bundle.exports.runHook as typeof RunHook;
    const cache =
      dir !== undefined && bundle.codeId !== undefined ? { dir, codeId: bundle.codeId } : undefined;
    const code = await runHook(argv.slice(1), io, cache);
    // After the answer is out: a cache that cannot be prepared or written only costs time.
    const prepare = bundle.exports.prepareCodeCache as typeof PrepareCodeCache;
    bundle.saveCodeCache(bundle.codeCacheWanted && (await prepare()));
    return code;
  }
  const { main } = await import('./toolgate.js');
  return main(argv, io);
}

run().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`toolgate: ${String(err)}\n`);
    process.exitCode = failureCode;
  },
);
