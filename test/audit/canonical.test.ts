import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalError, canonicalize, canonicalMembers } from '../../src/audit/canonical.js';

describe('canonicalize', () => {
  it('sorts keys at every level and writes no whitespace', () => {
    expect(canonicalize({ b: 1, a: { d: [true, null, 'x'], c: -0.5 } })).toBe(
      '{"a":{"c":-0.5,"d":[true,null,"x"]},"b":1}',
    );
  });

  it('orders keys by UTF-16 code units, as RFC 8785 does (not by code point, not numerically)', () => {
    // U+1F600 is the surrogate pair D83D DE00, which sorts before U+FFFD; "10" sorts before "2".
    expect(canonicalize({ '\uFFFD': 1, '\u{1F600}': 2, '2': 3, '10': 4 })).toBe(
      '{"10":4,"2":3,"😀":2,"�":1}',
    );
  });

  it('writes numbers in the shortest round-trip form and -0 as 0', () => {
    expect(canonicalize([1e21, 1e-7, 0.1, -0, 100, 5e-324])).toBe('[1e+21,1e-7,0.1,0,100,5e-324]');
  });

  it('escapes strings as JSON.stringify does, lone surrogates included', () => {
    expect(canonicalize('a"\\\n\u0001\u2028\ud800')).toBe('"a\\"\\\\\\n\\u0001\u2028\\ud800"');
  });

  it('leaves out members whose value is undefined', () => {
    expect(canonicalize({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it.each([
    ['NaN', { x: Number.NaN }, '/x'],
    ['Infinity', [1, Number.POSITIVE_INFINITY], '/1'],
    ['a bigint', { n: 1n }, '/n'],
    ['a function', { f: () => 1 }, '/f'],
    ['undefined in an array', [undefined], '/0'],
    ['a Date', { when: new Date(0) }, '/when'],
    ['a Map', { m: new Map() }, '/m'],
    ['a key with a slash', { 'a/b': { '~': Symbol('s') } }, '/a~1b/~0'],
  ])('refuses %s, naming where it is', (_what, value, where) => {
    expect(() => canonicalize(value)).toThrow(CanonicalError);
    try {
      canonicalize(value);
    } catch (err) {
      expect((err as CanonicalError).pointer).toBe(where);
    }
  });

  it('refuses cycles', () => {
    const a: Record<string, unknown> = {};
    a.self = { back: a };
    expect(() => canonicalize(a)).toThrow(/cycle/);
  });

  it('accepts a value that appears twice without being a cycle', () => {
    const shared = { x: 1 };
    expect(canonicalize({ a: shared, b: [shared] })).toBe('{"a":{"x":1},"b":[{"x":1}]}');
  });

  it('keeps an own "__proto__" member (as JSON.parse makes it) as data', () => {
    expect(canonicalize(JSON.parse('{"__proto__":{"polluted":1},"a":1}'))).toBe(
      '{"__proto__":{"polluted":1},"a":1}',
    );
  });

  it('is stable under key reordering', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer(), (value, seed) => {
        expect(canonicalize(shuffleKeys(value, seed))).toBe(canonicalize(value));
      }),
    );
  });

  it('round-trips: parsing it gives the value back, and canonicalizing that gives the same text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalize(value);
        const back = JSON.parse(text);
        expect(back).toEqual(JSON.parse(JSON.stringify(value)));
        expect(canonicalize(back)).toBe(text);
      }),
    );
  });

  // canonicalize writes plain data in one pass and hands anything else, or anything nested
  // deeper than 64, to a careful writer: both must write exactly what the definition says.
  it('writes what a plain reference of RFC 8785 writes, shallow or nested past 64 levels', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(100), fc.boolean(), (value, depth, inArrays) => {
        let nested: unknown = value;
        for (let i = 0; i < depth; i++) nested = inArrays ? [nested, i] : { [`k${i % 3}`]: nested, z: i };
        expect(canonicalize(nested)).toBe(reference(nested));
      }),
    );
  });

  it('gives the members of an object that join into its canonical text', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (obj) => {
        const members = canonicalMembers(obj);
        expect(`{${members.map((m) => m.text).join(',')}}`).toBe(canonicalize(obj));
        expect(members.map((m) => m.key)).toEqual(Object.keys(obj).sort());
      }),
    );
  });

  it('refuses a cycle deep inside a value, and non-data past the one-pass depth, naming where', () => {
    let deep: unknown = { bad: Number.NaN };
    for (let i = 0; i < 70; i++) deep = [deep];
    expect(() => canonicalize(deep)).toThrow(CanonicalError);
    try {
      canonicalize(deep);
    } catch (err) {
      expect((err as CanonicalError).pointer).toBe(`${'/0'.repeat(70)}/bad`);
    }
    const loop: unknown[] = [];
    loop.push({ a: loop });
    expect(() => canonicalize({ x: loop })).toThrow(/cycle/);
  });
});

/** RFC 8785 for JSON data, written the obvious way (no refusals: the inputs are data). */
function reference(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${reference(obj[k])}`)
    .join(',')}}`;
}

function shuffleKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((v, i) => shuffleKeys(v, seed + i));
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value);
  // A deterministic shuffle driven by the seed, so a failure reproduces.
  let s = seed;
  for (let i = entries.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [entries[i], entries[j]] = [entries[j]!, entries[i]!];
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries)
    Object.defineProperty(out, k, {
      value: shuffleKeys(v, s),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return out;
}
