import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/audit/canonical.js';
import { recordHash, seal } from '../../src/audit/chain.js';
import { toUnchainedRecord } from '../../src/audit/entry.js';
import { checkLine } from '../../src/audit/line.js';
import { GENESIS } from '../../src/audit/record.js';
import { arbitraryEntry } from './fixtures/arbitrary.js';
import { forge, sampleEntry } from './fixtures/sample.js';

const ctx = {
  engine: '0.1.0',
  grammar: '0.25.1',
  redact: false,
  id: () => '00000000-0000-4000-8000-000000000000',
};
const at = { seq: 3, prev: 'c'.repeat(64), ts: '2025-01-01T00:00:00.000Z' };
const good = seal(toUnchainedRecord(sampleEntry(0), ctx), at);
const check = (line: string, deep = false) => checkLine(Buffer.from(line), deep);

describe('checkLine', () => {
  it('accepts a written record on both paths and reads its link', () => {
    const link = { seq: 3, prev: 'c'.repeat(64), hash: good.record.hash };
    expect(check(good.line)).toEqual({ ok: true, link });
    expect(check(good.line, true)).toEqual({ ok: true, link });
  });

  it('accepts every record the writer can produce, on both paths', () => {
    fc.assert(
      fc.property(arbitraryEntry, fc.integer({ min: 1, max: 2 ** 40 }), (entry, seq) => {
        const { line } = seal(toUnchainedRecord(entry, ctx), { ...at, seq });
        expect(check(line).ok).toBe(true);
        expect(check(line, true).ok).toBe(true);
      }),
    );
  });

  it('calls a changed byte in a field an edit', () => {
    const line = good.line.replace('Matches a deny rule', 'Matches a deny rulf');
    expect(check(line)).toMatchObject({ ok: false, problem: { kind: 'edited', seq: 3 } });
  });

  it('calls an edit that also breaks the schema an edit, not a stray line', () => {
    const line = good.line.replace('"behavior":"deny"', '"behavior":"denx"');
    expect(check(line)).toMatchObject({ ok: false, problem: { kind: 'edited' } });
  });

  it('calls a record re-serialized with the same content an edit, and says so', () => {
    const line = JSON.stringify(JSON.parse(good.line), null, 1).replaceAll('\n', '');
    expect(check(line)).toMatchObject({
      ok: false,
      problem: { kind: 'edited', message: expect.stringMatching(/re-serialized/) },
    });
  });

  it.each([
    ['an empty line', ''],
    ['text', 'hello'],
    ['a cut line', good.line.slice(0, 100)],
    ['a JSON array', '[1,2]'],
    ['JSON without a version', '{"seq":1}'],
    ['a record without a hash', JSON.stringify({ ...JSON.parse(good.line), hash: undefined })],
  ])('calls %s not-json', (_what, line) => {
    expect(check(line)).toMatchObject({ ok: false, problem: { kind: 'not-json' } });
  });

  it('calls a record of a later format newer-version, without judging its hash', () => {
    const line = canonicalize({ ...JSON.parse(good.line), v: 2, hash: 'not checked' });
    expect(check(line)).toMatchObject({ ok: false, problem: { kind: 'newer-version', v: 2, seq: 3 } });
  });

  it('accepts a well-hashed line that is not a record only on the fast path; deep refuses it', () => {
    // A forger who computes hashes can write anything; deep mode still proves the shape.
    const bare = { v: 1, seq: 1, prev: GENESIS, decision: {}, id: 'x' };
    const line = canonicalize({ ...bare, hash: recordHash(bare as never) });
    expect(check(line).ok).toBe(true);
    expect(check(line, true)).toMatchObject({
      ok: false,
      problem: { kind: 'not-json', message: expect.stringMatching(/not a v1 record/) },
    });
  });

  it('sees a forged record (recomputed hash) as self-consistent: only the chain can tell', () => {
    const line = forge(good.line, (r) => {
      (r.decision as { behavior: string }).behavior = 'allow';
    });
    expect(check(line, true).ok).toBe(true);
  });

  it('never accepts a line with one byte changed, on either path', () => {
    const bytes = Buffer.from(good.line);
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (pos, delta) => {
        const mutated = Buffer.from(bytes);
        mutated[pos] = (mutated[pos]! + delta) % 256;
        expect(checkLine(mutated).ok).toBe(false);
        expect(checkLine(mutated, true).ok).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
