import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addonEntry, addonLoader } from '../../src/cache/addons.js';
import { writeCacheEntry } from '../../src/cache/entry.js';

const require = createRequire(import.meta.url);
const nodeGypBuild = require('node-gyp-build') as { resolve(dir: string): string };
const grammarDir = path.dirname(require.resolve('tree-sitter-bash/package.json'));

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A resolver that counts how often it is asked: the thing the cache saves. */
function counting() {
  const asked: string[] = [];
  const resolve = (dir: string) => {
    asked.push(dir);
    return nodeGypBuild.resolve(dir);
  };
  return { asked, resolve };
}

function cacheEnv(): NodeJS.ProcessEnv {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-addons-'));
  dirs.push(dir);
  return { XDG_CACHE_HOME: dir };
}

const isGrammar = (addon: unknown) =>
  typeof addon === 'object' && addon !== null && (addon as { name?: unknown }).name === 'bash';

describe('addonLoader', () => {
  it('looks an addon up once, then loads it from the path it remembered, in later processes too', () => {
    const env = cacheEnv();
    const first = counting();
    const load = addonLoader(first.resolve, env);
    const addon = load(grammarDir);
    expect(isGrammar(addon)).toBe(true);
    expect(load(grammarDir)).toBe(addon); // one instance per process
    expect(first.asked).toEqual([grammarDir]);

    const later = counting(); // a new process: a new loader, the same cache
    expect(isGrammar(addonLoader(later.resolve, env)(grammarDir))).toBe(true);
    expect(later.asked).toEqual([]);
  });

  it('looks again when the remembered file is gone', () => {
    const env = cacheEnv();
    const entry = addonEntry(grammarDir, env)!;
    // (a file this process never loaded: dlopen would find one it did in memory, gone or not)
    writeCacheEntry(entry.file, entry.key, path.join(env.XDG_CACHE_HOME!, 'reinstalled-elsewhere.node'));
    const after = counting();
    expect(isGrammar(addonLoader(after.resolve, env)(grammarDir))).toBe(true);
    expect(after.asked).toEqual([grammarDir]);
    const again = counting();
    expect(isGrammar(addonLoader(again.resolve, env)(grammarDir))).toBe(true);
    expect(again.asked).toEqual([]);
  });

  it('looks again when the entry is damaged', () => {
    const env = cacheEnv();
    addonLoader(counting().resolve, env)(grammarDir);
    const dir = path.join(env.XDG_CACHE_HOME!, 'toolgate', 'addons');
    for (const entry of fs.readdirSync(dir)) {
      const file = path.join(dir, entry);
      const bytes = fs.readFileSync(file);
      bytes[bytes.length - 3]! ^= 1;
      fs.writeFileSync(file, bytes);
    }
    const after = counting();
    expect(isGrammar(addonLoader(after.resolve, env)(grammarDir))).toBe(true);
    expect(after.asked).toEqual([grammarDir]);
  });

  it('with the caches off, looks every time and writes nothing', () => {
    const env: NodeJS.ProcessEnv = { ...cacheEnv(), TOOLGATE_CACHE: 'off' };
    for (let i = 0; i < 2; i++) {
      const c = counting();
      expect(isGrammar(addonLoader(c.resolve, env)(grammarDir))).toBe(true);
      expect(c.asked).toEqual([grammarDir]);
    }
    expect(fs.existsSync(path.join(env.XDG_CACHE_HOME!, 'toolgate'))).toBe(false);
  });
});
