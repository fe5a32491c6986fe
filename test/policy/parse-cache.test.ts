import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readPolicyLayers } from '../../src/policy/layer-files.js';
import { loadPolicyFiles } from '../../src/policy/layers.js';
import { parsePolicyText } from '../../src/policy/load.js';
import { cached, loadPolicyFilesCached, survivesJson } from '../../src/policy/parse-cache.js';
import { PolicyError } from '../../src/policy/policy-file.js';

/**
 * The hook's policy cache must never answer differently from the policy files: the same
 * compiled policy (digest included, which is kept too) from an entry as from a parse, every
 * edit seen, an invalid file refused every time and never stored, a damaged entry only a miss.
 */
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-parse-cache-')));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let n = 0;
const cacheOf = () => ({ dir: path.join(base, `cache${++n}`), codeId: 'build-1' });

function policyFile(text: string): string {
  const file = path.join(base, `p${++n}`, '.toolgate', 'policy.yaml');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

const PROJECT = [
  'version: 1',
  'extends: [builtin:default]',
  'rules:',
  '  - deny: "Read(/secrets/**)"',
  '    reason: kept out',
  '  - allow: ["Bash(npm test)", "WebFetch(domain:*.example.com)"]',
  '    when: "input.url === undefined || input.url.startsWith(\'https://\')"',
  'sandbox: { timeoutMs: 5000, write: { deny: [".git/**"] } }',
  'tests:',
  '  - { tool: Bash, input: { command: "npm test", n: 1.5, nested: [null, true] }, expect: allow }',
  '',
].join('\n');

/** Only hits: a miss throws, so this proves an answer came from the cache. */
const hitsOnly = (cache: { dir: string; codeId: string }, file: string) =>
  readPolicyLayers([{ file, layer: 'project' }], cached(cache), TRUSTED);

/** The cache, not trust, is tested here: the workspace files are trusted. */
const TRUSTED = { trust: () => 'trusted' as const };

describe('the policy parse cache', () => {
  it('gives the same compiled policy as parsing, digest included, then answers from the cache', async () => {
    const cache = cacheOf();
    const file = policyFile(PROJECT);
    const entries = [{ file, layer: 'project' as const }];
    const parsed = loadPolicyFiles(entries, TRUSTED);
    const first = await loadPolicyFilesCached(entries, cache, TRUSTED);
    const second = await loadPolicyFilesCached(entries, cache, TRUSTED);
    for (const p of [first, second]) {
      expect(p.digest).toBe(parsed.digest);
      expect(p.files).toEqual(parsed.files);
      expect(p.hasConditions).toBe(true);
    }
    expect(hitsOnly(cache, file)).toEqual(parsed.files);
  });

  it('holds for every built-in policy', async () => {
    for (const name of ['default', 'strict', 'readonly-review']) {
      const cache = cacheOf();
      const entries = [{ file: `builtin:${name}`, layer: 'builtin' as const }];
      await loadPolicyFilesCached(entries, cache);
      expect((await loadPolicyFilesCached(entries, cache)).digest).toBe(loadPolicyFiles(entries).digest);
    }
  });

  it('reads every file on every call: an edit is a miss and is parsed again', async () => {
    const cache = cacheOf();
    const file = policyFile('version: 1\nrules:\n  - allow: "Bash(ls)"\n');
    const entries = [{ file, layer: 'project' as const }];
    await loadPolicyFilesCached(entries, cache);
    fs.writeFileSync(file, 'version: 1\nrules:\n  - deny: "Bash(ls)"\n');
    expect(() => hitsOnly(cache, file)).toThrow(/CacheMiss|policy/);
    const edited = await loadPolicyFilesCached(entries, cache);
    expect(edited.rules.map((r) => r.kind)).toEqual(['deny']);
    expect(edited.digest).toBe(loadPolicyFiles(entries).digest);
  });

  it('never stores an invalid file: its errors come back every time', async () => {
    const cache = cacheOf();
    const file = policyFile('version: 1\nrules:\n  - allow: "Bash(ls"\n');
    const entries = [{ file, layer: 'project' as const }];
    for (let i = 0; i < 2; i++) {
      const err = await loadPolicyFilesCached(entries, cache).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PolicyError);
      expect((err as PolicyError).problems[0]?.line).toBe(3);
    }
    expect(fs.existsSync(cache.dir) ? fs.readdirSync(cache.dir) : []).toEqual([]);
  });

  it('a damaged entry, another build or another source is a miss, never a wrong answer', async () => {
    const cache = cacheOf();
    const file = policyFile(PROJECT);
    const entries = [{ file, layer: 'project' as const }];
    await loadPolicyFilesCached(entries, cache);
    expect(() => hitsOnly({ ...cache, codeId: 'build-2' }, file)).toThrow();
    expect(() => readPolicyLayers([{ file, layer: 'user' }], cached(cache))).toThrow();
    for (const name of fs.readdirSync(cache.dir)) {
      const entry = path.join(cache.dir, name);
      const data = fs.readFileSync(entry);
      data[data.length - 3]! ^= 0x20;
      fs.writeFileSync(entry, data);
    }
    expect(() => hitsOnly(cache, file)).toThrow();
    const again = await loadPolicyFilesCached(entries, cache);
    expect(again.digest).toBe(loadPolicyFiles(entries).digest);
  });

  it('does not store what JSON would change (a YAML .inf), and still answers from the parse', async () => {
    const cache = cacheOf();
    const file = policyFile('version: 1\ntests:\n  - { tool: Read, input: { n: .inf }, expect: allow }\n');
    const entries = [{ file, layer: 'project' as const }];
    const p = await loadPolicyFilesCached(entries, cache);
    expect(p.tests[0]?.input).toEqual({ n: Number.POSITIVE_INFINITY });
    // (the digest of the merged policy is kept: it is a string whatever the files hold)
    expect(fs.readdirSync(cache.dir).filter((f) => !f.endsWith('.digest'))).toEqual([]);
  });
});

describe('survivesJson', () => {
  it('accepts plain JSON data only', () => {
    expect(survivesJson({ a: [1, 'x', true, null, { b: -1.5 }] })).toBe(true);
    for (const bad of [
      { a: undefined },
      new Array<number>(2),
      { n: Number.NaN },
      { n: -0 },
      { d: new Date(0) },
      Object.create(null),
      JSON.parse('{"__proto__": 1}'),
      { f: () => 1 },
      { b: 1n },
    ])
      expect(
        survivesJson(bad),
        JSON.stringify(bad, (_k, v) => (typeof v === 'bigint' ? 'bigint' : v)),
      ).toBe(false);
  });

  it('holds for what the parser makes of the shipped policies', () => {
    for (const name of ['default', 'strict', 'readonly-review']) {
      const text = fs.readFileSync(
        path.join(import.meta.dirname, '..', '..', 'policies', `${name}.yaml`),
        'utf8',
      );
      expect(survivesJson(parsePolicyText(text, `builtin:${name}`, 'builtin', '/'))).toBe(true);
    }
  });
});
