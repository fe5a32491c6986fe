import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadBundle } from '../../src/cache/code-cache.js';
import { cacheFileName } from '../../src/cache/entry.js';

/**
 * CommonJS bundles through vm.Script with V8's code cache: the same exports with or without a
 * cache, a cache written once and then used, a corrupt or stale one ignored and rewritten.
 */
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-code-cache-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let n = 0;

function bundle(): { file: string; cacheDir: string } {
  const dir = path.join(base, `b${++n}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'main.cjs'),
    [
      'const path = require("node:path");',
      'exports.name = path.basename(__filename);',
      'exports.answer = function answer(x) { return x * 2; };',
      'exports.later = () => require("./side.cjs").loaded;',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'side.cjs'),
    'globalThis.__sideLoads = (globalThis.__sideLoads ?? 0) + 1; exports.loaded = globalThis.__sideLoads;',
  );
  return { file: path.join(dir, 'main.cjs'), cacheDir: path.join(dir, 'cache') };
}

const entries = (cacheDir: string) =>
  fs.existsSync(path.join(cacheDir, 'v8')) ? fs.readdirSync(path.join(cacheDir, 'v8')).sort() : [];

describe('loadBundle', () => {
  it('runs the bundle as CommonJS, and keeps its code cache for the next process', () => {
    const { file, cacheDir } = bundle();
    const first = loadBundle(file, cacheDir);
    expect(first.exports.name).toBe('main.cjs');
    expect((first.exports.answer as (x: number) => number)(21)).toBe(42);
    expect(first.codeCacheWanted).toBe(true);
    expect(JSON.parse(first.codeId!)).toEqual(expect.arrayContaining([file, process.version]));
    first.saveCodeCache();
    expect(entries(cacheDir)).toEqual([`${cacheFileName([first.codeId!])}.bin`]);
    const second = loadBundle(file, cacheDir);
    expect(second.codeId).toBe(first.codeId);
    expect(second.codeCacheWanted).toBe(false);
    expect((second.exports.answer as (x: number) => number)(2)).toBe(4);
  });

  it('ignores a corrupt cache, and a changed bundle gets a new id', () => {
    const { file, cacheDir } = bundle();
    const first = loadBundle(file, cacheDir);
    first.saveCodeCache();
    const entry = path.join(cacheDir, 'v8', `${cacheFileName([first.codeId!])}.bin`);
    const data = fs.readFileSync(entry);
    data[data.length - 5]! ^= 0xff;
    fs.writeFileSync(entry, data, { mode: 0o600 });
    const again = loadBundle(file, cacheDir);
    expect(again.codeCacheWanted).toBe(true);
    expect((again.exports.answer as (x: number) => number)(5)).toBe(10);
    fs.appendFileSync(file, '\nexports.extra = 1;\n');
    const changed = loadBundle(file, cacheDir);
    expect(changed.codeId).not.toBe(first.codeId);
    expect(changed.exports.extra).toBe(1);
  });

  it('a rebuilt bundle of the same size and mtime (as npm installs them) gets a new id', () => {
    const { file, cacheDir } = bundle();
    const stamp = new Date('1985-10-26T08:15:00Z');
    fs.utimesSync(file, stamp, stamp);
    const first = loadBundle(file, cacheDir);
    first.saveCodeCache();
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('x * 2', 'x * 3'));
    fs.utimesSync(file, stamp, stamp);
    const rebuilt = loadBundle(file, cacheDir);
    expect(rebuilt.codeId).not.toBe(first.codeId);
    expect((rebuilt.exports.answer as (x: number) => number)(2)).toBe(6);
  });

  it('loads a sibling bundle once, on first require, and keeps its cache even when not its own', () => {
    const { file, cacheDir } = bundle();
    const loaded = loadBundle(file, cacheDir);
    const later = loaded.exports.later as () => number;
    const count = later();
    expect(later()).toBe(count);
    loaded.saveCodeCache(false);
    expect(entries(cacheDir)).toHaveLength(1);
    expect(entries(cacheDir)).not.toContain(`${cacheFileName([loaded.codeId!])}.bin`);
  });

  it('without a cache directory it still loads, and keeps nothing', () => {
    const { file, cacheDir } = bundle();
    const loaded = loadBundle(file, undefined);
    expect(loaded.exports.name).toBe('main.cjs');
    expect(loaded.codeCacheWanted).toBe(false);
    loaded.saveCodeCache();
    expect(entries(cacheDir)).toEqual([]);
  });
});
