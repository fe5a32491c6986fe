/**
 * The demo's table laid out for the terminal it is printed on: fixed columns for the call
 * number, tool and outcome, the call cut to fit, and the reason wrapped (never cut) into what
 * is left, or onto lines of its own beneath the row when too little is left. `wide` prints
 * every call and reason whole, one line per row, for a pager or a log.
 */
export interface Layout {
  /** Width of the call column. */
  readonly call: number;
  /** Width the reason may take per line; undefined: no limit (wide). */
  readonly why: number | undefined;
  /** Where continuation lines of the reason start. */
  readonly indent: number;
}

const NUMBER = 3;
const TOOL = 10;
export const OUTCOME = 18;
/** Everything on a row but the call and the reason, separators included. */
const FIXED = NUMBER + 1 + TOOL + 1 + 1 + OUTCOME + 1;
const CALL_MAX = 44;
const CALL_MIN = 16;
/** A reason column narrower than this goes beneath the row instead. */
const WHY_MIN = 24;

export function layoutFor(width: number, wide: boolean, calls: readonly string[]): Layout {
  if (wide) {
    const call = Math.max(CALL_MIN, ...calls.map((c) => [...c].length));
    return { call, why: undefined, indent: FIXED + call };
  }
  // the call gives way to the reason down to CALL_MIN, and below that to the terminal itself
  const call = Math.max(1, Math.min(CALL_MIN, width - FIXED), Math.min(CALL_MAX, width - FIXED - 40));
  const why = width - FIXED - call;
  return why >= WHY_MIN
    ? { call, why, indent: FIXED + call }
    : { call, why: Math.max(WHY_MIN, width - 4), indent: 4 };
}

export function row(
  layout: Layout,
  cells: { n: number; tool: string; call: string; outcome: string; why: string },
  paintOutcome: (padded: string) => string = (s) => s,
): string {
  const call = pad(
    layout.why === undefined ? oneLine(cells.call) : shorten(cells.call, layout.call),
    layout.call,
  );
  const head = `${pad(String(cells.n), NUMBER)} ${pad(cells.tool, TOOL)} ${call} ${paintOutcome(pad(cells.outcome, OUTCOME))}`;
  const lines = layout.why === undefined ? [oneLine(cells.why)] : wrap(cells.why, layout.why);
  if (layout.indent === 4) return [head.trimEnd(), ...lines.map((l) => `    ${l}`)].join('\n');
  return [
    `${head} ${lines[0] ?? ''}`.trimEnd(),
    ...lines.slice(1).map((l) => `${' '.repeat(layout.indent)}${l}`),
  ].join('\n');
}

/** `text` on lines of at most `width` code points, broken at spaces (a longer word is split). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (let word of oneLine(text).split(' ')) {
    if (word === '') continue;
    while ([...word].length > width) {
      if (line !== '') {
        lines.push(line);
        line = '';
      }
      const chars = [...word];
      lines.push(chars.slice(0, width).join(''));
      word = chars.slice(width).join('');
    }
    if (line === '') line = word;
    else if ([...line].length + 1 + [...word].length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}

export function shorten(text: string, max: number): string {
  const t = [...oneLine(text)];
  return t.length > max ? `${t.slice(0, max - 1).join('')}…` : t.join('');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - [...text].length));
}
