import { describe, expect, it } from 'vitest';
import { TEXT as LEGACY_TEXT } from './legacy/text.js';
import {
  compareGroup,
  corpusLines,
  type Difference,
  exampleLines,
  fuzzedLines,
  holesWidenedReads,
} from './side-by-side.js';

/**
 * The text filters, old table beside catalogue entries: they must record the same calls, except
 * where the old table was wrong. Those are spelled out here, each with why:
 * - tee, yq: their writing option (-a, -i) is now data with an effect, so a word only known at
 *   run time that could be that option is reported (`yq $X . f` edits f when X=-i); the old
 *   table listed no effect for it and let the word pass.
 * - yq: `--inp` (Python yq takes argparse's abbreviations) is --in-place/--inplace: the old table
 *   found it ambiguous between the two spellings and ignored it, reading files it edits.
 */
const MAY_BE_OPTION = /^notUnderstood (tee|yq): ".*" is only known at run time and could be an option$/;

function oldWasWrong(d: Difference): boolean {
  if (d.command !== 'tee' && d.command !== 'yq') return false;
  const now = d.now.filter((c) => !MAY_BE_OPTION.test(c));
  if (now.join('\n') === d.old.join('\n')) return true;
  // yq --inp...: each read of the old is an in-place edit of the same word now.
  if (d.command !== 'yq' || !/ --inp?/.test(` ${d.line}`) || now.length !== d.old.length) return false;
  return now.every((c, i) => {
    const o = d.old[i]!;
    if (c === o) return true;
    const word = o.replace(/^read /, '');
    return o.startsWith('read ') && c.startsWith(`write ${word} modify yq -i edits `);
  });
}

describe('text filters: old table and catalogue agree', () => {
  const names = Object.keys(LEGACY_TEXT);

  it('on the public, adversarial and bypass corpora and every example', () => {
    const { compared, differences } = compareGroup(LEGACY_TEXT, [...corpusLines(), ...exampleLines()]);
    expect(differences.filter((d) => !oldWasWrong(d) && !holesWidenedReads(d))).toEqual([]);
    expect(compared).toBeGreaterThan(500);
  });

  it('on fuzzed lines built from each command option table', () => {
    const { compared, differences } = compareGroup(LEGACY_TEXT, fuzzedLines(names, 5_000));
    expect(differences.filter((d) => !oldWasWrong(d) && !holesWidenedReads(d)).slice(0, 5)).toEqual([]);
    expect(compared).toBe(10_000);
  });
});
