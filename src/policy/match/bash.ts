import type { OptionSpellings } from '../../bash/option-spellings.js';
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
 * push`). Deny and ask rules use it to fail closed. With `options` (a deny or ask rule, which
 * also meets a command by the options it names wherever they stand, see
 * compileBashOptionPattern), a prefix that agrees with the pattern's leading words may be
 * completed by those options too (`git push origin $X` may be `git push origin --force`).
 */
export function compileBashPrefixPattern(
  pattern: string,
  { options = false }: { options?: boolean } = {},
): (prefix: string) => boolean {
  const { literals, tail } = patternParts(pattern);
  const full = compileBashPattern(pattern);
  const first = literals[0]!;
  const lead = options ? optionPatternParts(pattern)?.lead : undefined;
  return (prefix) => {
    if (full(prefix)) return true;
    if (lead !== undefined && agrees(prefix.split(' '), lead)) return true;
    const s = `${prefix} `;
    if (first.startsWith(s)) return true;
    if (!s.startsWith(first)) return false;
    // Past the first literal: a `*` can take the rest of `s`; a trailing ` *` only from a space on.
    return literals.length > 1 || (tail && s.slice(first.length).startsWith(' '));
  };
}

/** Whether two lists of words are equal as far as both go. */
function agrees(a: readonly string[], b: readonly string[]): boolean {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function patternParts(pattern: string): { literals: string[]; tail: boolean } {
  let p = pattern.trim();
  if (p.endsWith(':*')) p = `${p.slice(0, -2)} *`;
  const tail = p.endsWith(' *');
  if (tail) p = p.slice(0, -2);
  return { literals: p.split('*'), tail };
}

/** What an option-naming pattern is matched against: a command's words and their option spellings. */
export interface OptionWords {
  readonly words: readonly string[];
  readonly spellings: OptionSpellings;
}

/**
 * Deny and ask rules that name options (`git push --force *`, `rm -rf *`, `git branch -D *`)
 * also match the command however those options are written, since getopt reads them all alike:
 * anywhere after the pattern's leading words (`git push origin --force`), clustered (`-uf`),
 * by another name of the same option (`-f`), abbreviated (`--forc`, which git and GNU
 * getopt take for `--force` when nothing else starts so: taking it for the rule's option can
 * only make the rule match more), with a value (`--force=1`, `--context prod`). The pattern's
 * shape: literal words, then option words, standalone `*`s, and a trailing ` *`; an option
 * word may end in `*` (`--force*`: any option starting so), which also ends the pattern. Other
 * patterns are undefined here (the text match alone applies). Allow rules never use this.
 */
export function compileBashOptionPattern(pattern: string): ((w: OptionWords) => boolean) | undefined {
  const parts = optionPatternParts(pattern);
  if (parts === undefined) return undefined;
  const { lead, options } = parts;
  return ({ words: cmd, spellings }) => {
    if (cmd.length < lead.length) return false;
    for (let i = 0; i < lead.length; i++) if (cmd[i] !== lead[i]) return false;
    return options.every((o) => present(o, cmd, spellings, lead.length));
  };
}

/**
 * An option-naming pattern's literal leading words and the options it names (see
 * compileBashOptionPattern); undefined for other patterns.
 */
export function optionPatternParts(
  pattern: string,
): { readonly lead: readonly string[]; readonly options: readonly string[] } | undefined {
  const parts = patternParts(pattern);
  const words = parts.literals
    .join('*')
    .split(/\s+/)
    .filter((x) => x !== '');
  // `git push --force*` (the default policy's form): the glued `*` lets any words follow too.
  if (!parts.tail && !isOptionPrefix(words[words.length - 1])) return undefined;
  const lead: string[] = [];
  const options: string[] = [];
  for (const w of words) {
    if (w === '*') {
      if (lead.length === 0) return undefined;
      continue;
    }
    if (isOptionPrefix(w)) {
      if (lead.length === 0) return undefined;
      options.push(w);
      continue;
    }
    if (w.includes('*')) return undefined;
    if (w.length > 1 && w[0] === '-' && w !== '--') options.push(w);
    else if (options.length === 0) lead.push(w);
    else return undefined;
  }
  if (lead.length === 0 || options.length === 0) return undefined;
  return { lead, options };
}

/** `--force*`, `-f*`: an option word with one `*`, at its end: any option whose name starts so. */
function isOptionPrefix(w: string | undefined): boolean {
  return w !== undefined && /^-[^*=]+\*$/.test(w) && w !== '--*';
}

function present(option: string, cmd: readonly string[], sp: OptionSpellings, from: number): boolean {
  const spelled = (o: string) => {
    const prefix = o.endsWith('*') ? o.slice(0, -1) : undefined;
    const test = (s: string, next: string | undefined) =>
      prefix !== undefined ? spellsPrefix(s, prefix) : spells(s, o) || spellsWithNext(s, next, o);
    for (const s of sp.implied) if (test(s, undefined)) return true;
    for (let i = from; i < cmd.length; i++)
      for (const s of sp.perWord[i] ?? []) if (test(s, cmd[i + 1])) return true;
    return false;
  };
  if (spelled(option)) return true;
  // `-rf` in a rule is -r and -f, written together or not.
  return /^-[A-Za-z0-9]{2,}$/.test(option) && [...option.slice(1)].every((c) => spelled(`-${c}`));
}

/**
 * Whether the spelling `s` may be an option whose name starts with `prefix` (`--force*`): it
 * starts so (`--force-with-lease`), or abbreviates one that does (`--forc`, `--mirr`; taking it
 * for the rule's option can only make the rule match more).
 */
function spellsPrefix(s: string, prefix: string): boolean {
  const eq = s.indexOf('=');
  const name = eq < 0 ? s : s.slice(0, eq);
  if (name.startsWith(prefix)) return true;
  return name.startsWith('--') && prefix.startsWith('--') && name.length > 2 && prefix.startsWith(name);
}

/** Whether the spelling `s` (of one word) is the rule's option `o`. */
function spells(s: string, o: string): boolean {
  if (s === o) return true;
  if (!s.startsWith('--') || !o.startsWith('--') || s.length <= 2) return false;
  const sEq = s.indexOf('=');
  const oEq = o.indexOf('=');
  const sName = sEq < 0 ? s : s.slice(0, sEq);
  const oName = oEq < 0 ? o : o.slice(0, oEq);
  if (!oName.startsWith(sName)) return false;
  return oEq < 0 || (sEq >= 0 && s.slice(sEq) === o.slice(oEq));
}

/** `--context prod` is `--context=prod`. */
function spellsWithNext(s: string, next: string | undefined, o: string): boolean {
  return next !== undefined && o.includes('=') && !s.includes('=') && spells(`${s}=${next}`, o);
}
