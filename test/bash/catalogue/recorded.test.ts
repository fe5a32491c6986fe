import { describe, expect, it } from 'vitest';
import { compareWithRecorded, type Difference } from './recorded-calls.js';

/**
 * The catalogue against what the old hand-written tables of git, the text filters and the
 * development tools did (test/fixtures/catalogue-calls/, recorded from those tables before they
 * were deleted): the same calls on every recorded line, except the differences intended since,
 * each spelled out here with why.
 */

/**
 * git: the global options are data read before the analyzer runs, so what `-c` and
 * `--config-env` set is reported after the reads of `-C`, `--git-dir` and `--work-tree` rather
 * than in line order: the same calls, in another order. And holes (#16, Read deny slips):
 * `git grep --no-index/--untracked` reads the trees on disk, `git config -f FILE` reads FILE;
 * the old table reported neither (only added calls).
 */
const gitIntended = (d: Difference): boolean =>
  [...d.old].sort().join('\n') === [...d.now].sort().join('\n') ||
  stashReads(d) ||
  (/^git (.* )?(grep|config) /.test(d.line) &&
    d.old.every((c) => d.now.includes(c)) &&
    d.now.length > d.old.length);

/**
 * Intended by holes (#16 class 8): `git stash list` takes log's options and `stash show` diff's
 * (`--output=FILE` writes), so they are read like git log: the paths after `--` are reads, and a
 * word only known at run time may be `--output`. Only such calls are added to what the old table
 * said (nothing).
 */
const STASH_MAY_BE_OPTION =
  /^notUnderstood git stash: ".*" is only known at run time and could be an option$/;
const stashReads = (d: Difference): boolean =>
  /(^|&& )git stash (list|show)\b/.test(d.line) &&
  d.old.length === 0 &&
  d.now.every((c) => c.startsWith('read ') || STASH_MAY_BE_OPTION.test(c));

/**
 * Text filters: tee's and yq's writing option (-a, -i) is data with an effect, so a word only
 * known at run time that could be that option is reported (`yq $X . f` edits f when X=-i); and
 * yq `--inp` (argparse abbreviates) is --in-place, which the old table found ambiguous and read.
 */
const MAY_BE_OPTION = /^notUnderstood (tee|yq): ".*" is only known at run time and could be an option$/;
function textIntended(d: Difference): boolean {
  if (awkIntended(d)) return true;
  if (d.command === 'sort') return sortTemporaryDirectory(d);
  if (d.command !== 'tee' && d.command !== 'yq') return false;
  const now = d.now.filter((c) => !MAY_BE_OPTION.test(c));
  if (now.join('\n') === d.old.join('\n')) return true;
  if (d.command !== 'yq' || !/ --inp?/.test(` ${d.line}`) || now.length !== d.old.length) return false;
  return now.every((c, i) => {
    const o = d.old[i]!;
    if (c === o) return true;
    const word = o.replace(/^read /, '');
    return o.startsWith('read ') && c.startsWith(`write ${word} modify yq -i edits `);
  });
}

/**
 * awk: gawk -d and -o given no file write awkvars.out and awkprof.out, and the words after the
 * program are files even when they look like options (`awk 1 -F .env` reads .env); both tried in
 * a jail with gawk 5.2.1 and mawk 1.3.4. The old table reported neither: only those writes and
 * reads are added.
 */
const AWK_DEFAULT_FILE = /^write (awkvars|awkprof)\.out\|\1\.out\| overwrite awk -[do] writes \1\.out$/;
const awkIntended = (d: Difference): boolean =>
  /^[gmn]?awk$/.test(d.command) &&
  d.old.every((c) => d.now.includes(c)) &&
  d.now.every((c) => d.old.includes(c) || AWK_DEFAULT_FILE.test(c) || c.startsWith('read '));

/**
 * Intended by holes (#16 class 8): sort -T DIR spills into temporary files it makes in DIR (the
 * oracle saw 300 for `-S 64k -T .`): not read-only now. Only that call is added.
 */
const SORT_T = /^notUnderstood sort (-T|--temporary-directory|--t\S*) is not a read-only option$/;
function sortTemporaryDirectory(d: Difference): boolean {
  const now = d.now.filter((c) => !SORT_T.test(c));
  return now.length < d.now.length && now.join('\n') === d.old.join('\n');
}

/**
 * Development tools: uv, poetry, dc and code said "NAME: runs ..." and now say "NAME runs ..."
 * (one colon less); bare yarn runs `yarn install` and its scripts, which the old table read as
 * read-only; jshell's version and help queries are not read-only (the oracle saw them write
 * Java user preferences).
 */
const WORDING = /^opaque (uv|poetry|dc|code): (?:dc )?/;
const devIntended = (d: Difference): boolean =>
  d.old.map((c) => c.replace(WORDING, 'opaque $1 ')).join('\n') === d.now.join('\n') ||
  (d.command === 'yarn' &&
    d.old.length === 0 &&
    d.now.join('\n') === 'opaque yarn install runs package scripts or programs the line does not show') ||
  (d.command === 'jshell' &&
    d.old.length === 0 &&
    d.now.length === 1 &&
    d.now[0]!.startsWith('opaque jshell runs a program the line does not show')) ||
  holesOptionBeforeSubcommand(d);

