/**
 * What one line of the log says about itself, before it is compared with its neighbours:
 * a self-consistent record (its hash matches its content), or what is wrong with it.
 */
import { isUtf8 } from 'node:buffer';
import { type CanonicalMember, canonicalMembers } from './canonical.js';
import { sha256Hex } from './chain.js';
import { fastLink, type Link } from './line-link.js';
import { FORMAT_VERSION, RecordSchema } from './record.js';

export type { Link } from './line-link.js';

export type LineProblem =
  | { kind: 'not-json'; message: string; seq?: number }
  | { kind: 'newer-version'; message: string; v: number; seq?: number }
  | { kind: 'edited'; message: string; seq?: number };

export type LineCheck = { ok: true; link: Link } | { ok: false; problem: LineProblem };

/**
 * `deep` also proves each record is a well-formed v1 record in canonical form. Without it,
 * a line is accepted when its exact bytes hash to its `hash` and it parses to a record whose
 * `v`, `seq`, `prev` and `hash` agree with those bytes: that is everything tampering can
 * change, since a writer who can recompute hashes can write any well-formed record anyway.
 * The writer only ever writes canonical, schema-valid lines, and every line that fails the
 * fast path is judged by the full definition, so the difference only shows on lines some
 * other program wrote with hashes of its own.
 */
export function checkLine(line: Buffer, deep = false): LineCheck {
  if (!deep) {
    const link = fastLink(line);
    if (link !== undefined) return { ok: true, link };
  }
  return fullCheck(line);
}

/** The definition, step by step; slow, and only run on lines the fast path did not accept. */
function fullCheck(line: Buffer): LineCheck {
  if (line.length === 0) return problem('not-json', 'the line is empty');
  const text = line.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return problem('not-json', `the line is not JSON (${err instanceof Error ? err.message : String(err)})`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return problem(
      'not-json',
      `the line is a JSON ${Array.isArray(parsed) ? 'array' : typeof parsed}, not a record`,
    );
  }
  const obj = parsed as Record<string, unknown>;
  const seq = typeof obj.seq === 'number' && Number.isSafeInteger(obj.seq) ? obj.seq : undefined;
  const at = seq === undefined ? {} : { seq };
  if (typeof obj.v === 'number' && Number.isInteger(obj.v) && obj.v > FORMAT_VERSION) {
    return {
      ok: false,
      problem: {
        kind: 'newer-version',
        v: obj.v,
        ...at,
        message: `the record is format v${obj.v}, written by a newer toolgate; this engine reads v${FORMAT_VERSION}`,
      },
    };
  }
  if (obj.v !== FORMAT_VERSION)
    return problem('not-json', 'the line is JSON but not a decision record (no valid "v")', at);
  if (typeof obj.hash !== 'string') return problem('not-json', 'the record has no "hash"', at);
  // One serialization gives both the hashed text (without `hash`) and the whole line.
  const members = canonicalMembers(obj);
  const join = (ms: CanonicalMember[]) => `{${ms.map((m) => m.text).join(',')}}`;

  // The content is compared with its hash before its shape: a one-byte edit that also breaks
  // the schema (e.g. "allow" -> "allox") is an edit, not a stray line.
  if (sha256Hex(join(members.filter((m) => m.key !== 'hash'))) !== obj.hash) {
    return problem('edited', 'the content does not match its hash', at);
  }
  const shape = RecordSchema.safeParse(obj);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    return problem(
      'not-json',
      `the line hashes correctly but is not a v1 record (${where}${issue?.message ?? 'invalid'})`,
      at,
    );
  }
  if (!isUtf8(line) || text !== join(members)) {
    return problem(
      'edited',
      'the line was re-serialized: its content matches its hash but it is not in canonical form',
      at,
    );
  }
  return { ok: true, link: { seq: shape.data.seq, prev: shape.data.prev, hash: shape.data.hash } };
}

function problem(kind: 'not-json' | 'edited', message: string, at: { seq?: number } = {}): LineCheck {
  return { ok: false, problem: { kind, message, ...at } };
}
