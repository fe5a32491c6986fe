/**
 * Whether a decision log is intact, and if not, the first bad record and what is wrong with
 * it. Reads the log once, as a stream, and never writes anything (not even a lock).
 *
 * Classification (the first problem in file order wins):
 * - `missing` no such file; `empty` a file with no bytes; `io` any other read failure.
 * - `checkpoint` the checkpoint file is missing, unreadable, malformed, or its signature does
 *   not verify with the given public key (or it is unsigned when a key is given).
 * - `not-json` a line that is not JSON, or JSON that is not a v1 record.
 * - `newer-version` a record whose `v` is above the format this engine reads.
 * - `edited` a record whose content does not match its own hash (or whose bytes are not the
 *   canonical form of it); also a record changed and re-hashed, when the next record shows it
 *   (see diagnose.ts).
 * - `inserted`, `removed`, `reordered` a self-consistent record that does not follow the one
 *   before it; diagnose.ts has the exact rules and says in its message when it cannot tell.
 * - `truncated` the last line has no newline (a cut-off write), or the checkpoint counts more
 *   records than the log has, or its head hash is not the hash of the record at that count.
 *
 * - with a witness (witness.ts, what left the machine): `rewritten` a record that is not the
 *   one the witness holds at its seq, or a checkpoint of the witness whose head the log does not
 *   have (re-chained, replaced); `truncated` the log ends before the witness's last record or
 *   checkpoint (cut, emptied); `unwitnessed` records after everything the witness holds: with
 *   a witness they are an error, not a warning (forged, or not exported yet: export, then
 *   verify again); `witness` the witness cannot be read or does not check itself.
 *
 * Without a checkpoint, records cut off the end cannot be detected (nothing says they
 * existed); the result says so. Records after the checkpoint's count are chained but not
 * covered by the checkpoint; the result counts them (`checkpoint.beyond`).
 */

import type { KeyObject } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { type CheckpointRead, type KeyInput, readCheckpoint, verifyingKeyOf } from './checkpoint.js';
import { type BreakKind, diagnose, type Located } from './diagnose.js';
import { describe } from './error.js';
import { checkLine, type LineProblem, type Link } from './line.js';
import { readLines } from './reader.js';
import { GENESIS } from './record.js';
import type { Witness } from './witness.js';

export type VerifyErrorKind =
  | 'missing'
  | 'empty'
  | 'io'
  | 'checkpoint'
  | LineProblem['kind']
  | BreakKind
  | 'truncated'
  | 'rewritten'
  | 'unwitnessed'
  | 'witness';

export interface VerifyOk {
  ok: true;
  /** Records in the log (= the seq of the last one). */
  count: number;
  /** The hash of the last record. */
  head: string;
  checkpoint?: {
    count: number;
    ts: string;
    signed: boolean;
    /** The signature was checked with the given public key. */
    verified: boolean;
    /** Records after the checkpoint's count: intact, but not covered by it. */
    beyond: number;
  };
  /** With a witness: the records it holds and the highest seq it vouches for (= count). */
  witness?: { records: number; checkpoints: number; covers: number };
}

export interface VerifyFailure {
  ok: false;
  kind: VerifyErrorKind;
  message: string;
  /** 1-based line of the first bad record, when there is one. */
  line?: number;
  /** Its seq, when it can be read. */
  seq?: number;
  /** Records verified good before it. */
  verified: number;
}

export type VerifyResult = VerifyOk | VerifyFailure;

export interface VerifyOptions {
  checkpointPath?: string;
  /** Ed25519 public key (KeyObject or PEM): the checkpoint must be signed by its private key. */
  publicKey?: KeyInput;
  /** Also check that every record is a well-formed v1 record in canonical form (about half the speed). */
  deep?: boolean;
  /** What left the machine (readWitness): the log must hold exactly that, and no more. */
  witness?: Witness;
}

