import { describe, expect, it } from 'vitest';
import { DEVELOPMENT as LEGACY_DEV } from './legacy/dev.js';
import { compareGroup, corpusLines, type Difference, exampleLines, fuzzedLines } from './side-by-side.js';

/**
 * Development tools, old table beside the catalogue entries: they must record the same calls.
 * Intended: uv, poetry, dc and code said "NAME: runs ..." and now say "NAME runs ..." as every
 * other program does (the same opaque call, one colon less). And a hole closed: yarn without a
 * subcommand runs `yarn install` (and the packages' install scripts), which the old table read
 * as read-only. And jshell's version and help queries are no longer read-only (the oracle saw them
 * write Java user preferences).
 */
const WORDING = /^opaque (uv|poetry|dc|code): (?:dc )?/;
const sameButWording = (d: Difference): boolean =>
  d.old.map((c) => c.replace(WORDING, 'opaque $1 ')).join('\n') === d.now.join('\n') ||
  (d.command === 'yarn' &&
    d.old.length === 0 &&
    d.now.join('\n') === 'opaque yarn install runs package scripts or programs the line does not show') ||
  // The oracle saw `jshell --version` write Java user preferences: nothing only asks now.
  (d.command === 'jshell' &&
    d.old.length === 0 &&
    d.now.length === 1 &&
    d.now[0]!.startsWith('opaque jshell runs a program the line does not show'));

/** Lines each command of the old table meets: every name with the arguments that steer it. */
const ARGS = [
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

describe('development tools: old table and catalogue agree', () => {
  const names = Object.keys(LEGACY_DEV);
  const lines = names.flatMap((n) => ARGS.map((a) => `${n} ${a}`.trim()));

  it('on the public, adversarial and bypass corpora, every example and each name with steering arguments', () => {
    const { compared, differences } = compareGroup(LEGACY_DEV, [
      ...corpusLines(),
      ...exampleLines(),
      ...lines,
    ]);
    expect(differences.filter((d) => !sameButWording(d))).toEqual([]);
    expect(compared).toBeGreaterThan(2 * lines.length);
  });

  it('on fuzzed lines', () => {
    const { compared, differences } = compareGroup(LEGACY_DEV, fuzzedLines(names, 3_000));
    expect(differences.filter((d) => !sameButWording(d)).slice(0, 5)).toEqual([]);
    expect(compared).toBe(6_000);
  });
});
