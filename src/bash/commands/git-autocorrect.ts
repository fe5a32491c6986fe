/**
 * `git -c help.autocorrect=immediate psuh` runs `git push`: with help.autocorrect on, git runs
 * the command most like an unknown one (help.c help_unknown_cmd). Which one git picks depends on
 * the commands and aliases it knows, so every known subcommand git could pick is a command the
 * line may run: a deny rule on any of them holds. Similarity is git's: a Damerau-Levenshtein
 * distance with swaps free, substitutions 2, insertions 1, deletions 3 (levenshtein.c), plus 1,
 * under SIMILARITY_FLOOR (7); a command the word starts is taken too (git scores a common
 * command so at 0). Picking every candidate, not git's single best, can only run more.
 */

const SIMILARITY_FLOOR = 7;

/** Whether a help.autocorrect value makes git run its guess (anything but its "off" spellings). */
export function autocorrects(value: string): boolean {
  return !/^\s*(0|false|off|no|never|show)\s*$/i.test(value);
}

/** The known subcommands git may run for the unknown `word`. */
export function autocorrectCandidates(word: string, known: Iterable<string>): string[] {
  const out: string[] = [];
  for (const c of known) if (c.startsWith(word) || levenshtein(word, c) + 1 < SIMILARITY_FLOOR) out.push(c);
  return out;
}

/** git's levenshtein(s1, s2, w=0, s=2, a=1, d=3). */
function levenshtein(s1: string, s2: string): number {
  const w = 0;
  const s = 2;
  const a = 1;
  const d = 3;
  let row0 = new Array<number>(s2.length + 1).fill(0);
  let row1 = Array.from({ length: s2.length + 1 }, (_, j) => j * a);
  let row2 = new Array<number>(s2.length + 1).fill(0);
  for (let i = 0; i < s1.length; i++) {
    row2[0] = (i + 1) * d;
    for (let j = 0; j < s2.length; j++) {
      row2[j + 1] = row1[j]! + s * (s1[i] !== s2[j] ? 1 : 0);
      if (i > 0 && j > 0 && s1[i - 1] === s2[j] && s1[i] === s2[j - 1] && row2[j + 1]! > row0[j - 1]! + w)
        row2[j + 1] = row0[j - 1]! + w;
      if (row2[j + 1]! > row1[j + 1]! + d) row2[j + 1] = row1[j + 1]! + d;
      if (row2[j + 1]! > row2[j]! + a) row2[j + 1] = row2[j]! + a;
    }
    [row0, row1, row2] = [row1, row2, row0];
  }
  return row1[s2.length]!;
}
