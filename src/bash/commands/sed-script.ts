/**
 * What a sed script does beyond printing: GNU sed's `e` command and `s///e` flag run shell
 * commands; `w`/`W` and `s///w` write files; `r`/`R` read them. The scanner walks commands
 * and addresses the way sed does and fails closed on anything it cannot place.
 */
export interface SedFindings {
  /** Shell commands the script runs (`e cmd`); an empty string means "the pattern space, unknown". */
  readonly runs: string[];
  readonly writes: string[];
  readonly reads: string[];
  /** Set when the script could not be read completely. */
  problem?: string;
}

const NO_ARG = new Set(['d', 'D', 'g', 'G', 'h', 'H', 'l', 'n', 'N', 'p', 'P', 'x', 'z', '=', 'F']);
const LABEL_ARG = new Set(['b', 't', 'T', ':']);
const OPTIONAL_NUMBER = new Set(['q', 'Q', 'L']);
const TEXT_ARG = new Set(['a', 'i', 'c']);
const FILE_ARG = new Set(['r', 'R', 'w', 'W']);

export function scanSedScript(script: string): SedFindings {
  const out: SedFindings = { runs: [], writes: [], reads: [] };
  const s = script;
  let i = 0;
  const skipSpace = (newlines = true): void => {
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || (newlines && (s[i] === '\n' || s[i] === ';'))))
      i++;
  };
  const restOfLine = (): string => {
    const start = i;
    while (i < s.length && s[i] !== '\n') i++;
    return s.slice(start, i);
  };
  try {
    while (i < s.length) {
      skipSpace();
      if (i >= s.length) break;
      if (s[i] === '#') {
        restOfLine();
        continue;
      }
      if (s[i] === '}') {
        i++;
        continue;
      }
      i = skipAddress(s, i);
      skipSpace(false);
      if (s[i] === ',') {
        i++;
        skipSpace(false);
        i = skipAddress(s, i);
        skipSpace(false);
      }
      if (s[i] === '!') {
        i++;
        skipSpace(false);
      }
      const c = s[i];
      if (c === undefined) break;
      i++;
      if (c === '{') continue;
      if (NO_ARG.has(c)) continue;
      if (LABEL_ARG.has(c) || OPTIONAL_NUMBER.has(c)) {
        // Labels run to the end of the line or a semicolon (GNU).
        while (i < s.length && s[i] !== '\n' && s[i] !== ';' && s[i] !== '}') i++;
        continue;
      }
      if (TEXT_ARG.has(c)) {
        readText(s, i, (next) => {
          i = next;
        });
        continue;
      }
      if (FILE_ARG.has(c)) {
        const file = restOfLine().trim();
        (c === 'r' || c === 'R' ? out.reads : out.writes).push(file);
        continue;
      }
      if (c === 'e') {
        const cmd = restOfLine().replace(/;\s*$/, '').trim();
        out.runs.push(cmd);
        continue;
      }
      if (c === 'v') {
        while (i < s.length && s[i] !== '\n' && s[i] !== ';') i++;
        continue;
      }
      if (c === 's') {
        i = substitute(s, i, out);
        continue;
      }
      if (c === 'y') {
        i = delimited(s, i, 2);
        continue;
      }
      out.problem = `sed command "${c}" is not understood`;
      return out;
    }
  } catch (e) {
    out.problem = e instanceof Error ? e.message : String(e);
  }
  return out;
}

function skipAddress(s: string, i: number): number {
  if (s[i] === '$') return i + 1;
  if (s[i] !== undefined && /[0-9]/.test(s[i]!)) {
    while (i < s.length && /[0-9~+]/.test(s[i]!)) i++;
    return i;
  }
  if (s[i] === '/' || s[i] === '\\') {
    let j = s[i] === '\\' ? i + 1 : i;
    j = delimited(s, j, 1);
    while (s[j] === 'I' || s[j] === 'M') j++;
    return j;
  }
  return i;
}

/** Skips `count` delimited parts starting at the delimiter at s[i]; returns the index after the last delimiter. */
function delimited(s: string, i: number, count: number): number {
  const delim = s[i];
  if (delim === undefined || delim === '\n' || delim === '\\') throw new Error('sed: bad delimiter');
  let j = i + 1;
  for (let part = 0; part < count; part++) {
    let bracket = false;
    for (;;) {
      const c = s[j];
      if (c === undefined) throw new Error('sed: unterminated expression');
      if (c === '\\') {
        j += 2;
        continue;
      }
      if (!bracket && c === '[' && delim !== '[') bracket = true;
      else if (bracket && c === ']') bracket = false;
      else if (!bracket && c === delim) {
        j++;
        break;
      }
      j++;
    }
  }
  return j;
}

function substitute(s: string, i: number, out: SedFindings): number {
  let j = delimited(s, i, 2);
  for (;;) {
    const f = s[j];
    if (f === undefined || f === '\n' || f === ';' || f === '}' || f === ' ' || f === '\t') return j;
    if (f === 'e') out.runs.push('');
    else if (f === 'w' || f === 'W') {
      const start = j + 1;
      let k = start;
      while (k < s.length && s[k] !== '\n') k++;
      out.writes.push(s.slice(start, k).trim());
      return k;
    } else if (!/[gpiImM0-9]/.test(f)) throw new Error(`sed: unknown s/// flag "${f}"`);
    j++;
  }
}

function readText(s: string, i: number, done: (next: number) => void): void {
  // GNU one-liner `a text` or classic `a\` followed by lines ending in backslash.
  let j = i;
  for (;;) {
    while (j < s.length && s[j] !== '\n') {
      if (s[j] === '\\') j++;
      j++;
    }
    if (s[j - 1] === '\\' && j < s.length) {
      j++;
      continue;
    }
    break;
  }
  done(j);
}
