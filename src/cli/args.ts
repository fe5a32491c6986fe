import type { ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './io.js';

/** node:util parseArgs, with its errors turned into usage errors (exit 2) instead of crashes. */
type Options = NonNullable<ParseArgsConfig['options']>;
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

export function parseCliArgs<const O extends Options>(argv: string[], options: O): Parsed<O> {
  // `toolgate hook` mostly runs with no arguments, and node:util's parser costs a hook process
  // ~0.5 ms to load; options with default values still go to the parser, which sets them.
  if (argv.length === 0 && Object.values(options).every((o) => o.default === undefined))
    return { values: {}, positionals: [] } as unknown as Parsed<O>;
  try {
    const { parseArgs } = process.getBuiltinModule('node:util');
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw usageErrorOf(err, argv, options);
  }
}

/** parseArgs' messages are written for programmers; these say what was wrong and what to do. */
function usageErrorOf(err: unknown, argv: string[], options: Options): UsageError {
  const code = (err as NodeJS.ErrnoException).code;
  const message = err instanceof Error ? err.message : String(err);
  const flag = /'(-[^' ]*)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
    const near = nearestOption(flag, options);
    return new UsageError(`unknown option ${flag}`, near === undefined ? undefined : `did you mean ${near}?`);
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
    const name = flag.replace(/^-+/, '');
    const long = Object.hasOwn(options, name)
      ? name
      : Object.entries(options).find(([, o]) => o.short === name)?.[0];
    if (
      long !== undefined &&
      options[long]?.type === 'string' &&
      !argv.some((a) => a.startsWith(`--${long}=`))
    )
      return new UsageError(`--${long} needs a value`, `write --${long} VALUE`);
    return new UsageError(`--${long ?? name} takes no value`);
  }
  return new UsageError(message);
}

/** The known option closest to a mistyped one, if any is close enough to be what was meant. */
function nearestOption(flag: string, options: Options): string | undefined {
  const near = nearestName(flag.replace(/^-+/, '').split('=')[0]!, Object.keys(options));
  return near === undefined ? undefined : `--${near}`;
}

/** The name closest to a mistyped one (a prefix, or a few edits away), if any is close enough. */
export function nearestName(typed: string, names: readonly string[]): string | undefined {
  if (typed === '') return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = name.startsWith(typed) ? 0.5 : editDistance(typed, name);
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  if (best === undefined || best.distance > Math.max(1, Math.floor(typed.length / 3))) return undefined;
  return best.name;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * Splits a command line of toolgate's own options and the words of a command after them, as
 * `env`, `sudo` and Codex's `execpolicy check -- argv` do: toolgate's options come first; the
 * first word that is not one of them, or everything after `--`, is the command, options and all
 * (`toolgate classify ls -la`). Only what comes before goes to the option parser.
 */
export function splitCommandWords(argv: string[], options: Options): { own: string[]; words: string[] } {
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') return { own: argv.slice(0, i), words: argv.slice(i + 1) };
    if (!word.startsWith('-') || word === '-') return { own: argv.slice(0, i), words: argv.slice(i) };
    const long = word.startsWith('--');
    const name = long
      ? word.slice(2).split('=')[0]!
      : Object.entries(options).find(([, o]) => o.short === word.slice(1, 2))?.[0];
    // an option that takes a value takes the next word, unless it came with it (--name=value, -nvalue)
    const attached = long ? word.includes('=') : word.length > 2;
    if (name !== undefined && options[name]?.type === 'string' && !attached) i++;
  }
  return { own: argv, words: [] };
}

/**
 * The command line that command words stand for. One word is a line as typed
 * (`toolgate classify 'git log | head'`); several are what the calling shell split one command
 * into, and each is quoted back where bash would otherwise split or expand it, so
 * `toolgate check -- git commit -m "fix it"` is decided on the words git would get.
 */
export function commandLineOf(words: readonly string[]): string {
  if (words.length === 1) return words[0]!;
  return words
    .map((w) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}

/** Reads stdin as JSON Lines, calling `each` per non-empty line with its 1-based number. */
export async function forEachJsonLine(
  stdin: NodeJS.ReadableStream,
  each: (value: unknown, lineNumber: number, raw: string) => Promise<void> | void,
  onBadLine: (lineNumber: number, message: string) => void,
): Promise<void> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let n = 0;
  for await (const line of rl) {
    n++;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      onBadLine(n, `not JSON: ${err instanceof Error ? err.message : String(err)}`);
      continue;
    }
    await each(value, n, line);
  }
}
