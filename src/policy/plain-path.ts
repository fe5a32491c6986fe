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
