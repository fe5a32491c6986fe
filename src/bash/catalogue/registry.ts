import type { CommandSpec } from '../commands/spec.js';
import { isEffect, isTrait } from './effect.js';
import { type CatalogueEntry, SHAPES } from './entry.js';
import { handledBy, interpret, optionId } from './interpret.js';

/**
 * Every command the classifier knows, by name: catalogue entries (data, read by one
 * interpreter). Built once per process; the checks
 * run at load, so a duplicate name (a later table silently winning) or an effect outside the
 * closed set stops the program rather than changing what a command means.
 */
export interface Registry {
  /** The analyzer of a command, compiled on the first use of its name (most processes use a few). */
  spec(name: string): CommandSpec | undefined;
  /** Every catalogue entry, in the order given. */
  readonly entries: readonly CatalogueEntry[];
  /** The entry a name (or alias) belongs to. */
  entry(name: string): CatalogueEntry | undefined;
}

export class CatalogueError extends Error {
  readonly kind = 'catalogue';
  constructor(readonly problems: readonly string[]) {
    super(`the command catalogue is broken:\n  ${problems.join('\n  ')}`);
  }
}

/** Names of letters, digits and dashes; `.` a short option of its own (rg -. is --hidden). */
const SPEC_FORM = /^(?:[A-Za-z0-9][A-Za-z0-9-]*|\.)(\|(?:[A-Za-z0-9][A-Za-z0-9-]*|\.))*[=?]?$/;

export function buildRegistry(entries: readonly CatalogueEntry[]): Registry {
  const problems: string[] = [];
  const byName = new Map<string, CatalogueEntry>();
  const owner = new Map<string, string>();
  const claim = (name: string, where: string): boolean => {
    const before = owner.get(name);
    if (before !== undefined) {
      problems.push(`"${name}" is defined twice (${before} and ${where})`);
      return false;
    }
    owner.set(name, where);
    return true;
  };
  for (const e of entries) {
    checkEntry(e, problems);
    for (const name of [e.name, ...(e.aliases ?? [])])
      if (claim(name, `entry ${e.name}`)) byName.set(name, e);
  }
  if (problems.length > 0) throw new CatalogueError(problems);

  const compiled = new Map<string, CommandSpec>();
  return {
    spec(name) {
      const done = compiled.get(name);
      if (done !== undefined) return done;
      const e = byName.get(name);
      const spec = e !== undefined ? interpret(e) : undefined;
      // Unknown names are not remembered: a long-running process would keep every one it met.
      if (spec !== undefined) compiled.set(name, spec);
      return spec;
    },
    entries: Object.freeze([...entries]),
    entry: (name) => byName.get(name),
  };
}

/** What makes an entry unreadable or untrustworthy as data; every problem, not just the first. */
function checkEntry(e: CatalogueEntry, problems: string[]): void {
  const at = `entry ${e.name || '(no name)'}`;
  if (!e.name) problems.push(`${at}: no name`);
  if (!SHAPES.includes(e.shape?.kind)) problems.push(`${at}: unknown shape "${e.shape?.kind}"`);
  if (e.unknownOptions !== 'fail' && e.unknownOptions !== 'harmless')
    problems.push(`${at}: unknownOptions must be "fail" or "harmless"`);
  const ids = new Set<string>();
  for (const [spec, effect] of Object.entries(e.options ?? {})) {
    if (!SPEC_FORM.test(spec)) problems.push(`${at}: option "${spec}" is not in getopt form`);
    if (!isEffect(effect)) problems.push(`${at}: option "${spec}" has an unknown effect "${String(effect)}"`);
    const id = optionId(spec);
    if (ids.has(id)) problems.push(`${at}: option "${id}" is listed twice`);
    ids.add(id);
  }
  for (const t of e.traits ?? []) if (!isTrait(t)) problems.push(`${at}: unknown trait "${String(t)}"`);
  for (const [sub, so] of Object.entries(e.subcommandOptions ?? {})) {
    const subIds = new Set<string>();
    for (const spec of so.options) {
      if (!SPEC_FORM.test(spec)) problems.push(`${at} ${sub}: option "${spec}" is not in getopt form`);
      subIds.add(optionId(spec));
    }
    for (const [letter, parts] of Object.entries(so.compound ?? {}))
      for (const id of parts)
        if (!subIds.has(id))
          problems.push(`${at} ${sub}: -${letter} stands for "${id}", which is not listed`);
  }
  const shape = e.shape;
  const named = shape && SHAPES.includes(shape.kind) ? handledBy(shape) : [];
  if (shape?.kind === 'escape' || shape?.kind === 'hand-written') {
    if (typeof shape.analyze !== 'function') problems.push(`${at}: an escape hatch needs its analyzer`);
    if (!shape.why) problems.push(`${at}: an escape hatch says why it is one`);
  }
  for (const id of named)
    if (!ids.has(id)) problems.push(`${at}: the shape names option "${id}", which is not listed`);
  const ex = e.examples ?? {};
  const count = (ex.readOnly?.length ?? 0) + (ex.notReadOnly?.length ?? 0) + (ex.destructive?.length ?? 0);
  if (count === 0) problems.push(`${at}: no examples`);
  if (shape?.kind === 'escape' && (ex.notReadOnly?.length ?? 0) + (ex.destructive?.length ?? 0) === 0)
    problems.push(`${at}: an escape hatch shows what it catches (an example that is not read-only)`);
}
