import { escapeRegExp } from './glob.js';

/**
 * Bash(pattern): matched against one simple command's argv, words joined by single spaces.
 * `*` matches anything, spaces included. A trailing ` *` (or the legacy `:*`) is a word
 * boundary: `ls *` matches `ls` and `ls -la` but not `lsof`. `ls*` matches both.
 */
export function compileBashPattern(pattern: string): (command: string) => boolean {
  const { literals, tail } = patternParts(pattern);
  const re = new RegExp(`^${literals.map(escapeRegExp).join('.*')}${tail ? '(?: .*)?' : ''}$`, 's');
  return (command) => re.test(command);
}

/**
 * For a command whose words after `prefix` are only known at run time: whether it could match
 * the pattern, as `prefix` alone or followed by any further words (`git p$X` may be `git
 * push`). Deny and ask rules use it to fail closed.
 */
export function compileBashPrefixPattern(pattern: string): (prefix: string) => boolean {
  const { literals, tail } = patternParts(pattern);
  const full = compileBashPattern(pattern);
  const first = literals[0]!;
  return (prefix) => {
    if (full(prefix)) return true;
    const s = `${prefix} `;
    if (first.startsWith(s)) return true;
    if (!s.startsWith(first)) return false;
    // Past the first literal: a `*` can take the rest of `s`; a trailing ` *` only from a space on.
    return literals.length > 1 || (tail && s.slice(first.length).startsWith(' '));
  };
}

function patternParts(pattern: string): { literals: string[]; tail: boolean } {
  let p = pattern.trim();
  if (p.endsWith(':*')) p = `${p.slice(0, -2)} *`;
  const tail = p.endsWith(' *');
  if (tail) p = p.slice(0, -2);
  return { literals: p.split('*'), tail };
}
