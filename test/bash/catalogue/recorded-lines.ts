import { GROUPS } from '../../../src/bash/catalogue/index.js';
import { corpusLines, exampleLines, fuzzedLines } from './recorded-calls.js';

/**
 * The lines each group's fixture records: the public, adversarial and bypass corpora, every
 * catalogue example, lines that steer the group's own options, and fuzzed lines built from its
 * entries' option tables (fixed seed). Used when a group is recorded; the fixture keeps the lines.
 */
export const RECORDED_GROUPS = [
  'git',
  'text',
  'development',
  'filesystem',
  'system',
  'builtins',
  'search',
  'cloud',
  'archive',
] as const;
export type RecordedGroup = (typeof RECORDED_GROUPS)[number];

/** Every name (and alias) of a catalogue group. */
export const namesOf = (group: string): string[] =>
  (GROUPS[group] ?? []).flatMap((e) => [e.name, ...(e.aliases ?? [])]);

const GIT_LINES = [
  'git -C a -c core.pager=less -C b log',
  'git --git-dir=x -c alias.l=log l --output=o',
  'git -c alias.x="!sh" --work-tree=w x',
  'git --exec-path=/tmp/x status',
  'git --exec-path',
  'git --config-env=core.pager=P log',
  'git -c "$X" log',
  'git --nope log',
  'git --no-pag log',
];

/** Arguments that steer a development tool: version and help queries, subcommands, code options. */
const DEV_ARGS = [
  '',
  '--version',
  '-V',
  '-v',
  '--help',
  '-h -V',
  'help',
  'version',
  '-',
  'x.py',
  '-c "x"',
  '-e x',
  '-- x.js',
  '--eval 1',
  'ls',
  'config get x',
  'config set x',
  'pkg get',
  'ci',
  'rm x',
  'publish',
  'view x',
  'list',
  'cache purge',
  'cache dir',
  'download x',
  'uninstall x',
  'fmt',
  'fmt --check',
  'clean',
  '+nightly build',
  'env -w X=1',
  'env',
  'mod tidy',
  '--noEmit',
  '-p .',
  '-f gcc --rcfile=rc x.sh',
  '"$x"',
  '$x run',
];

/** Options of the file tools the fuzzer may not reach: links followed or not, the man pager and browser. */
const FILESYSTEM_LINES = [
  'diff --no-dereference a b',
  'diff -r --no-deref a b',
  'diff -N --no-dereference -r a b',
  "man -P 'less -R' ls",
  'man --html=firefox ls',
  'man -Hw3m ls',
  'man -H ls',
];

export function linesOf(group: RecordedGroup, names: readonly string[]): string[] {
  const common = [...corpusLines(), ...exampleLines()];
  switch (group) {
    case 'git':
      return [...common, ...GIT_LINES, ...fuzzedLines(['git'], 1_000)];
    case 'filesystem':
      return [...common, ...FILESYSTEM_LINES, ...fuzzedLines(names, 1_500)];
    case 'text':
    case 'system':
    case 'builtins':
    case 'search':
    case 'cloud':
    case 'archive':
      return [...common, ...fuzzedLines(names, 1_500)];
    case 'development':
      return [
        ...common,
        ...names.flatMap((n) => DEV_ARGS.map((a) => `${n} ${a}`.trim())),
        ...fuzzedLines(names, 1_000),
      ];
  }
}
