import { EFFECT_GROUPS, EFFECTS, type Effect } from './effect.js';
import type { CatalogueEntry, Examples, ShapeKind } from './entry.js';
import type { Registry } from './registry.js';

/**
 * The catalogue as a reviewer reads it (`toolgate catalogue`): every entry with each option's
 * spellings and effect, what unknown options mean, its traits and examples; and the names still
 * analyzed by hand-written tables, which it cannot describe option by option.
 */
export interface CatalogueRow {
  /** The group it belongs to (text, git, filesystem, ...): the directory of src/bash/catalogue it lives in. */
  readonly group: string;
  readonly name: string;
  readonly aliases: readonly string[];
  readonly summary: string;
  readonly shape: ShapeKind;
  /** The reason for a one-off analyzer (shape `escape`). */
  readonly escape?: string;
  /** What a hand-written analyzer knows (shape `hand-written`: its options are not data yet). */
  readonly handWritten?: string;
  /** What a program or interpreter runs that the line does not show, and what only asks (read-only). */
  readonly runs?: { readonly what: string; readonly readOnlyWhenOnly: readonly string[] };
  readonly unknownOptions: 'fail' | 'harmless';
  readonly traits: readonly string[];
  readonly options: readonly OptionRow[];
  /** Spellings of subcommands' options that rules may name (`git push -f/--force`); what they do is the analyzer's. */
  readonly subcommandOptions?: Readonly<Record<string, readonly (readonly string[])[]>>;
  readonly examples: Examples;
}

export interface OptionRow {
  /** As written on a command line: `-o`, `--output`. */
  readonly spellings: readonly string[];
  readonly value: 'none' | 'required' | 'optional';
  readonly effect: Effect;
}

export interface CatalogueTable {
  readonly entries: readonly CatalogueRow[];
  /** Entries (first names) whose analyzer is hand-written: their options are not data yet. */
  readonly handWritten: readonly string[];
}

/** Effects an `--effect` word stands for: a group (`runs`, `writes`, `network`, ...) or one effect. */
export function effectsNamed(word: string): readonly Effect[] | undefined {
  if (Object.hasOwn(EFFECT_GROUPS, word)) return EFFECT_GROUPS[word];
  return (EFFECTS as readonly string[]).includes(word) ? [word as Effect] : undefined;
}

/**
 * The rows for `command` (one entry, by name or alias) or all, keeping only options with one of
 * `effects` (and only entries that have such an option, or are one-off analyzers) when given.
 */
export function catalogueTable(
  registry: Registry,
  filter: { readonly command?: string; readonly effects?: readonly Effect[] } = {},
  groups: Readonly<Record<string, readonly CatalogueEntry[]>> = {},
): CatalogueTable {
  const groupOf = new Map<CatalogueEntry, string>();
  for (const [g, es] of Object.entries(groups)) for (const e of es) groupOf.set(e, g);
  let entries: readonly CatalogueEntry[] = registry.entries;
  if (filter.command !== undefined) {
    const e = registry.entry(filter.command);
    entries = e === undefined ? [] : [e];
  }
  const rows = entries.map((e) => row(e, groupOf.get(e) ?? ''));
  const effects = filter.effects;
  const kept =
    effects === undefined
      ? rows
      : rows
          .map((r) => ({ ...r, options: r.options.filter((o) => effects.includes(o.effect)) }))
          // A one-off analyzer's own language can have any effect: always listed, with why.
          .filter(
            (r) =>
              r.options.length > 0 ||
              r.shape === 'escape' ||
              r.shape === 'hand-written' ||
              (r.runs && runs(effects)),
          );
  const handWritten = kept.filter((r) => r.shape === 'hand-written').map((r) => r.name);
  return { entries: kept, handWritten };
}

/** A program or interpreter runs code: listed when the reviewer asks which commands run something. */
const runs = (effects: readonly Effect[]): boolean =>
  effects.includes('runs-code') || effects.includes('runs-program');

