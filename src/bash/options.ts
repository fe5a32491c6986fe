import type { Word } from './word.js';

/**
 * Command-line options the way getopt_long reads them: clustered short flags (`-uo out`),
 * attached values (`-oout`, `--output=out`), `--` ending options, GNU permutation (options
 * after operands), and long options abbreviated to any unambiguous prefix (`--out`).
 *
 * Tables are written compactly: `'o|output='` is `-o` / `--output` taking a value, `'color?'`
 * a long option with an optional `=value`, `'c'` a plain flag. The id of an option is its long
 * name when it has one, else its letter.
 */
export interface OptionSpec {
  readonly id: string;
  readonly arg: 'none' | 'required' | 'optional';
}

export interface OptionTable {
  readonly short: ReadonlyMap<string, OptionSpec>;
  readonly long: ReadonlyMap<string, OptionSpec>;
  /** Every long name, for prefix matching. */
  readonly longNames: readonly string[];
}

export interface ParsedOption {
  readonly id: string;
  /** As written, e.g. `--out` or `-o`. */
  readonly written: string;
  readonly value?: Word;
}

export interface ParsedArgs {
  readonly options: readonly ParsedOption[];
  readonly operands: readonly Word[];
  /** Options the table does not know (written form). */
  readonly unknown: readonly string[];
  /** Words that may turn into options at run time (dynamic words before `--`). */
  readonly dynamicOptions: readonly Word[];
  /** Index in the input of the first operand, when parsing stopped there. */
  readonly restIndex?: number;
}

export interface ParseOptions {
  /** GNU getopt permutes: options may follow operands. Off for wrappers (`timeout 5 cmd -x`). */
  readonly permute?: boolean;
  /** Long options also written with one dash (`find -name`, `java -jar`): not used by getopt. */
  readonly singleDashLong?: boolean;
  /** Ids of options that end option parsing (the rest are operands), e.g. `-e` for some tools. */
  readonly terminators?: ReadonlySet<string>;
  /** Negative numbers (`-5`, as in `head -5`) are option-like values; record them as options with this id. */
  readonly numericOption?: string;
  /** Long option ids that, when written as an ambiguous or unknown prefix, must be assumed (dangerous ones). */
  readonly dangerous?: ReadonlySet<string>;
}

/** Decides whether a word whose start is only known at run time could be an option. */
export type OptionRisk = (word: Word) => boolean;

const tableCache = new WeakMap<readonly string[], OptionTable>();

export function optionTable(specs: readonly string[]): OptionTable {
  const cached = tableCache.get(specs);
  if (cached) return cached;
  const short = new Map<string, OptionSpec>();
  const long = new Map<string, OptionSpec>();
  for (const spec of specs) {
    const m = /^(.*?)([=?]?)$/.exec(spec)!;
    const names = m[1]!.split('|');
    const arg = m[2] === '=' ? 'required' : m[2] === '?' ? 'optional' : 'none';
    const longName = names.find((n) => n.length > 1);
    const id = longName ?? names[0]!;
    for (const n of names) (n.length === 1 ? short : long).set(n, { id, arg });
  }
  const table = { short, long, longNames: [...long.keys()] };
  tableCache.set(specs, table);
  return table;
}

export function parseOptions(
  words: readonly Word[],
  table: OptionTable,
  opts: ParseOptions = {},
  mayBeOption: OptionRisk = (w) => w.dynamicStart || w.splitLeads !== undefined,
): ParsedArgs {
  const permute = opts.permute ?? true;
  const numericOption = opts.numericOption;
  const terminators = opts.terminators;
  const options: ParsedOption[] = [];
  const operands: Word[] = [];
  const unknown: string[] = [];
  const dynamicOptions: Word[] = [];
  // Where parsing stopped (the rest are operands). A local, not a closure over `i`: a closure
  // would put the loop's variables in a context object allocated per call.
  let restIndex: number | undefined;
  let i = 0;
  while (i < words.length) {
    const w = words[i]!;
    const v = w.value;
    if (w.dynamicStart) {
      // `$x` or `*.txt` could be `-o file` at run time.
      if (mayBeOption(w)) dynamicOptions.push(w);
      if (!permute) {
        restIndex = i;
        break;
      }
      operands.push(w);
      i++;
      continue;
    }
    // `a$x` is itself what it shows, but the words $x splits into may be options.
    if (w.splitLeads !== undefined && mayBeOption(w)) dynamicOptions.push(w);
    if (v.length > 1 && v[0] === '-' && w.expansions.length > 0 && !optionNameIsStatic(w)) {
      // `-$X` or `--o$X`: the option itself is only known at run time.
      dynamicOptions.push(w);
      i++;
      continue;
    }
    if (v === '--') {
      restIndex = i + 1;
      break;
    }
    if (v.length < 2 || v[0] !== '-') {
      if (!permute) {
        restIndex = i;
        break;
      }
      operands.push(w);
      i++;
      continue;
    }
    if (numericOption && /^-\d+$/.test(v)) {
      options.push({ id: numericOption, written: v, value: { ...w, value: v.slice(1) } });
      i++;
      continue;
    }
    if (v.startsWith('--') || (opts.singleDashLong && !table.short.has(v[1]!))) {
      i = parseLong(words, i, v.startsWith('--') ? 2 : 1, table, opts, options, unknown);
    } else {
      i = parseShortCluster(words, i, table, options, unknown);
    }
    if (terminators && options.length > 0 && terminators.has(options[options.length - 1]!.id)) {
      restIndex = i;
      break;
    }
  }
  if (restIndex !== undefined) for (let j = restIndex; j < words.length; j++) operands.push(words[j]!);
  return { options, operands, unknown, dynamicOptions, restIndex };
}

