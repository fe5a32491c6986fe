/**
 * The hash chain. A record's `hash` is sha256 (hex) over the canonical JSON of the record
 * without its `hash` member; its `prev` is the previous record's hash (GENESIS for the first).
 * `prev` is inside the hashed text, so each hash commits to the whole history before it.
 */
import { hash as digest } from 'node:crypto';
import { canonicalize, canonicalMembers } from './canonical.js';
import { FORMAT_VERSION } from './format.js';
import type { DecisionRecord, UnchainedRecord } from './record.js';

/**
 * node:crypto, even in a hook process that appends one record: a JavaScript sha256
 * (@noble/hashes) was measured there, and its three hashes of a kilobyte, run cold by the
 * interpreter, took 3.3 ms, more than loading node:crypto (2.7 ms) and hashing natively (0.3).
 */
export function sha256Hex(data: string | Uint8Array): string {
  return digest('sha256', data, 'hex');
}

/** The hash a record must carry, by the definition above. */
export function recordHash(record: Omit<DecisionRecord, 'hash'>): string {
  return sha256Hex(canonicalize(record));
}

export interface SealedRecord {
  record: DecisionRecord;
  /** The JSON Lines line, without its newline: the canonical JSON of the whole record. */
  line: string;
  /**
   * Where seal put the `"hash":"…",` member in `line` (a character offset), or -1 when it
   * is the last member (no comma follows it). Cutting those characters out leaves exactly the
   * text that was hashed: what lineHash does with the first `"hash":"` of a line's bytes.
   */
  hashAt: number;
}

/** Gives a record its place in the chain. */
export function seal(body: UnchainedRecord, at: { seq: number; prev: string; ts: string }): SealedRecord {
  const unhashed = { ...body, v: FORMAT_VERSION, seq: at.seq, ts: at.ts, prev: at.prev } as Omit<
    DecisionRecord,
    'hash'
  >;
  // One serialization for both texts: the record's members without `hash` are hashed, and the
  // line is the same members with `hash` put in its sorted place (canonicalize(record) exactly).
  const members = canonicalMembers(unhashed);
  const texts = members.map((m) => m.text);
  const hashed = `{${texts.join(',')}}`;
  const hash = sha256Hex(hashed);
  const after = members.findIndex((m) => m.key > 'hash');
  const record = { ...unhashed, hash } as DecisionRecord;
  const member = `"hash":${JSON.stringify(hash)}`;
  if (after === -1) return { record, line: `${hashed.slice(0, -1)},${member}}`, hashAt: -1 };
  // `{` and the members before it, each with its comma: the hashed text up to that point.
  const hashAt = 1 + texts.slice(0, after).reduce((n, t) => n + t.length + 1, 0);
  return { record, line: `${hashed.slice(0, hashAt)}${member},${hashed.slice(hashAt)}`, hashAt };
}

const HASH_KEY = Buffer.from('"hash":"');
/** `"hash":"` + 64 hex digits + `",` */
const HASH_MEMBER_LENGTH = HASH_KEY.length + 64 + 2;
const scratch = { buf: Buffer.allocUnsafe(64 * 1024) };

/**
 * The fast way to check a written line: sha256 over the line's bytes with the top-level
 * `"hash":"…",` member cut out. For a canonical line that is exactly the canonical JSON of
 * the record without `hash` (removing one member from a canonical object leaves the
 * canonical object without it; `hash` is never first or last, `decision` sorts before it and
 * `id` after). The first `"hash":"` in a canonical v1 line is the top-level member: a quote
 * inside a string is always escaped, every object that sorts before `hash` has a fixed set of
 * keys, and `request` (the only free-form object) sorts after it.
 *
 * Returns undefined when the line does not have that shape; the caller then falls back to
 * parsing and canonicalizing, which is the definition.
 */
export function lineHash(line: Buffer): { claimed: string; actual: string } | undefined {
  const at = line.indexOf(HASH_KEY);
  if (at <= 0) return undefined;
  const end = at + HASH_MEMBER_LENGTH;
  if (end > line.length || line[end - 2] !== 0x22 || line[end - 1] !== 0x2c) return undefined;
  const claimed = line.toString('latin1', at + HASH_KEY.length, end - 2);
  const size = line.length - HASH_MEMBER_LENGTH;
  if (scratch.buf.length < size) scratch.buf = Buffer.allocUnsafe(Math.max(size, scratch.buf.length * 2));
  // One contiguous buffer and a one-shot hash: measurably faster than two update() calls.
  line.copy(scratch.buf, 0, 0, at);
  line.copy(scratch.buf, at, end);
  return { claimed, actual: sha256Hex(scratch.buf.subarray(0, size)) };
}