/** How far around a break diagnose() may look. */
const WINDOW = 1024;

export async function verifyLog(path: string, options: VerifyOptions = {}): Promise<VerifyResult> {
  let key: KeyObject | undefined;
  if (options.publicKey !== undefined) {
    try {
      key = verifyingKeyOf(options.publicKey);
    } catch (err) {
      return fail('checkpoint', `the public key cannot be used: ${describe(err)}`, 0);
    }
    if (options.checkpointPath === undefined)
      return fail('checkpoint', 'a public key verifies a checkpoint: give the checkpoint too', 0);
  }
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      return fail('missing', `${path} does not exist${witnessed(options.witness, 'the log was deleted')}`, 0);
    return fail('io', `cannot read ${path}: ${describe(err)}`, 0);
  }
  try {
    const st = await file.stat();
    if (!st.isFile()) return fail('io', `${path} is not a regular file`, 0);
    if (st.size === 0)
      return fail(
        'empty',
        `${path} is empty: it holds no records${witnessed(options.witness, 'it was emptied')}`,
        0,
      );
    // The checkpoint is read before the log: a writer appending meanwhile can only make the
    // log longer than its checkpoint, which is fine, never shorter, which would look cut off.
    let checkpoint: CheckpointRead | undefined;
    if (options.checkpointPath !== undefined) {
      checkpoint = await readCheckpoint(options.checkpointPath, key);
      if (!checkpoint.ok) return fail('checkpoint', checkpoint.message, 0);
    }
    return await walk(
      file,
      path,
      options.deep === true,
      checkpoint?.ok ? checkpoint : undefined,
      options.witness,
    );
  } catch (err) {
    return fail('io', `cannot read ${path}: ${describe(err)}`, 0);
  } finally {
    await file.close();
  }
}

