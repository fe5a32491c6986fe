/**
 * The fast path of line.ts, without the record schema: a line whose bytes hash to its `hash`
 * and whose `v`, `seq`, `prev` agree is a link of the chain. Appending reads the last line this
 * way; anything it does not accept goes to line.ts for the full check and its diagnosis.
 */
import { lineHash } from './chain.js';
import { FORMAT_VERSION } from './format.js';

/** The members the chain is checked with. */
export interface Link {
  seq: number;
  prev: string;
  hash: string;
}

export function fastLink(line: Buffer): Link | undefined {
  const hashed = lineHash(line);
  if (hashed === undefined || hashed.claimed !== hashed.actual) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.toString('utf8'));
  } catch {
    return undefined;
  }
  const r = parsed as Partial<Record<'v' | 'seq' | 'prev' | 'hash', unknown>>;
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  if (r.v !== FORMAT_VERSION || r.hash !== hashed.claimed) return undefined;
  if (typeof r.seq !== 'number' || !Number.isSafeInteger(r.seq) || r.seq < 1) return undefined;
  // Not checked for being hex here (a regex per record is measurable): a prev that is not the
  // previous record's hash breaks the chain, and diagnose() takes it from there.
  if (typeof r.prev !== 'string') return undefined;
  return { seq: r.seq, prev: r.prev, hash: r.hash };
}
