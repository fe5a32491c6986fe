import type { CommandTable } from '../commands/spec.js';
import type { Trait } from './effect.js';
import type { CatalogueEntry, Examples } from './entry.js';
import { CatalogueError } from './registry.js';

/** A hand-written command's entry data: one line for a reviewer and its examples by verdict. */
export type About = readonly [summary: string, examples: Examples];

/**
 * Entries for a table of hand-written analyzers (a group not yet described option by option):
 * names sharing one analyzer become one entry with aliases; `about` must describe every entry
 * (by its first name) and nothing else, or the group does not load. The analyzer's traits, and
 * `transparent`, become the entry's traits.
 */
export function handWritten(
  table: CommandTable,
  why: string,
  about: Readonly<Record<string, About>>,
): CatalogueEntry[] {
  const byAnalyzer = new Map<object, string[]>();
  for (const [name, spec] of Object.entries(table)) {
    const names = byAnalyzer.get(spec);
    if (names) names.push(name);
    else byAnalyzer.set(spec, [name]);
  }
  const problems: string[] = [];
  const entries: CatalogueEntry[] = [];
  const described = new Set<string>();
  for (const names of byAnalyzer.values()) {
    const [name, ...aliases] = names as [string, ...string[]];
    const spec = table[name]!;
    const a = Object.hasOwn(about, name) ? about[name] : undefined;
    if (a === undefined) {
      problems.push(`entry ${name}: no summary and examples`);
      continue;
    }
    described.add(name);
    const traits: Trait[] = [...(spec.traits ?? []), ...(spec.transparent ? (['transparent'] as const) : [])];
    entries.push({
      name,
      ...(aliases.length > 0 ? { aliases } : {}),
      summary: a[0],
      shape: { kind: 'hand-written', why, analyze: spec.analyze },
      unknownOptions: 'fail',
      ...(traits.length > 0 ? { traits } : {}),
      examples: a[1],
    });
  }
  for (const name of Object.keys(about))
    if (!described.has(name)) problems.push(`entry ${name}: described, but no analyzer has that first name`);
  if (problems.length > 0) throw new CatalogueError(problems);
  return entries;
}
