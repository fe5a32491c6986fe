import { describe, expect, it } from 'vitest';
import { GIT as LEGACY_GIT } from './legacy/git.js';
import {
  compareGroup,
  corpusLines,
  type Difference,
  exampleLines,
  fuzzedLines,
  holesWidenedReads,
} from './side-by-side.js';

/**
 * git, old table beside the catalogue entry: they must record the same calls. One difference is
 * intended: the global options are now data read before the analyzer runs, so what `-c` and
 * `--config-env` set is reported after the reads of `-C`, `--git-dir` and `--work-tree` rather
 * than in line order. The same calls, in another order: compared as sorted lists.
 */
const sameCalls = (d: Difference): boolean => [...d.old].sort().join('\n') === [...d.now].sort().join('\n');

/**
 * Intended by holes (#16, Read deny slips): `git grep --no-index/--untracked` now reads the trees
 * on disk and `git config -f FILE` reads FILE; the old table reported neither. Only added calls.
 */
const holesAdded = (d: Difference): boolean =>
  /^git (.* )?(grep|config) /.test(d.line) &&
  d.old.every((c) => d.now.includes(c)) &&
  d.now.length > d.old.length;

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

describe('git: old table and catalogue agree', () => {
  it('on the public, adversarial and bypass corpora and every example', () => {
    const { compared, differences } = compareGroup(LEGACY_GIT, [
      ...corpusLines(),
      ...exampleLines(),
      ...GIT_LINES,
    ]);
    expect(differences.filter((d) => !sameCalls(d) && !holesAdded(d) && !holesWidenedReads(d))).toEqual([]);
    expect(compared).toBeGreaterThan(300);
  });

  it('on fuzzed lines built from its global options', () => {
    const { compared, differences } = compareGroup(LEGACY_GIT, fuzzedLines(['git'], 3_000));
    expect(differences.filter((d) => !sameCalls(d)).slice(0, 5)).toEqual([]);
    expect(compared).toBe(6_000);
  });
});
