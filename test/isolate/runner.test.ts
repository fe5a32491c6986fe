import { spawnSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { type CompiledCode, createIsolateRunner, type IsolateRunner } from '../../src/isolate/runner.js';

const runners: IsolateRunner[] = [];
afterAll(() => {
  for (const runner of runners) runner.dispose();
});

function runner(options: Parameters<typeof createIsolateRunner>[0] = {}): IsolateRunner {
  const made = createIsolateRunner(options);
  runners.push(made);
  return made;
}

async function compiled(r: IsolateRunner, source: string, kind: 'expression' | 'script' = 'expression') {
  const c = await r.compile(source, { kind });
  if (!c.ok) throw new Error(`${c.kind}: ${c.message}`);
  return c.code;
}

describe('compiling', () => {
  it('reports a syntax error at compile time, as a value', async () => {
    const r = runner();
    const c = await r.compile('input.a +', { kind: 'expression' });
    expect(c).toMatchObject({ ok: false, kind: 'syntax' });
    expect(!c.ok && c.message).toMatch(/SyntaxError/);
  });

  it('compiles once and runs many times with different globals', async () => {
    const r = runner();
    const code = await compiled(r, 'input.a * 2');
    for (const a of [1, 2, 3]) {
      expect(await r.run(code, { input: { a } }, { timeoutMs: 1000 })).toEqual({ ok: true, value: a * 2 });
    }
  });
});

describe('limits', () => {
  it('stops an infinite loop, reports a timeout, and works again afterwards', async () => {
    const r = runner();
    const loop = await compiled(r, 'while (true) {}', 'script');
    const out = await r.run(loop, {}, { timeoutMs: 100 });
    expect(out).toMatchObject({ ok: false, kind: 'timeout' });
    expect(await r.run(await compiled(r, '1 + 1'), {}, { timeoutMs: 1000 })).toEqual({ ok: true, value: 2 });
  });

  it('stops a memory bomb, reports it, and a fresh isolate serves the next call (same compiled code)', async () => {
    const r = runner({ memoryLimitMb: 16 });
    const bomb = await compiled(
      r,
      'const a = []; while (true) a.push(new Array(100000).fill(1.5));',
      'script',
    );
    const ok = await compiled(r, 'input.n + 1');
    expect(await r.run(ok, { input: { n: 1 } }, { timeoutMs: 1000 })).toEqual({ ok: true, value: 2 });
    expect(await r.run(bomb, {}, { timeoutMs: 10_000 })).toMatchObject({ ok: false, kind: 'memory' });
    // The isolate was disposed; code compiled before is recompiled transparently.
    expect(await r.run(ok, { input: { n: 41 } }, { timeoutMs: 1000 })).toEqual({ ok: true, value: 42 });
    expect(await r.run(bomb, {}, { timeoutMs: 10_000 })).toMatchObject({ ok: false, kind: 'memory' });
    expect(await r.run(ok, { input: { n: 2 } }, { timeoutMs: 1000 })).toEqual({ ok: true, value: 3 });
  });

  it('reports a thrown error with its type', async () => {
    const r = runner();
    const out = await r.run(
      await compiled(r, 'throw new RangeError("too big")', 'script'),
      {},
      { timeoutMs: 1000 },
    );
    expect(out).toEqual({ ok: false, kind: 'threw', message: 'RangeError: too big' });
  });
});

describe('what the code can see', () => {
  it('has no require, process, module, fetch or host objects', async () => {
    const r = runner();
    const probe = await compiled(
      r,
      '[typeof require, typeof process, typeof module, typeof fetch, typeof setTimeout, typeof globalThis.global]',
    );
    expect(await r.run(probe, {}, { timeoutMs: 1000 })).toEqual({
      ok: true,
      value: ['undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
    });
  });

  it('gets JSON copies in, so it cannot change the host object', async () => {
    const r = runner();
    const host = { input: { list: [1, 2] } };
    const out = await r.run(await compiled(r, 'input.list.push(3); input.list', 'script'), host, {
      timeoutMs: 1000,
    });
    expect(out).toEqual({ ok: true, value: [1, 2, 3] });
    expect(host.input.list).toEqual([1, 2]);
  });

  it('starts every run in a fresh context', async () => {
    const r = runner();
    const set = await compiled(r, 'globalThis.leak = 1; 0', 'script');
    const get = await compiled(r, 'typeof leak');
    await r.run(set, {}, { timeoutMs: 1000 });
    expect(await r.run(get, {}, { timeoutMs: 1000 })).toEqual({ ok: true, value: 'undefined' });
  });

  it('returns results as JSON copies and refuses what JSON cannot carry', async () => {
    const r = runner();
    const run = async (source: string) => r.run(await compiled(r, source), {}, { timeoutMs: 1000 });
    expect(await run('({ d: new Date(0), n: NaN })')).toEqual({
      ok: true,
      value: { d: '1970-01-01T00:00:00.000Z', n: null },
    });
    expect(await run('undefined')).toEqual({ ok: true, value: undefined });
    expect(await run('() => 1')).toMatchObject({ ok: false, kind: 'not-json' });
    expect(await run('10n')).toMatchObject({ ok: false, kind: 'not-json' });
    expect(await run('(() => { const o = {}; o.o = o; return o; })()')).toMatchObject({
      ok: false,
      kind: 'not-json',
    });
    expect(await run('Promise.resolve(1)')).toMatchObject({ ok: false, kind: 'not-json' });
  });

  it('copies globals as JSON does (functions vanish) and refuses what JSON cannot carry', async () => {
    const r = runner();
    const code = await compiled(r, 'typeof input.f');
    expect(await r.run(code, { input: { f: () => 1 } } as never, { timeoutMs: 1000 })).toEqual({
      ok: true,
      value: 'undefined',
    });
    expect(await r.run(code, { big: 1n } as never, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      kind: 'not-json',
    });
    expect(await r.run(code, { 'not-a-name': 1 }, { timeoutMs: 1000 })).toMatchObject({
      ok: false,
      kind: 'not-json',
    });
  });
});

describe('deterministic mode', () => {
  it.each([
    'Math.random()',
    'Date.now()',
    'new Date()',
    'Date()',
    'new Intl.DateTimeFormat("en").format()',
    'Object.getPrototypeOf(new Date(0)).constructor.now()',
  ])('%s throws', async (source) => {
    const r = runner({ deterministic: true });
    const out = await r.run(await compiled(r, source), {}, { timeoutMs: 1000 });
    expect(out).toMatchObject({ ok: false, kind: 'threw' });
    expect(!out.ok && out.message).toMatch(/same answer every time/);
  });

  it('keeps dates built from values, and removes GC observers', async () => {
    const r = runner({ deterministic: true });
    const out = await r.run(
      await compiled(r, '[new Date(86400000).toISOString(), Date.UTC(2020, 0, 1), typeof WeakRef]'),
      {},
      { timeoutMs: 1000 },
    );
    expect(out).toEqual({ ok: true, value: ['1970-01-02T00:00:00.000Z', 1577836800000, 'undefined'] });
  });

  it('gives the same answer for the same input (property)', async () => {
    const r = runner({ deterministic: true });
    const code: CompiledCode = await compiled(r, 'JSON.stringify(input) + ":" + Object.keys(input).length');
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.string(), fc.jsonValue()), async (input) => {
        const a = await r.run(code, { input }, { timeoutMs: 1000 });
        const b = await r.run(code, { input }, { timeoutMs: 1000 });
        expect(a).toEqual(b);
        expect(a).toEqual({ ok: true, value: `${JSON.stringify(input)}:${Object.keys(input).length}` });
      }),
      { numRuns: 50 },
    );
  });

  it('leaves the clock and randomness alone when not deterministic', async () => {
    const r = runner();
    const out = await r.run(
      await compiled(r, 'typeof Math.random() === "number" && Date.now() > 0'),
      {},
      { timeoutMs: 1000 },
    );
    expect(out).toEqual({ ok: true, value: true });
  });
});

describe('without --no-node-snapshot', () => {
  it('answers unavailable instead of loading isolated-vm', () => {
    const env = { ...process.env, NODE_OPTIONS: '' };
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'without-flag.ts')],
      { encoding: 'utf8', env, cwd: process.cwd() },
    );
    expect(JSON.parse(child.stdout)).toMatchObject({
      ok: false,
      kind: 'unavailable',
      message: /--no-node-snapshot/,
    });
  });
});