function row(e: CatalogueEntry, group: string): CatalogueRow {
  const shape = e.shape;
  return {
    group,
    name: e.name,
    aliases: e.aliases ?? [],
    summary: e.summary,
    shape: shape.kind,
    ...(shape.kind === 'escape' ? { escape: shape.why } : {}),
    ...(shape.kind === 'hand-written' ? { handWritten: shape.why } : {}),
    ...(shape.kind === 'program' ? { runs: { what: shape.runs, readOnlyWhenOnly: shape.asks } } : {}),
    ...(shape.kind === 'interpreter'
      ? { runs: { what: 'code from a file, an option or stdin', readOnlyWhenOnly: shape.asks } }
      : {}),
    unknownOptions: e.unknownOptions,
    traits: e.traits ?? [],
    options: Object.entries(e.options ?? {}).map(([spec, effect]) => optionRow(spec, effect)),
    ...(e.subcommandOptions
      ? {
          subcommandOptions: Object.fromEntries(
            Object.entries(e.subcommandOptions).map(([sub, so]) => [
              sub,
              [
                ...so.options.map((spec) => optionRow(spec, 'harmless').spellings),
                ...Object.entries(so.compound ?? {}).map(([letter, ids]) => [
                  `-${letter} (${ids.map((id) => (id.length === 1 ? `-${id}` : `--${id}`)).join(' ')})`,
                ]),
              ],
            ]),
          ),
        }
      : {}),
    examples: e.examples,
  };
}

function optionRow(spec: string, effect: Effect): OptionRow {
  const value = spec.endsWith('=') ? 'required' : spec.endsWith('?') ? 'optional' : 'none';
  const names = spec.replace(/[=?]$/, '').split('|');
  return { spellings: names.map((n) => (n.length === 1 ? `-${n}` : `--${n}`)), value, effect };
}

/** The table as text: one block per entry, options that matter first. */
export function renderCatalogue(table: CatalogueTable): string {
  const out: string[] = [];
  let group: string | undefined;
  for (const r of table.entries) {
    if (r.group !== group) {
      group = r.group;
      const n = table.entries.filter((x) => x.group === group).length;
      out.push(`== ${group || 'ungrouped'}: ${n} ${n === 1 ? 'entry' : 'entries'}`, '');
    }
    const names = [r.name, ...r.aliases].join(', ');
    out.push(`${names}  (${r.shape}; unknown options: ${r.unknownOptions})`);
    out.push(`  ${r.summary}`);
    if (r.escape) out.push(`  one-off analyzer: ${r.escape}`);
    if (r.handWritten) out.push(`  hand-written analyzer (options not yet data): ${r.handWritten}`);
    if (r.runs) {
      const only = r.runs.readOnlyWhenOnly;
      out.push(`  runs ${r.runs.what}${only.length > 0 ? `; read-only only with ${only.join(' ')}` : ''}`);
    }
    if (r.traits.length > 0) out.push(`  traits: ${r.traits.join(', ')}`);
    const matters = r.options.filter((o) => o.effect !== 'harmless');
    const harmless = r.options.filter((o) => o.effect === 'harmless');
    for (const o of matters) {
      const spelled =
        o.spellings.join(', ') +
        (o.value === 'required' ? ' VALUE' : o.value === 'optional' ? '[=VALUE]' : '');
      out.push(`    ${spelled.padEnd(36)} ${o.effect}`);
    }
    if (harmless.length > 0)
      out.push(`    harmless: ${harmless.map((o) => o.spellings.join('/')).join(' ')}`);
    for (const [sub, spellings] of Object.entries(r.subcommandOptions ?? {}))
      out.push(`  ${r.name} ${sub} options rules may name: ${spellings.map((s) => s.join('/')).join(' ')}`);
    const ex = r.examples;
    for (const [label, lines] of [
      ['read-only', ex.readOnly],
      ['not read-only', ex.notReadOnly],
      ['destructive', ex.destructive],
    ] as const) {
      for (const l of lines ?? []) out.push(`  e.g. ${label.padEnd(14)} ${l}`);
    }
    out.push('');
  }
  if (table.handWritten.length > 0) {
    out.push(
      `${table.handWritten.length} of these ${table.handWritten.length === 1 ? 'entry has' : 'entries have'} a hand-written analyzer, options not yet described one by one:`,
      `  ${table.handWritten.join(' ')}`,
      '',
    );
  }
  return out.join('\n');
}