async function walk(
  file: FileHandle,
  path: string,
  deep: boolean,
  checkpoint: Extract<CheckpointRead, { ok: true }> | undefined,
  witness: Witness | undefined,
): Promise<VerifyResult> {
  let count = 0;
  let prev = GENESIS;
  // The last WINDOW good records and their lines, as a ring (only read when the chain breaks).
  const recent: Link[] = new Array(WINDOW);
  const recentLines = new Int32Array(WINDOW);
  let breakAt: Located | undefined;
  const after: Located[] = [];
  let bad: VerifyFailure | undefined;
  const cpCount = checkpoint?.checkpoint.count;
  let hashAtCheckpoint: string | undefined;
  // The witness's checkpoints by count, and the first record that differs from it.
  const witnessHeads = new Map(witness?.checkpoints.map((c) => [c.count, c]));
  let rewritten: VerifyFailure | undefined;

  const summary = await readLines(file, (line, n) => {
    const c = checkLine(line, deep);
    if (breakAt !== undefined) {
      if (!c.ok) return false;
      after.push({ ...c.link, line: n });
      return after.length < WINDOW;
    }
    if (!c.ok) {
      bad = {
        ok: false,
        kind: c.problem.kind,
        message: c.problem.message,
        line: n,
        verified: count,
      };
      if (c.problem.seq !== undefined) bad.seq = c.problem.seq;
      return false;
    }
    const link = c.link;
    if (link.seq !== count + 1 || link.prev !== prev) {
      breakAt = { ...link, line: n };
      return true;
    }
    count++;
    prev = link.hash;
    if (count === cpCount) hashAtCheckpoint = link.hash;
    if (witness !== undefined && rewritten === undefined) {
      const held = witness.records.get(count);
      const head = witnessHeads.get(count);
      if ((held !== undefined && held !== link.hash) || (head !== undefined && head.head !== link.hash)) {
        rewritten = fail(
          'rewritten',
          held !== undefined && held !== link.hash
            ? `record ${count} is not the record the witness received at seq ${count} (hash ${link.hash.slice(0, 16)}…, the witness has ${held.slice(0, 16)}…): the log was rewritten from here (re-chained or replaced)`
            : `the witness holds a checkpoint (written ${head!.ts}) whose record ${count} has hash ${head!.head.slice(0, 16)}…, the log's has ${link.hash.slice(0, 16)}…: the log was rewritten (re-chained or replaced)`,
          count - 1,
          n,
          count,
        );
        return false;
      }
    }
    recent[count % WINDOW] = link;
    recentLines[count % WINDOW] = n;
    return true;
  });

  if (bad !== undefined) return bad;
  if (rewritten !== undefined) return rewritten;
  if (breakAt !== undefined) {
    const before = ringInOrder(recent, recentLines, count);
    const finding = diagnose({ at: breakAt, expected: { seq: count + 1, prev }, before, after });
    return {
      ok: false,
      kind: finding.kind,
      message: finding.message,
      line: finding.line,
      seq: finding.seq,
      verified: Math.min(count, finding.line - 1),
    };
  }
  if (summary.tornBytes > 0) {
    const n = summary.lines + 1;
    return fail(
      'truncated',
      `line ${n} is incomplete (${summary.tornBytes} bytes, no newline): a write was cut off`,
      count,
      n,
    );
  }
  if (count === 0) return fail('empty', `${path} holds no records`, 0);
  if (witness !== undefined) {
    if (count < witness.covers) {
      return fail(
        'truncated',
        `the witness holds records up to seq ${witness.covers} but the log ends after ${count}: ${witness.covers - count} record(s) were cut off the end`,
        count,
        count + 1,
      );
    }
    if (count > witness.covers) {
      return fail(
        'unwitnessed',
        `records ${witness.covers + 1}..${count} are not in the witness, which ends at seq ${witness.covers}: forged, or not exported yet (let the exporter flush, then verify again)`,
        witness.covers,
        undefined,
        witness.covers + 1,
      );
    }
  }
  const ok: VerifyOk = { ok: true, count, head: prev };
  if (witness !== undefined)
    ok.witness = {
      records: witness.records.size,
      checkpoints: witness.checkpoints.length,
      covers: witness.covers,
    };
  if (checkpoint !== undefined) {
    const cp = checkpoint.checkpoint;
    if (count < cp.count) {
      return fail(
        'truncated',
        `the checkpoint (written ${cp.ts}) counts ${cp.count} records but the log ends after ${count}: ${cp.count - count} record(s) were cut off the end`,
        count,
        count + 1,
      );
    }
    if (hashAtCheckpoint !== cp.head) {
      return fail(
        'truncated',
        `record ${cp.count} has hash ${hashAtCheckpoint?.slice(0, 16)}…, but the checkpoint (written ${cp.ts}) says ${cp.head.slice(0, 16)}…: the log was cut back and rewritten after the checkpoint`,
        cp.count - 1,
        cp.count,
        cp.count,
      );
    }
    ok.checkpoint = {
      count: cp.count,
      ts: cp.ts,
      signed: checkpoint.signed,
      verified: checkpoint.verified,
      beyond: count - cp.count,
    };
  }
  return ok;
}

function witnessed(witness: Witness | undefined, what: string): string {
  return witness === undefined ? '' : `, but the witness holds records up to seq ${witness.covers}: ${what}`;
}

function ringInOrder(links: Link[], lines: Int32Array, count: number): Located[] {
  const out: Located[] = [];
  for (let c = Math.max(1, count - WINDOW + 1); c <= count; c++)
    out.push({ ...links[c % WINDOW]!, line: lines[c % WINDOW]! });
  return out;
}

function fail(
  kind: VerifyErrorKind,
  message: string,
  verified: number,
  line?: number,
  seq?: number,
): VerifyFailure {
  const f: VerifyFailure = { ok: false, kind, message, verified };
  if (line !== undefined) f.line = line;
  if (seq !== undefined) f.seq = seq;
  return f;
}
