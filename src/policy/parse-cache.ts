import path from 'node:path';
import { cacheFileName, pruneCacheDir, readCacheEntry, writeCacheEntry } from '../cache/entry.js';
import { type CompiledPolicy, compilePolicy, sha256Hex } from './compile.js';
import { type PolicyParser, type ReadOptions, readPolicyLayers } from './layer-files.js';
import type { Layer, PolicyFile } from './policy-file.js';

/**
 * The hook's policy cache: a fresh process per tool call would otherwise load the YAML parser
 * and zod and parse every policy file again for each decision. An entry holds one parsed,
 * validated file and is keyed on everything the parse reads: the file's whole text, its
 * source, layer and policy root, and `codeId`, which names the code that parsed it (the build,
 * node's version). Every file is still read on every call, so an edited file is a miss and is
 * parsed again (its entry is replaced: entries are named by source, not by text); an invalid
 * file is never stored, so its errors are reported every time; only a value that survives JSON
 * unchanged is stored. A missing, corrupt or unreadable entry is a miss, and a failed write
 * only costs the next call a parse. The merged policy's digest is kept the same way, keyed on
 * the whole canonical text it is taken over.
 */
export interface PolicyCache {
  /** Where the entries live (under the user cache dir). */
  readonly dir: string;
  /** The build and runtime that parse; entries of any other never match. */
  readonly codeId: string;
}

const FORMAT = 'toolgate policy-file 2';
const DIGEST_FORMAT = 'toolgate policy-digest 1';
const MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

class CacheMiss extends Error {
  override name = 'CacheMiss';
}

let parserLoaded = false;

/** Whether this process needed the parser (a miss): its compiled code is not the usual call's. */
export function policyParserLoaded(): boolean {
  return parserLoaded;
}

/** loadPolicyFiles with the cache in front of the parser; the parser loads only on a miss. */
export async function loadPolicyFilesCached(
  entries: readonly { file: string; layer: Layer }[],
  cache: PolicyCache,
  read: ReadOptions = {},
): Promise<CompiledPolicy> {
  const options = { digest: rememberedDigest(cache, entries) };
  try {
    return compilePolicy(readPolicyLayers(entries, cached(cache), read), options);
  } catch (err) {
    if (!(err instanceof CacheMiss)) throw err;
  }
  parserLoaded = true;
  const { parsePolicyText } = await import('./load.js');
  return compilePolicy(readPolicyLayers(entries, cached(cache, parsePolicyText), read), options);
}

/** sha256 of the canonical text, from the cache when this exact text was digested before. */
function rememberedDigest(
  cache: PolicyCache,
  entries: readonly { file: string; layer: Layer }[],
): (canonical: string) => string {
  return (canonical) => {
    const file = path.join(
      cache.dir,
      `${cacheFileName([DIGEST_FORMAT, ...entries.flatMap((e) => [e.file, e.layer])])}.digest`,
    );
    const key = `${DIGEST_FORMAT}\n${canonical}`;
    const hit = readCacheEntry(file, key)?.toString('latin1');
    if (hit !== undefined && /^[0-9a-f]{64}$/.test(hit)) return hit;
    const digest = sha256Hex(canonical);
    writeCacheEntry(file, key, digest);
    return digest;
  };
}

/** A parser answering from the cache; on a miss it parses with `parse` and stores, or throws CacheMiss. */
export function cached(cache: PolicyCache, parse?: PolicyParser): PolicyParser {
  return (text, source, layer, policyRoot) => {
    const where = [FORMAT, cache.codeId, source, layer, policyRoot];
    const file = path.join(cache.dir, `${cacheFileName(where)}.json`);
    const key = JSON.stringify([...where, text]);
    const hit = lookup(file, key);
    if (hit !== undefined) return hit;
    if (parse === undefined) throw new CacheMiss(source);
    const parsed = parse(text, source, layer, policyRoot);
    if (survivesJson(parsed)) {
      if (writeCacheEntry(file, key, JSON.stringify({ file: parsed })))
        pruneCacheDir(cache.dir, MAX_AGE_MS, file);
    }
    return parsed;
  };
}

function lookup(file: string, key: string): PolicyFile | undefined {
  const payload = readCacheEntry(file, key);
  if (payload === undefined) return undefined;
  try {
    const entry = JSON.parse(payload.toString('utf8')) as { file?: PolicyFile };
    return entry.file !== null && typeof entry.file === 'object' ? entry.file : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether JSON.parse(JSON.stringify(value)) gives back the same value: plain objects and
 * arrays of strings, finite numbers, booleans and null only (a YAML `.inf`, an undefined
 * property or a `__proto__` key would not come back the same, so such a file is not stored).
 */
export function survivesJson(value: unknown, depth = 0): boolean {
  if (depth > 100) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !survivesJson(value[i], depth + 1)) return false;
    }
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Reflect.ownKeys(value)) {
    if (typeof key !== 'string' || key === '__proto__') return false;
    const d = Object.getOwnPropertyDescriptor(value, key)!;
    if (!d.enumerable || !('value' in d) || !survivesJson(d.value, depth + 1)) return false;
  }
  return true;
}
