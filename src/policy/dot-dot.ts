import path from 'node:path';
import type { FileSystemView } from './fs-view.js';
import { resolvePlain } from './plain-path.js';

/**
 * resolvePlain(base, p), except that a `..` goes up from where the kernel is at that point: the
 * target of a link named before it, not the link's own directory. path.resolve drops `link/..`
 * as text, so `WS/link/../x` (link -> OUT/sub) was decided as WS/x while every write through
 * that path lands in OUT/x: a deny rule on OUT never met it. Paths without `..` (nearly all)
 * take resolvePlain's way and cost nothing more.
 */
export function resolveAsOpened(base: string, p: string, fs: FileSystemView): string {
  if (!hasDotDot(p) && !(p.charCodeAt(0) !== 47 /* / */ && hasDotDot(base))) return resolvePlain(base, p);
  const whole = p.charCodeAt(0) === 47 ? p : `${base}/${p}`;
  let at = '/';
  for (const name of whole.split('/')) {
    if (name === '' || name === '.') continue;
    // Up from the real directory reached so far (a missing one resolves as far as it exists:
    // opening through it fails anyway).
    if (name === '..') at = path.dirname(fs.realpath(at));
    else at = at === '/' ? `/${name}` : `${at}/${name}`;
  }
  return at;
}

function hasDotDot(p: string): boolean {
  return p === '..' || p.startsWith('../') || p.endsWith('/..') || p.includes('/../');
}
