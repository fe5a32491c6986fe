/**
 * What went wrong where the chain first breaks. The record at the break is self-consistent
 * (its hash matches its content) but does not follow the record before it; which tampering
 * explains that is read off the records around it: up to a window of good records before the
 * break and of self-consistent records after it.
 *
 * Rules, in order (R = the record at the break, E/P = the seq and prev it should have had):
 *  1. R's hash equals an earlier record's: `inserted` (a copy).
 *  2. R starts a new chain (seq 1 after the genesis value): `inserted` (another log appended).
 *  3. An earlier record has R's seq and R's prev (two records claim one place): `inserted`,
 *     naming the one the rest of the chain does not continue from; if neither or both are
 *     continued, the earlier one, and the message says it cannot tell.
 *  4. The record R should have been (seq E, prev P) comes later: `reordered` if R also fits
 *     somewhere else in the chain (its prev is the hash of record seq-1, or record seq+1 links
 *     to it), else `inserted` (it fits nowhere; the chain continues past it).
 *  5. R links to the record before it but carries the wrong seq: `inserted` (it was written
 *     with a recomputed hash).
 *  6. R has seq E but links elsewhere: if the rest of the chain continues from R, the record
 *     before R was changed and re-hashed: `edited` at that record. Otherwise `inserted`, and the
 *     message says that R or the one before it was replaced.
 *  7. R's seq skips ahead: `reordered` if its prev is a record that comes later in the file,
 *     else `removed` (records E..seq-1 are missing and R links to one of them).
 *  8. R's seq goes backwards: `reordered` if R fits where its seq says, else `inserted`.
 * Tampering beyond the window can be classified less precisely, never missed: every rule
 * reports the break.
 */
import type { Link } from './line.js';
import { GENESIS } from './record.js';

export type BreakKind = 'edited' | 'inserted' | 'removed' | 'reordered';

export interface Located extends Link {
  line: number;
}

export interface Finding {
  kind: BreakKind;
  line: number;
  seq: number;
  message: string;
}

export interface BreakContext {
  at: Located;
  expected: { seq: number; prev: string };
  /** Good records before the break, in file order (the last one is on the line before it). */
  before: readonly Located[];
  /** Self-consistent records after the break, in file order, up to the first that is not. */
  after: readonly Located[];
}

export function diagnose({ at: r, expected, before, after }: BreakContext): Finding {
  const find = (kind: BreakKind, where: Located, message: string): Finding => ({
    kind,
    line: where.line,
    seq: where.seq,
    message,
  });
  const e = expected.seq;
  const last = before[before.length - 1];

  const copy = before.find((b) => b.hash === r.hash);
  if (copy) return find('inserted', r, `line ${r.line} is a copy of line ${copy.line} (seq ${copy.seq})`);

  if (r.seq === 1 && r.prev === GENESIS) {
    return find(
      'inserted',
      r,
      `a second chain starts at line ${r.line} (seq 1 again): another log was appended to this one`,
    );
  }

  const rival = before.find((b) => b.seq === r.seq && b.prev === r.prev);
  if (rival) {
    const rivalContinued = before.some((b) => b.prev === rival.hash);
    const rContinued = after[0] !== undefined && after[0].prev === r.hash;
    const both = `lines ${rival.line} and ${r.line} both claim seq ${r.seq} after the same record`;
    if (rivalContinued && !rContinued)
      return find(
        'inserted',
        r,
        `${both}; the chain continues from line ${rival.line}, so line ${r.line} was inserted`,
      );
    if (rContinued && !rivalContinued)
      return find(
        'inserted',
        rival,
        `${both}; the chain continues from line ${r.line}, so line ${rival.line} was inserted`,
      );
    return find('inserted', rival, `${both}; one of them was inserted (cannot tell which)`);
  }

  const due = after.find((a) => a.seq === e && a.prev === expected.prev);
  if (due) {
    const known = [...before, ...after];
    const fits = known.some(
      (z) => (z.hash === r.prev && z.seq === r.seq - 1) || (z.prev === r.hash && z.seq === r.seq + 1),
    );
    if (fits)
      return find(
        'reordered',
        r,
        `seq ${r.seq} (line ${r.line}) comes before seq ${e} (line ${due.line}): records are out of order`,
      );
    return find(
      'inserted',
      r,
      `line ${r.line} (seq ${r.seq}) fits nowhere in the chain, which continues at line ${due.line}`,
    );
  }

  if (r.prev === expected.prev) {
    return find(
      'inserted',
      r,
      `line ${r.line} links to the record before it but carries seq ${r.seq} instead of ${e}: it was written with a recomputed hash`,
    );
  }

  if (r.seq === e) {
    const continued = after[0] !== undefined && after[0].prev === r.hash && after[0].seq === r.seq + 1;
    if (last === undefined) {
      return find(
        'inserted',
        r,
        `the first record does not start a chain (its prev is not the genesis value): it was forged or the log's beginning replaced`,
      );
    }
    if (continued) {
      return find(
        'edited',
        last,
        `line ${last.line} (seq ${last.seq}) was changed and its hash recomputed (or the record replaced): line ${r.line}, which the rest of the chain continues from, links to a different hash`,
      );
    }
    return find(
      'inserted',
      r,
      `line ${r.line} (seq ${r.seq}) does not link to line ${last.line} (seq ${last.seq}): one of the two was replaced by a record with a recomputed hash (cannot tell which)`,
    );
  }

  if (r.seq > e) {
    const later = after.find((a) => a.hash === r.prev);
    if (later)
      return find(
        'reordered',
        r,
        `line ${r.line} (seq ${r.seq}) links to line ${later.line}, which comes after it: records are out of order`,
      );
    const missing = r.seq - e;
    const what =
      missing === 1
        ? `record seq ${e} is missing`
        : `records seq ${e}..${r.seq - 1} are missing (${missing})`;
    return find(
      'removed',
      r,
      `${what}: line ${r.line} (seq ${r.seq}) links to a record that is not in the log`,
    );
  }

  const fitsEarlier = [...before, ...after].some((z) => z.hash === r.prev && z.seq === r.seq - 1);
  if (fitsEarlier)
    return find(
      'reordered',
      r,
      `seq goes backwards: seq ${r.seq} (line ${r.line}) after seq ${e - 1}: records are out of order`,
    );
  return find(
    'inserted',
    r,
    `seq goes backwards (seq ${r.seq} at line ${r.line}, after seq ${e - 1}) and it links to no record near it: a copy of an older record, or a forgery`,
  );
}
