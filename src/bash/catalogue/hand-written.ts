import type { CommandTable, OptionEffect, OptionRules } from '../commands/spec.js';
import type { Effect, Trait } from './effect.js';
import type { CatalogueEntry, Examples } from './entry.js';
import { optionId } from './interpret.js';
import { CatalogueError } from './registry.js';

/** A hand-written command's entry data: one line for a reviewer and its examples by verdict. */
export type About = readonly [summary: string, examples: Examples];

/**
 * Entries for a table of hand-written analyzers (a group not yet described option by option):
 * names sharing one analyzer become one entry with aliases; `about` must describe every entry
 * (by its first name) and nothing else, or the group does not load. The analyzer's traits, and
 * `transparent`, become the entry's traits; the option table it parses with (`rules`), the
 * entry's options, each with its effect, and what an option not listed means.
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
    const options = spec.rules ? optionsOf(spec.rules, `entry ${name}`, problems) : undefined;
    entries.push({
      name,
      ...(aliases.length > 0 ? { aliases } : {}),
      summary: a[0],
      shape: { kind: 'hand-written', why, analyze: spec.analyze },
      ...(options ? { options } : {}),
      unknownOptions: spec.rules?.anyOption ? 'harmless' : 'fail',
      ...(traits.length > 0 ? { traits } : {}),
      examples: a[1],
    });
  }
  for (const name of Object.keys(about))
    if (!described.has(name)) problems.push(`entry ${name}: described, but no analyzer has that first name`);
  if (problems.length > 0) throw new CatalogueError(problems);
  return entries;
}

/** What each kind of option effect the analyzers write is, in the catalogue's closed set. */
const EFFECT_OF: Readonly<Record<Exclude<OptionEffect, (...a: never[]) => void>, Effect>> = {
  read: 'reads',
  'read-list': 'reads-list',
  write: 'writes',
  append: 'appends',
  exec: 'runs-program',
  script: 'runs-code',
  network: 'network',
  'network-send': 'sends-data',
  'not-read-only': 'unmodelled',
};

/**
 * An analyzer's option table as catalogue options: an option without an effect is harmless. Specs
 * that share an id (split's -e and csplit's -z are both --elide-empty-files) become one.
 */
function optionsOf(rules: OptionRules, at: string, problems: string[]): Record<string, Effect> {
  const names = new Map<string, { names: string[]; arg: string }>();
  for (const spec of rules.options) {
    const id = optionId(spec);
    const arg = /[=?]$/.test(spec) ? spec.slice(-1) : '';
    const mine = spec.replace(/[=?]$/, '').split('|');
    const seen = names.get(id);
    if (seen === undefined) names.set(id, { names: mine, arg });
    else for (const n of mine) if (!seen.names.includes(n)) seen.names.push(n);
  }
  const out: Record<string, Effect> = {};
  for (const [id, spelled] of names) {
    const spec = `${spelled.names.join('|')}${spelled.arg}`;
    const e = rules.effects && Object.hasOwn(rules.effects, id) ? rules.effects[id] : undefined;
    if (typeof e === 'string') out[spec] = EFFECT_OF[e];
    else if (rules.coded && Object.hasOwn(rules.coded, id)) out[spec] = rules.coded[id]!;
    else if (e === undefined) out[spec] = 'harmless';
    else
      problems.push(
        `${at}: option "${id}" has an effect written as code, and its rules' coded does not say what it is`,
      );
  }
  for (const id of Object.keys(rules.coded ?? {}))
    if (typeof rules.effects?.[id] === 'string')
      problems.push(`${at}: coded names "${id}", whose effect is already data`);
  return out;
}
