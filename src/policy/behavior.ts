/**
 * The answers a decision can give, as a total order: deny > ask > allow. A PreToolUse hook may
 * also answer `defer` (leave it to whoever asks next): toolgate cannot pause a call for that,
 * so it ranks above ask and below deny. Combining several answers is always "take the
 * strictest" (this file), so no caller writes an if-ladder or a rank table of its own.
 */
export type Behavior = 'allow' | 'ask' | 'deny';
export type Answer = Behavior | 'defer';

const RANK: Readonly<Record<Answer, number>> = { allow: 0, ask: 1, defer: 2, deny: 3 };

/** The stricter of two answers; on a tie the first. */
export function stricter<A extends Answer>(a: A, b: A): A {
  return RANK[a] >= RANK[b] ? a : b;
}

/**
 * The strictest of several answers that each carry a behavior (undefined: no answer); on a
 * tie the earliest, so an ordered list keeps the reason of the first step that gave it.
 */
export function strictest<T extends { readonly behavior: Behavior }>(
  answers: Iterable<T | undefined>,
): T | undefined {
  let out: T | undefined;
  for (const a of answers) out = stricterOf(out, a);
  return out;
}

/** `strictest` of two answers, for a caller that folds them one by one. */
export function stricterOf<T extends { readonly behavior: Behavior }>(
  a: T | undefined,
  b: T | undefined,
): T | undefined {
  if (b === undefined) return a;
  return a === undefined || RANK[b.behavior] > RANK[a.behavior] ? b : a;
}

export function rank(b: Answer): number {
  return RANK[b];
}