function parseLong(
  words: readonly Word[],
  i: number,
  dashes: number,
  table: OptionTable,
  opts: ParseOptions,
  options: ParsedOption[],
  unknown: string[],
): number {
  const w = words[i]!;
  const body = w.value.slice(dashes);
  const eq = body.indexOf('=');
  const name = eq >= 0 ? body.slice(0, eq) : body;
  const attached = eq >= 0 ? body.slice(eq + 1) : undefined;
  const written = w.value.slice(0, dashes + name.length);
  const spec = resolveLong(name, table, opts.dangerous);
  if (spec === undefined) {
    unknown.push(written);
    return i + 1;
  }
  if (attached !== undefined) {
    options.push({ id: spec.id, written, value: slice(w, dashes + name.length + 1) });
    return i + 1;
  }
  if (spec.arg === 'required') {
    const next = words[i + 1];
    if (next === undefined) {
      unknown.push(`${written} (missing its value)`);
      return i + 1;
    }
    if (!table.long.has(name) && next.value.length > 1 && next.value[0] === '-') {
      // `rg --ignore --pre=sh`: to a program that takes abbreviations `--ignore` is
      // `--ignore-file` and swallows `--pre=sh`; to one that does not (rg), it is a flag of its
      // own and `--pre=sh` runs sh. Both readings count: the option with that word as its
      // value, and the word read again as an option.
      options.push({ id: spec.id, written, value: next });
      return i + 1;
    }
    options.push({ id: spec.id, written, value: next });
    return i + 2;
  }
  options.push({ id: spec.id, written });
  return i + 1;
}

/** Exact name, else the one long option it abbreviates; an ambiguous prefix of a dangerous option is that option. */
function resolveLong(
  name: string,
  table: OptionTable,
  dangerous?: ReadonlySet<string>,
): OptionSpec | undefined {
  const exact = table.long.get(name);
  if (exact) return exact;
  if (name === '') return undefined;
  // One pass for the common answers (none, or one option under several names), without the
  // lists and set an abbreviation check made for every unknown long option.
  let only: OptionSpec | undefined;
  let ambiguous = false;
  for (const n of table.longNames) {
    if (!n.startsWith(name)) continue;
    const spec = table.long.get(n)!;
    if (only === undefined) only = spec;
    else if (spec !== only) {
      ambiguous = true;
      break;
    }
  }
  if (!ambiguous) return only;
  // Ambiguous: the first dangerous option it may abbreviate, in table order.
  if (dangerous) {
    for (const n of table.longNames) {
      if (!n.startsWith(name)) continue;
      const spec = table.long.get(n)!;
      if (dangerous.has(spec.id)) return spec;
    }
  }
  return undefined;
}

function parseShortCluster(
  words: readonly Word[],
  i: number,
  table: OptionTable,
  options: ParsedOption[],
  unknown: string[],
): number {
  const w = words[i]!;
  const v = w.value;
  for (let k = 1; k < v.length; k++) {
    const letter = v[k]!;
    const spec = table.short.get(letter);
    if (spec === undefined) {
      unknown.push(`-${letter}`);
      continue;
    }
    if (spec.arg === 'none') {
      options.push({ id: spec.id, written: `-${letter}` });
      continue;
    }
    if (k + 1 < v.length) {
      options.push({ id: spec.id, written: `-${letter}`, value: slice(w, k + 1) });
      return i + 1;
    }
    if (spec.arg === 'optional') {
      options.push({ id: spec.id, written: `-${letter}` });
      return i + 1;
    }
    const next = words[i + 1];
    if (next === undefined) {
      unknown.push(`-${letter} (missing its value)`);
      return i + 1;
    }
    options.push({ id: spec.id, written: `-${letter}`, value: next });
    return i + 2;
  }
  return i + 1;
}

/** The tail of a word from an offset of its decoded value (for attached option values). */
function slice(w: Word, from: number): Word {
  const value = w.value.slice(from);
  return {
    value,
    raw: w.expansions.length === 0 ? value : w.raw,
    expansions: w.expansions,
    dynamicStart: false,
  };
}

/** In `--name=$x` or `-n$x` the option is known and only its value is dynamic. */
function optionNameIsStatic(w: Word): boolean {
  const known = w.staticPrefix ?? 0;
  const v = w.value;
  if (v.startsWith('--')) {
    const eq = v.indexOf('=');
    return eq > 0 && eq < known;
  }
  // A short cluster: the letters must be static; a value may follow only after a letter that
  // takes one, which the caller cannot know here, so require at least two static characters.
  return known >= 2;
}

/** Whether any option with one of these ids was given. */
export function hasOption(args: ParsedArgs, ...ids: string[]): boolean {
  return args.options.some((o) => ids.includes(o.id));
}

export function optionValues(args: ParsedArgs, id: string): Word[] {
  return args.options.filter((o) => o.id === id && o.value !== undefined).map((o) => o.value!);
}
