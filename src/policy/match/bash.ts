import { escapeRegExp } from './glob.js';

/**
 * Bash(pattern): matched against one simple command's argv, words joined by single spaces.
 * `*` matches anything, spaces included. A trailing ` *` (or the legacy `:*`) is a word
 * boundary: `ls *` matches `ls` and `ls -la` but not `lsof`. `ls*` matches both.
 */
export function compileBashPattern(pattern: string): (command: string) => boolean {
  let p = pattern.trim();
  if (p.endsWith(':*')) p = `${p.slice(0, -2)} *`;
  let tail = '';
  if (p.endsWith(' *')) {
    p = p.slice(0, -2);
    tail = '(?: .*)?';
  }
  const body = p.split('*').map(escapeRegExp).join('.*');
  const re = new RegExp(`^${body}${tail}$`, 's');
  return (command) => re.test(command);
}
