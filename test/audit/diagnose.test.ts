import { describe, expect, it } from 'vitest';
import { diagnose, type Located } from '../../src/audit/diagnose.js';
import { GENESIS } from '../../src/audit/record.js';

/** A synthetic intact chain: record k is on line k, with hash "h<k>". */
const h = (k: number) => `h${k}`;
const rec = (seq: number, line = seq, prev = seq === 1 ? GENESIS : h(seq - 1), hash = h(seq)): Located => ({
  seq,
  line,
  prev,
  hash,
});
const chain = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => rec(from + i));

/** The break at `at`, after records 1..good, with `after` following it. */
function at(good: number, r: Located, after: Located[] = []) {
  return diagnose({
    at: r,
    expected: { seq: good + 1, prev: good === 0 ? GENESIS : h(good) },
    before: chain(1, good),
    after,
  });
}

describe('diagnose', () => {
  it('a copy of an earlier record: inserted', () => {
    expect(at(5, rec(2, 6))).toMatchObject({
      kind: 'inserted',
      line: 6,
      message: expect.stringMatching(/copy of line 2/),
    });
  });

  it('a second chain starting: inserted', () => {
    expect(at(5, rec(1, 6, GENESIS, 'other1'))).toMatchObject({
      kind: 'inserted',
      message: expect.stringMatching(/second chain/),
    });
  });

  it('the expected record later, and the one here fits after it: reordered', () => {
    // lines: 1..4, 6, 5, 7...
    expect(at(4, rec(6, 5), [rec(5, 6), rec(7, 7)])).toMatchObject({ kind: 'reordered', line: 5, seq: 6 });
  });

  it('the expected record later, and the one here fits nowhere: inserted', () => {
    expect(at(4, rec(5, 5, 'zz', 'forged'), [rec(5, 6), rec(6, 7)])).toMatchObject({
      kind: 'inserted',
      line: 5,
    });
  });

  it('links to the record before but carries the wrong seq: inserted', () => {
    expect(at(4, rec(9, 5, h(4), 'forged'))).toMatchObject({
      kind: 'inserted',
      message: expect.stringMatching(/carries seq 9 instead of 5/),
    });
  });

  it('right seq, wrong prev, and the chain continues from it: the record before was edited and re-hashed', () => {
    expect(at(4, rec(5, 5, 'real4'), [rec(6, 6)])).toMatchObject({ kind: 'edited', line: 4, seq: 4 });
  });

  it('right seq, wrong prev, nothing after to tell: inserted, and it says it cannot tell', () => {
    expect(at(4, rec(5, 5, 'zz', 'forged'))).toMatchObject({
      kind: 'inserted',
      line: 5,
      message: expect.stringMatching(/cannot tell which/),
    });
  });

  it('a first record that does not start a chain: inserted', () => {
    expect(at(0, rec(1, 1, 'zz'))).toMatchObject({
      kind: 'inserted',
      line: 1,
      message: expect.stringMatching(/genesis/),
    });
  });

  it('seq skips ahead and prev names a record that comes later: reordered', () => {
    // Record 5 is not in the window after the break, so rule "expected record later" cannot apply.
    expect(at(4, rec(8, 5), [rec(7, 6, 'x6', h(7))])).toMatchObject({ kind: 'reordered', line: 5, seq: 8 });
  });

  it('seq skips ahead and prev names nothing in the log: removed, with the range', () => {
    expect(at(4, rec(8, 5), [rec(9, 6)])).toMatchObject({
      kind: 'removed',
      line: 5,
      seq: 8,
      message: expect.stringMatching(/seq 5\.\.7 are missing \(3\)/),
    });
  });

  it('a second record claiming a seq that is already taken, after the same record: inserted', () => {
    expect(at(6, { seq: 3, line: 7, prev: h(2), hash: 'h3-bis' })).toMatchObject({
      kind: 'inserted',
      line: 7,
    });
  });

  it('seq goes backwards, fitting where its seq says: reordered', () => {
    // Record 3 was moved from line 3 to line 7 (the window before the break lacks it).
    const before = chain(1, 6).filter((r) => r.seq !== 3);
    const moved = diagnose({ at: rec(3, 7), expected: { seq: 7, prev: h(6) }, before, after: [] });
    expect(moved).toMatchObject({
      kind: 'reordered',
      line: 7,
      seq: 3,
      message: expect.stringMatching(/goes backwards/),
    });
  });

  it('seq goes backwards and links to nothing: inserted', () => {
    expect(at(6, rec(3, 7, 'zz', 'forged'))).toMatchObject({
      kind: 'inserted',
      message: expect.stringMatching(/links to no record near it/),
    });
  });
});
