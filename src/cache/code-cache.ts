import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { checksum64 } from './checksum.js';
import { cacheFileName, pruneCacheDir, readCacheEntry, writeCacheEntry } from './entry.js';

/**
 * Loads a CommonJS bundle the way require() would, but through vm.Script with V8's code cache
 * kept under the user cache dir: a process that starts for one decision then skips compiling
 * the code it runs. Node 20 has no code cache for ES modules, hence CommonJS bundles.
 *
 * An entry is keyed on the bundle (path, size, a checksum of its content) and on node's
 * version, platform and flags, and is used only when the bundle did not change while it was read. V8 checks its
 * own version, flags and the source length and refuses a mismatch (the script then compiles
 * from source and the entry is written again); the entry's checksum catches damage.
 *
 * `require('./NAME.cjs')` inside a bundle loads that sibling bundle the same way, once: code
 * that only some calls need (a parser, a validator) stays out of the bundle every call loads.
 * A bundle loaded this way has no import(): node 20 loses a script's dynamic import handler
 * when the script comes from a code cache, so the build turns import() into require().
 */
export interface LoadedBundle {
  readonly exports: Record<string, unknown>;
  /**
   * Names this code and runtime (the bundle's path, size and content checksum, node's version,
   * platform and flags), for other caches to key on; undefined if it changed while read.
   */
  readonly codeId: string | undefined;
  /** Whether this bundle has no usable code cache yet (and there is a directory to keep one in). */
  readonly codeCacheWanted: boolean;
  /**
   * Stores the code caches still wanted, once: the sibling bundles' always, this bundle's when
   * `self` is true. Call when the work is done: V8 keeps the functions that ran.
   */
  saveCodeCache(self?: boolean): void;
}

const MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * `hostRequire`, when given, must resolve as a require() made in the bundle's own directory
 * would: main.js passes its own (it sits beside the bundles), which spares a hook process
 * node:module and the module machinery createRequire() loads with it (~0.5 ms).
 */
export function loadBundle(
  file: string,
  cacheDir: string | undefined,
  hostRequire?: NodeJS.Require,
): LoadedBundle {
  const siblings = new Map<string, Loaded>();
  const main = load(file, cacheDir, siblings, hostRequire);
  return {
    exports: main.exports,
    codeId: main.codeId,
    codeCacheWanted: main.entry !== undefined,
    saveCodeCache(self = true) {
      for (const sibling of siblings.values()) save(sibling);
      if (self) save(main);
    },
  };
}

interface Loaded {
  readonly exports: Record<string, unknown>;
  readonly codeId: string | undefined;
  readonly script: vm.Script;
  /** Where to write the code cache, while one is wanted. */
  entry: { readonly file: string; readonly key: string } | undefined;
}

function load(
  file: string,
  cacheDir: string | undefined,
  siblings: Map<string, Loaded>,
  hostRequire: NodeJS.Require | undefined,
): Loaded {
  const { source, codeId } = readStable(file);
  let entry =
    cacheDir !== undefined && codeId !== undefined
      ? { file: path.join(cacheDir, 'v8', `${cacheFileName([codeId])}.bin`), key: codeId }
      : undefined;
  const cachedData = entry === undefined ? undefined : readCacheEntry(entry.file, entry.key);
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
  if (cachedData !== undefined && script.cachedDataRejected !== true) entry = undefined;
  const dir = path.dirname(file);
  const nodeRequire = hostRequire ?? process.getBuiltinModule('node:module').createRequire(file);
  const require = Object.assign(
    (id: string): unknown => {
      if (!(id.startsWith('./') && id.endsWith('.cjs'))) return nodeRequire(id);
      const sibling = path.join(dir, id);
      let loaded = siblings.get(sibling);
      if (loaded === undefined) {
        loaded = load(sibling, cacheDir, siblings, hostRequire);
        siblings.set(sibling, loaded);
      }
      return loaded.exports;
    },
    { resolve: nodeRequire.resolve, cache: nodeRequire.cache },
  );
  const module = { exports: {} as Record<string, unknown> };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, require, module, file, dir);
  return { exports: module.exports, codeId, script, entry };
}

/** The bundle's text and code id; no id when the file changed while it was read. */
function readStable(file: string): { source: string; codeId: string | undefined } {
  const fd = fs.openSync(file, 'r');
  try {
    const before = fs.fstatSync(fd);
    const bytes = fs.readFileSync(fd);
    const source = bytes.toString('utf8');
    const after = fs.fstatSync(fd);
    if (before.size !== after.size || before.mtimeMs !== after.mtimeMs) return { source, codeId: undefined };
    // The content, not only the file's size, mtime and inode: npm gives every file of a package
    // the same mtime, an inode can be reused, and V8 checks no more of the source than its
    // length, so a new build of the same size could otherwise run the old build's code.
    let sum: bigint;
    try {
      sum = checksum64(bytes);
    } catch {
      // no WebAssembly (node --jitless): no code id, so no caches, but the bundle still runs
      return { source, codeId: undefined };
    }
    const key = [
      file,
      after.size,
      sum.toString(16),
      process.version,
      process.platform,
      process.arch,
      process.execArgv,
    ];
    return { source, codeId: JSON.stringify(key) };
  } finally {
    fs.closeSync(fd);
  }
}

function save(loaded: Loaded): void {
  const entry = loaded.entry;
  if (entry === undefined) return;
  loaded.entry = undefined;
  try {
    if (writeCacheEntry(entry.file, entry.key, loaded.script.createCachedData()))
      pruneCacheDir(path.dirname(entry.file), MAX_AGE_MS, entry.file);
  } catch {
    // a cache that cannot be written only costs the next call a compile
  }
}