/**
 * Intended by holes (#16 class 8): a package manager's option before its subcommand may take the
 * next word as its value, so the subcommand is not known (`npm --prefix ls install` installs), and
 * `npm version`, `yarn config set`, `npm fund`, `bun pm trust` write, run or fetch: opaque where the old table named a subcommand
 * or said read-only (an opaque line may do anything, the network included). Only ever stricter:
 * the new answer is one opaque reason of that manager.
 */
function holesOptionBeforeSubcommand(d: Difference): boolean {
  const reason = d.now[0] ?? '';
  const opaqueByHoles =
    reason.startsWith(`opaque ${d.command}: an option before the subcommand`) ||
    /^opaque \S+ (version|config|fund|help|pm) /.test(reason);
  if (!opaqueByHoles) return false;
  return (
    d.now.length === 1 &&
    d.now[0]!.startsWith(`opaque ${d.command}`) &&
    d.old.every((c) => c.startsWith('opaque ') || c.startsWith('network '))
  );
}

/**
 * Intended by holes (#16, reads of run-time file lists and of trees): the catalogue reads more
 * than the old table did and nothing else changed. Each old call is still there (a `read` may
 * have become a `readTree` of the same word: diff of directories), and each added one is a read
 * of the files a list names (`--files0-from`, `--batch`), of every object, or of a tree.
 */
function holesWidenedReads(d: Difference): boolean {
  const tree = (c: string) => c.replace(/^read /, 'readTree ');
  const kept = d.old.every((c) => d.now.includes(c) || d.now.some((n) => n.startsWith(`${tree(c)} `)));
  const widened = (c: string) =>
    d.old.includes(c) ||
    c.startsWith('read (files listed in ') ||
    c.startsWith('read (every object') ||
    (c.startsWith('readTree ') && d.old.some((o) => c.startsWith(`${tree(o)} `)));
  return kept && d.now.every(widened) && d.now.length >= d.old.length;
}

/**
 * Groups whose hand-written analyzers became data one by one (filesystem: its readers, checksum
 * tools, printers, what creates or deletes; system: what only reports; builtins: those that change
 * nothing; search: locate; cloud: the database clients): recorded from the hand-written analyzers just before, on lines fuzzed from
 * the new entries' option tables. No difference is intended but those below.
 */
const none = (): boolean => false;

/**
 * rm's -r is data with an effect (`removes`, read by the shape: each operand with everything
 * below it), so a word only known at run time that could be -r is reported, as for tee -a: the
 * old analyzer took `rm $x dir` for a deletion of dir alone. Only that call is added.
 */
const RM_MAY_BE_RECURSIVE = /^notUnderstood rm: ".*" is only known at run time and could be an option$/;
const rmIntended = (d: Difference): boolean =>
  d.command === 'rm' &&
  d.now.some((c) => RM_MAY_BE_RECURSIVE.test(c)) &&
  d.now.filter((c) => !RM_MAY_BE_RECURSIVE.test(c)).join('\n') === d.old.join('\n');

/**
 * man -H is `runs-code` data now: its reason names the option as written (`man --html runs
 * code`) where the old analyzer said `man -H opens a browser`; the same call otherwise.
 */
const manWording = (d: Difference): boolean =>
  d.command === 'man' &&
  d.now
    .map((c) =>
      c
        .replace(/^opaque man \S+ runs code$/, 'opaque man -H opens a browser')
        .replace(/^(runScript .* )man \S+( \{\})$/, '$1man -H$2'),
    )
    .join('\n') === d.old.join('\n');

/**
 * zipinfo is a reader now, as getopt reads it: `-` and, after `--`, a word starting with a dash
 * are operands it reads, where the old analyzer skipped every dashed word. Only reads are added.
 */
const archiveIntended = (d: Difference): boolean =>
  d.command === 'zipinfo' &&
  d.old.every((c) => d.now.includes(c)) &&
  d.now.every((c) => d.old.includes(c) || c.startsWith('read '));

const filesystemIntended = (d: Difference): boolean => rmIntended(d) || manWording(d);

/**
 * Intended by holes (#16 recall): rg -z is a read, as tar -z is (its decompressors only read the
 * files it searches; proven by the oracle, test/fixtures/bash-oracle-labelled.jsonl). Only the
 * old table's "-z is not a read-only option" is gone.
 */
const RG_Z = 'notUnderstood rg -z is not a read-only option';
const searchIntended = (d: Difference): boolean =>
  d.command === 'rg' &&
  d.old.includes(RG_Z) &&
  d.old.filter((c) => c !== RG_Z).join('\n') === d.now.join('\n');

describe.each([
  ['git', gitIntended, 2_000],
  ['text', textIntended, 3_000],
  ['development', devIntended, 6_000],
  ['filesystem', filesystemIntended, 3_000],
  ['system', none, 2_500],
  ['builtins', none, 2_000],
  ['search', searchIntended, 2_000],
  ['cloud', none, 2_000],
  ['archive', archiveIntended, 2_000],
] as const)('%s: the catalogue does what the old table recorded', (group, intended, atLeast) => {
  it('on the corpora, every example, steering and fuzzed lines', () => {
    const { compared, differences } = compareWithRecorded(group);
    expect(differences.filter((d) => !intended(d) && !holesWidenedReads(d)).slice(0, 5)).toEqual([]);
    expect(compared).toBeGreaterThan(atLeast);
  });
});
