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
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
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
