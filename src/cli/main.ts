#!/usr/bin/env node
import fs from 'node:fs';
import path from 'node:path';
import { loadBundle } from '../cache/code-cache.js';
import { userCacheDir } from '../cache/dir.js';
import type { runExec as RunExec } from './exec-main.js';
import type {
  prepareCodeCache as PrepareCodeCache,
  runHook as RunHook,
  serveWarmHooks as ServeWarmHooks,
} from './hook-main.js';
import type { CliIO } from './io.js';
import { watchParentOfReexec } from './reexec.js';
import { readStdin, writeStdout } from './stdio.js';
import { perCallVars, warmSocketPath } from './warm.js';
import { askWarm, startWarm } from './warm-client.js';

const argv = process.argv.slice(2);
// A crash anywhere in a hook must still block the call: Claude Code proceeds on any exit code but 2.
const failureCode = argv[0] === 'hook' ? 2 : 1;
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (err) => {
    // stdout's reader has left (`toolgate check --stdin | head`): end quietly, as cat does;
    // a hook's caller never got its answer, so the hook still blocks.
    if ((err as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') process.exit(failureCode === 2 ? 2 : 0);
    process.stderr.write(`toolgate: internal error: ${describeCrash(err)}\n`);
    process.exit(failureCode);
  });
}

// A child restarted for isolated-vm stops when the toolgate process it was started for dies.
watchParentOfReexec(process.env);

/** The message, and the stack only for whoever debugs toolgate (TOOLGATE_DEBUG=1). */
function describeCrash(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (process.env.TOOLGATE_DEBUG === '1') return err.stack ?? err.message;
  return `${err.message} — a bug in toolgate; TOOLGATE_DEBUG=1 shows where`;
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
/**
 * `toolgate exec` likewise (exec.cjs): an agent harness may start it for every batch of calls,
 * and compiling its ES module chunks took most of its start-up. It shares the hook's zod, YAML
 * and Bash bundles.
 */
const EXEC_BUNDLE = path.join(import.meta.dirname, 'exec.cjs');

/** Beyond the hook's own limit (hook.ts), so that an oversized input gets the hook's refusal. */
const WARM_MAX_INPUT_BYTES = 64 * 1024 * 1024;

async function run(): Promise<number> {
  if (argv[0] === 'hook' && fs.existsSync(HOOK_BUNDLE)) {
    const dir = userCacheDir(io.env);
    // A hook restarted for isolated-vm (TOOLGATE_REEXEC) decides by itself: its parent asked.
    const warm =
      argv.includes('--warm') && dir !== undefined && io.env.TOOLGATE_REEXEC !== '1'
        ? warmSocket(dir)
        : undefined;
    if (warm !== undefined) {
      io.input = await readStdin(io, WARM_MAX_INPUT_BYTES, 'hook input');
      const askedAt = Date.now();
      const answer = await askWarm(warm, {
        v: 2,
        argv: argv.slice(1),
        cwd: io.cwd,
        stdin: io.input,
        vars: perCallVars(io.env),
      });
      if (answer !== undefined && 'code' in answer) {
        writeStdout(io, answer.stdout);
        if (answer.stderr !== '') io.stderr.write(answer.stderr);
        return answer.code;
      }
      if (answer === undefined) startWarmAfterwards = { socket: warm, askedAt };
    }
    const { bundle, runHook, cache } = loadHook(dir);
    const code = await runHook(argv.slice(1), io, cache);
    // After the answer is out: a cache that cannot be prepared or written only costs time.
    const prepare = bundle.exports.prepareCodeCache as typeof PrepareCodeCache;
    bundle.saveCodeCache(bundle.codeCacheWanted && (await prepare()));
    return code;
  }
  if (argv[0] === 'hook-warm' && argv[1] !== undefined && fs.existsSync(HOOK_BUNDLE)) {
    const { bundle, runHook, cache } = loadHook(userCacheDir(io.env));
    const serve = bundle.exports.serveWarmHooks as typeof ServeWarmHooks;
    const idle = Number(io.env.TOOLGATE_WARM_IDLE_MS);
    const build = bundleStat();
    return serve(argv[1], (args, callIO) => runHook(args, callIO, cache), {
      ...(idle > 0 ? { idleMs: idle } : {}),
      // a new build (or install) of the hook gets a warm process of its own: this one leaves
      current: () => bundleStat() === build,
    });
  }
  if (argv[0] === 'exec' && fs.existsSync(EXEC_BUNDLE)) {
    const dir = userCacheDir(io.env);
    const bundle = loadBundle(EXEC_BUNDLE, dir, typeof require === 'function' ? require : undefined);
    const runExec = bundle.exports.runExec as typeof RunExec;
    const code = await runExec(argv.slice(1), io, cacheOf(dir, bundle.codeId));
    // After the last result is out: V8 keeps the functions that ran, and a cache that cannot
    // be written only costs the next run time.
    bundle.saveCodeCache();
    return code;
  }
  const { main } = await import('./toolgate.js');
  return main(argv, io);
}

function loadHook(dir: string | undefined) {
  // Built, this file is CommonJS beside the bundle, and its require() resolves as theirs would.
  const bundle = loadBundle(HOOK_BUNDLE, dir, typeof require === 'function' ? require : undefined);
  const runHook = bundle.exports.runHook as typeof RunHook;
  return { bundle, runHook, cache: cacheOf(dir, bundle.codeId) };
}

/** Where a bundled command keeps parsed policies: only with a directory and a code id to key on. */
function cacheOf(dir: string | undefined, codeId: string | undefined) {
  return dir !== undefined && codeId !== undefined ? { dir, codeId } : undefined;
}

/**
 * The warm process's socket for this build; undefined when there can be none. The bundles are
 * named by their size, mtime and inode, not their content (the code cache's key): a stat each,
 * where reading and checksumming them would cost the call a millisecond. An install or a build
 * writes new files, and so new inodes or mtimes.
 */
function warmSocket(dir: string): string | undefined {
  const build = [HOOK_BUNDLE, bundleStat(), process.version, process.execArgv.join(' ')];
  return warmSocketPath(dir, build.join('\n'), io.env);
}

const HOOK_BUNDLES = ['hook.cjs', 'hook-bash.cjs', 'hook-yaml.cjs', 'hook-zod.cjs'].map((name) =>
  path.join(import.meta.dirname, name),
);

function bundleStat(): string {
  return HOOK_BUNDLES.map((file) => {
    try {
      const st = fs.statSync(file, { bigint: true });
      return `${st.size} ${st.mtimeNs} ${st.ino}`;
    } catch {
      return 'missing';
    }
  }).join(' ');
}

/** Set when a `--warm` call found no warm process: one is started once the answer is out. */
let startWarmAfterwards: { socket: string; askedAt: number } | undefined;

run().then(
  (code) => {
    process.exitCode = code;
    if (startWarmAfterwards !== undefined && process.argv[1] !== undefined)
      startWarm(startWarmAfterwards.socket, process.argv[1], io.env, startWarmAfterwards.askedAt);
  },
  (err) => {
    process.stderr.write(`toolgate: internal error: ${describeCrash(err)}\n`);
    process.exitCode = failureCode;
  },
);
