import path from 'node:path';
import { userCacheDir } from './dir.js';
import { cacheFileName, readCacheEntry, writeCacheEntry } from './entry.js';

/**
 * Native addons for a hook process (tree-sitter and its Bash grammar), found once. Finding a
 * package's addon (node-gyp-build: list build/ and prebuilds/, match file names against the
 * platform, read package.json) costs a Bash call ~1 ms, every call; the file it found is kept
 * under the user cache dir, keyed on the package directory and node's ABI, platform and
 * architecture, and loaded with process.dlopen (no module resolution). A file that is gone or
 * does not load is looked for again. Each directory's addon is loaded once per process: a second
 * dlopen of the same file would make a second instance of the module, with state of its own.
 */
export function addonLoader(
  resolve: (dir: string) => string,
  env: NodeJS.ProcessEnv = process.env,
): (dir: string) => unknown {
  const loaded = new Map<string, unknown>();
  return (dir) => {
    let addon = loaded.get(dir);
    if (addon === undefined) {
      addon = load(dir, resolve, env);
      loaded.set(dir, addon);
    }
    return addon;
  };
}

const FORMAT = 'toolgate-addon 1';

/** Where the path of `dir`'s addon is remembered (undefined with the caches off). */
export function addonEntry(dir: string, env: NodeJS.ProcessEnv): { file: string; key: string } | undefined {
  const cacheDir = userCacheDir(env);
  if (cacheDir === undefined) return undefined;
  const key = [FORMAT, dir, process.versions.modules, process.platform, process.arch].join('\n');
  return { file: path.join(cacheDir, 'addons', `${cacheFileName([key])}.path`), key };
}

function load(dir: string, resolve: (dir: string) => string, env: NodeJS.ProcessEnv): unknown {
  let entry: { file: string; key: string } | undefined;
  try {
    entry = addonEntry(dir, env);
  } catch {
    // no WebAssembly for the entry's checksum (node --jitless): no cache, the addon still loads
  }
  const cached = entry === undefined ? undefined : readCacheEntry(entry.file, entry.key)?.toString('utf8');
  if (cached !== undefined && path.isAbsolute(cached) && cached.endsWith('.node')) {
    try {
      return dlopen(cached);
    } catch {
      // gone, or not loadable any more: look again
    }
  }
  const file = resolve(dir);
  const addon = dlopen(file);
  if (entry !== undefined && file !== cached) writeCacheEntry(entry.file, entry.key, file);
  return addon;
}

function dlopen(file: string): unknown {
  const module = { exports: {} as unknown };
  process.dlopen(module, path.toNamespacedPath(file));
  return module.exports;
}
