import type { SubcommandOptions } from './catalogue/entry.js';
import { REGISTRY } from './catalogue/index.js';
import { optionId } from './catalogue/interpret.js';

/**
 * Every spelling an option word of a command amounts to, for deny and ask rules that name an
 * option (`Bash(git push --force *)`): getopt reads `-uf` as `-u -f`, `--force=x` as `--force`,
 * and the command's own table makes `-f` and `--force` one option (`git branch -D` is
 * `--delete --force`); some operands are options by another name (`git push origin +main` forces,
 * `:main` deletes). Abbreviated long options (`--forc`) are the matcher's to read: it knows the
 * option the rule names. An over-reading here can only make a deny or ask rule match more.
 *
 * Option names come from catalogue entries: their getopt forms (`'o|output='`), and for a
 * subcommand (`git push`) the entry's subcommandOptions.
 */
export interface OptionSpellings {
  /** For each word, what it spells as options (empty for an operand). */
  readonly perWord: readonly (readonly string[])[];
  /** Options the command amounts to that no single word spells (`git -c remote.o.push=+x push`). */
  readonly implied: readonly string[];
}

type Groups = ReadonlyMap<string, readonly string[]>;
const groupCache = new Map<string, Groups | null>();

/** Each spelling of each option of `key` (`'git push'`, `'sort'`) -> every spelling of that option. */
function groupsOf(key: string): Groups | undefined {
  const cached = groupCache.get(key);
  if (cached !== undefined) return cached ?? undefined;
  const [name, sub] = key.split(' ') as [string, string | undefined];
  const options = sub === undefined ? catalogueOptions(name) : subcommandOptions(name, sub);
  let groups: Map<string, readonly string[]> | null = null;
  if (options !== undefined) {
    groups = new Map();
    const byId = new Map<string, readonly string[]>();
    for (const spec of options.options) {
      const names = spec.replace(/[=?]$/, '').split('|');
      const spelled = names.map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
      for (const s of spelled) groups.set(s, spelled);
      byId.set(optionId(spec), spelled);
    }
    for (const [letter, ids] of Object.entries(options.compound ?? {}))
      groups.set(`-${letter}`, [`-${letter}`, ...ids.flatMap((id) => byId.get(id) ?? NONE)]);
  }
  if (groupCache.size > 1000) groupCache.clear();
  groupCache.set(key, groups);
  return groups ?? undefined;
}

function catalogueOptions(name: string): SubcommandOptions | undefined {
  const options = REGISTRY.entry(name)?.options;
  return options === undefined ? undefined : { options: Object.keys(options) };
}

/** A subcommand's option names (`git push`), when the command's entry lists them. */
function subcommandOptions(name: string, sub: string): SubcommandOptions | undefined {
  const all = REGISTRY.entry(name)?.subcommandOptions;
  return all !== undefined && Object.hasOwn(all, sub) ? all[sub] : undefined;
}

const NONE: readonly string[] = [];

/**
 * `words`: a simple command as a rule sees it (the name first, static words as bash passes them;
 * words after `--` are operands); `all`: the whole command, when `words` leaves out its leading
 * options (`git -c x=y push` seen as `git push`).
 */
export function optionSpellings(words: readonly string[], all: readonly string[] = words): OptionSpellings {
  const sub = words.length > 1 ? `${words[0]} ${words[1]}` : undefined;
  const key =
    sub !== undefined && subcommandOptions(words[0]!, words[1]!) !== undefined ? sub : (words[0] ?? '');
  const groups = groupsOf(key);
  const perWord: (readonly string[])[] = [];
  let ended = false;
  for (const w of words) {
    if (ended || perWord.length === 0) {
      perWord.push(ended ? refspecOptions(key, w) : NONE);
      continue;
    }
    if (w === '--') {
      ended = true;
      perWord.push(NONE);
      continue;
    }
    perWord.push(spell(w, groups) ?? refspecOptions(key, w));
  }
  return { perWord, implied: [...impliedOptions(all), ...compoundsOf(key, perWord)] };
}

/** `git branch -d -f` is `-D`: a compound letter whose parts are all there. */
function compoundsOf(key: string, perWord: readonly (readonly string[])[]): string[] {
  const groups = groupsOf(key);
  const [name, sub] = key.split(' ') as [string, string | undefined];
  const compound = sub === undefined ? undefined : subcommandOptions(name, sub)?.compound;
  if (compound === undefined || groups === undefined) return [];
  const has = (s: string) => perWord.some((p) => p.includes(s));
  const out: string[] = [];
  for (const letter of Object.keys(compound)) {
    const spellings = (groups.get(`-${letter}`) ?? NONE).slice(1);
    if (spellings.filter((x) => x.startsWith('--')).every(has)) out.push(`-${letter}`);
  }
  return out;
}

/** What one word spells, or undefined for an operand. */
function spell(w: string, groups: Groups | undefined): readonly string[] | undefined {
  if (w.length < 2 || w[0] !== '-') return undefined;
  const out = new Set<string>([w]);
  const add = (s: string) => {
    out.add(s);
    for (const g of groups?.get(s) ?? NONE) out.add(g);
  };
  if (w.startsWith('--')) {
    if (w.length === 2) return undefined;
    const eq = w.indexOf('=');
    const name = eq < 0 ? w : w.slice(0, eq);
    add(name);
    // An abbreviation (`--forc`) is every option it may stand for: the table's long names it starts.
    if (groups !== undefined && !groups.has(name))
      for (const long of groups.keys()) if (long.startsWith(name)) add(long);
  } else if (/^-[A-Za-z0-9]+$/.test(w)) {
    // A cluster: every letter may be a flag of its own (a value-taking letter ends it, but
    // reading the rest as flags too can only make a deny rule match more).
    for (const c of w.slice(1)) add(`-${c}`);
  } else {
    add(w.slice(0, 2));
  }
  return [...out];
}

/** Refspecs are options by another name: `+src:dst` forces the update, `:dst` deletes dst. */
function refspecOptions(key: string, w: string): readonly string[] {
  if (key !== 'git push' && key !== 'git fetch' && key !== 'git pull') return NONE;
  if (w.startsWith('+')) return ['-f', '--force'];
  if (key === 'git push' && w.startsWith(':') && w.length > 1) return ['-d', '--delete'];
  return NONE;
}

/**
 * Configuration that forces: `git -c remote.X.push=+src:dst push` (or `.fetch=`) pushes with
 * `+`, as `git push +src:dst` does; `remote.X.mirror` (true) pushes as `--mirror` does.
 */
function impliedOptions(words: readonly string[]): readonly string[] {
  if (words[0] !== 'git') return NONE;
  const out: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const value = w === '-c' ? words[i + 1] : w.startsWith('-c') ? w.slice(2) : undefined;
    if (value !== undefined && /^remote\.[^=]*\.(push|fetch)=\s*\+/is.test(value)) out.push('-f', '--force');
    // A bare key is true; git's false spellings are the only values that do not mirror.
    if (value !== undefined && /^remote\..*\.mirror(=(?!\s*(false|no|off|0*)\s*$).*)?$/is.test(value))
      out.push('--mirror');
    if (!w.startsWith('-')) break;
  }
  return out.length === 0 ? NONE : out;
}
