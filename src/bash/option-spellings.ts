import { REGISTRY } from './catalogue/index.js';

/**
 * Every spelling an option word of a command amounts to, for deny and ask rules that name an
 * option (`Bash(git push --force *)`): getopt reads `-uf` as `-u -f`, `--force=x` as `--force`,
 * and the command's own table makes `-f` and `--force` one option (`git branch -D` is
 * `--delete --force`); some operands are options by another name (`git push origin +main` forces,
 * `:main` deletes). Abbreviated long options (`--forc`) are the matcher's to read: it knows the
 * option the rule names. An over-reading here can only make a deny or ask rule match more.
 *
 * Option names come from catalogue entries (their getopt forms, `'o|output='`) and, for the
 * families not converted yet, from SUBCOMMAND_OPTIONS below.
 */
export interface OptionSpellings {
  /** For each word, what it spells as options (empty for an operand). */
  readonly perWord: readonly (readonly string[])[];
  /** Options the command amounts to that no single word spells (`git -c remote.o.push=+x push`). */
  readonly implied: readonly string[];
}

/** Option names of subcommands of families still hand-written: groups of one option's spellings. */
const SUBCOMMAND_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  'git push': ['f|force', 'd|delete', 'u|set-upstream', 'n|dry-run', 'q|quiet', 'v|verbose'],
  'git fetch': ['f|force', 'p|prune', 'P|prune-tags', 'n|dry-run', 'q|quiet', 'v|verbose', 'a|append'],
  'git pull': ['f|force', 'p|prune', 'n|dry-run', 'q|quiet', 'v|verbose', 'r|rebase'],
  'git branch': [
    'd|delete',
    'f|force',
    'm|move',
    'c|copy',
    'r|remotes',
    'a|all',
    'q|quiet',
    'v|verbose',
    'l|list',
  ],
  'git tag': ['d|delete', 'f|force', 'a|annotate', 's|sign', 'm|message', 'l|list', 'v|verify'],
  'git clean': ['f|force', 'n|dry-run', 'q|quiet', 'i|interactive', 'e|exclude'],
  'git checkout': ['f|force', 'q|quiet', 'm|merge', 'p|patch', 't|track'],
  'git switch': [
    'f|force|discard-changes',
    'c|create',
    'C|force-create',
    'd|detach',
    'q|quiet',
    'm|merge',
    't|track',
  ],
  'git restore': ['s|source', 'S|staged', 'W|worktree', 'p|patch', 'q|quiet', 'm|merge'],
  'git rm': ['f|force', 'n|dry-run', 'q|quiet'],
  'git commit': [
    'a|all',
    'm|message',
    'n|no-verify',
    'q|quiet',
    'v|verbose',
    's|signoff',
    'F|file',
    'C|reuse-message',
  ],
  'git stash': ['q|quiet', 'p|patch', 'u|include-untracked', 'a|all', 'k|keep-index', 'm|message'],
  'git worktree': ['f|force'],
  'git submodule': ['f|force', 'q|quiet'],
  rm: ['f|force', 'r|R|recursive', 'i', 'I', 'd|dir', 'v|verbose'],
};

/** Short options that stand for more than one long option. */
const COMPOUND: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  'git branch': {
    D: ['-d', '--delete', '-f', '--force'],
    M: ['-m', '--move', '-f', '--force'],
    C: ['-c', '--copy', '-f', '--force'],
  },
};

type Groups = ReadonlyMap<string, readonly string[]>;
const groupCache = new Map<string, Groups | null>();

/** Each spelling of each option of `key` (`'git push'`, `'sort'`) -> every spelling of that option. */
function groupsOf(key: string): Groups | undefined {
  const cached = groupCache.get(key);
  if (cached !== undefined) return cached ?? undefined;
  const specs = SUBCOMMAND_OPTIONS[key] ?? (key.includes(' ') ? undefined : catalogueOptions(key));
  let groups: Map<string, readonly string[]> | null = null;
  if (specs !== undefined) {
    groups = new Map();
    for (const spec of specs) {
      const names = spec.replace(/[=?]$/, '').split('|');
      const spelled = names.map((n) => (n.length === 1 ? `-${n}` : `--${n}`));
      for (const s of spelled) groups.set(s, spelled);
    }
    for (const [letter, spellings] of Object.entries(COMPOUND[key] ?? {}))
      groups.set(`-${letter}`, [`-${letter}`, ...spellings]);
  }
  if (groupCache.size > 1000) groupCache.clear();
  groupCache.set(key, groups);
  return groups ?? undefined;
}

function catalogueOptions(name: string): readonly string[] | undefined {
  const options = REGISTRY.entry(name)?.options;
  return options === undefined ? undefined : Object.keys(options);
}

const NONE: readonly string[] = [];

/**
 * `words`: a simple command as a rule sees it (the name first, static words as bash passes them;
 * words after `--` are operands); `all`: the whole command, when `words` leaves out its leading
 * options (`git -c x=y push` seen as `git push`).
 */
export function optionSpellings(words: readonly string[], all: readonly string[] = words): OptionSpellings {
  const sub = words.length > 1 ? `${words[0]} ${words[1]}` : undefined;
  const key = sub !== undefined && SUBCOMMAND_OPTIONS[sub] !== undefined ? sub : (words[0] ?? '');
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
  const compound = COMPOUND[key];
  if (compound === undefined) return [];
  const has = (s: string) => perWord.some((p) => p.includes(s));
  const out: string[] = [];
  for (const [letter, spellings] of Object.entries(compound))
    if (spellings.filter((x) => x.startsWith('--')).every(has)) out.push(`-${letter}`);
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
