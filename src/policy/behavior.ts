/**
 * The three answers a decision can give, as a total order: deny > ask > allow.
 * Combining several answers is always "take the strictest", so no caller writes an if-ladder.
 */
export type Behavior = 'allow' | 'ask' | 'deny';

const RANK: Readonly<Record<Behavior, number>> = { allow: 0, ask: 1, deny: 2 };

export function stricter(a: Behavior, b: Behavior): Behavior {
  return RANK[a] >= RANK[b] ? a : b;
}

export function strictest(behaviors: Iterable<Behavior>, start: Behavior = 'allow'): Behavior {
  let out = start;
  for (const b of behaviors) out = stricter(out, b);
  return out;
}

export function rank(b: Behavior): number {
  return RANK[b];
}
