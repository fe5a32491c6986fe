import path from 'node:path';

/**
 * An absolute, normalized path other than `/`, without a trailing slash: one that is its
 * parent's path plus a name.
 * Telling it without path.normalize or path.resolve, which were a fair part of what a decision
 * about a new path cost: most paths a decision sees are plain already.
 */
export function isPlain(p: string): boolean {
  if (p.length < 2 || p.charCodeAt(0) !== 47 /* / */ || p.charCodeAt(p.length - 1) === 47) return false;
  let start = 1;
  while (start <= p.length) {
    let end = p.indexOf('/', start);
    if (end < 0) end = p.length;
    const len = end - start;
    if (len === 0) return false;
    if (p.charCodeAt(start) === 46 /* . */ && (len === 1 || (len === 2 && p.charCodeAt(start + 1) === 46)))
      return false;
    start = end + 1;
  }
  return true;
}

/**
 * path.resolve(base, p) for an absolute `base`, without it where both are plain already (a
 * plain `base`, and `p` plain itself or names without `.`, `..` or empty ones): most operands
 * a decision resolves are such names (`README.md`, `src/app.ts`), and path.resolve was a fair
 * part of what resolving them cost.
 */
export function resolvePlain(base: string, p: string): string {
  if (p.charCodeAt(0) === 47 /* / */) return isPlain(p) ? p : path.resolve(p);
  if (p === '' || !isPlain(base)) return path.resolve(base, p);
  // A command that runs where the line starts (no `cd` before it) runs in `.`.
  if (p === '.') return base;
  const joined = `${base}/${p}`;
  return isPlain(joined) ? joined : path.resolve(base, p);
}
