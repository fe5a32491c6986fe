import type { Effect, Trait } from './effect.js';
import type { CatalogueEntry, Examples, Shape } from './entry.js';

/**
 * Builders for the commonest entries, so a group's file reads as a table: a reader or printer
 * whose unknown options are harmless, its listed options harmless unless `effects` says what
 * they do (keys in getopt form, like `options`).
 */

type ReaderShape = Omit<Extract<Shape, { kind: 'reader' }>, 'kind'>;

export interface More {
  readonly aliases?: readonly string[];
  readonly parse?: CatalogueEntry['parse'];
  readonly traits?: readonly Trait[];
  /** How its operands are read, beyond "each is a file" (reader only). */
  readonly reader?: ReaderShape;
}

/** The options of an entry: `harmless` ones by spec, then those with an effect. */
export function optionsOf(
  harmless: readonly string[],
  effects: Readonly<Record<string, Effect>>,
): Readonly<Record<string, Effect>> {
  return { ...Object.fromEntries(harmless.map((o) => [o, 'harmless' as const])), ...effects };
}

function extras(more: More): Partial<CatalogueEntry> {
  return {
    ...(more.aliases ? { aliases: more.aliases } : {}),
    ...(more.parse ? { parse: more.parse } : {}),
    ...(more.traits ? { traits: more.traits } : {}),
  };
}

/** A command whose operands are files it reads. */
export function reader(
  name: string,
  summary: string,
  options: readonly string[],
  examples: Examples,
  effects: Readonly<Record<string, Effect>> = {},
  more: More = {},
): CatalogueEntry {
  return {
    name,
    ...extras(more),
    summary,
    shape: { kind: 'reader', ...more.reader },
    options: optionsOf(options, effects),
    unknownOptions: 'harmless',
    examples,
  };
}

/** A command whose operands are data, not files (it prints, or reports on the system). */
export function printer(
  name: string,
  summary: string,
  examples: Examples,
  options: readonly string[] = [],
  effects: Readonly<Record<string, Effect>> = {},
  more: More = {},
): CatalogueEntry {
  const listed = options.length > 0 || Object.keys(effects).length > 0;
  return {
    name,
    ...extras(more),
    summary,
    shape: { kind: 'printer' },
    ...(listed ? { options: optionsOf(options, effects) } : {}),
    unknownOptions: 'harmless',
    examples,
  };
}
