import { onlyAsks } from '../commands/only-asks.js';
import {
  applyOptions,
  type CommandContext,
  type CommandSpec,
  type EffectSink,
  type OptionEffect,
  type OptionRules,
  type Parsed,
  readsListed,
} from '../commands/spec.js';
import { movesStandardOutput } from '../std-streams.js';
import type { Word } from '../word.js';
import type { Effect } from './effect.js';
import type { CatalogueEntry, Shape } from './entry.js';

/**
 * The one interpreter of catalogue entries: an entry becomes the analyzer the classifier runs.
 * Everything is worked out here, once per entry, so a call does what a hand-written analyzer
 * did: parse the options, report their effects, then the shape's rule for the operands.
 */
export function interpret(entry: CatalogueEntry): CommandSpec {
  const rules = optionRules(entry);
  const traits = entry.traits ?? [];
  const transparent = traits.includes('transparent');
  const body = shapeBody(entry.shape, rules);
  return transparent ? { analyze: body, transparent, traits } : { analyze: body, traits };
}

/** The option table and effects of an entry, in the form applyOptions reads. */
export function optionRules(entry: CatalogueEntry): OptionRules | undefined {
  const options = entry.options;
  if (options === undefined) return undefined;
  const specs = Object.keys(options);
  const handled = handledBy(entry.shape);
  const effects: Record<string, OptionEffect> = {};
  for (const spec of specs) {
    const id = optionId(spec);
    // An option whose effect the shape reports (on the operands) still counts as dangerous
    // when abbreviated, so it keeps an effect that does nothing here.
    // A reading one stays out of that check, as reading options do (spec.ts: the word that may
    // be it is itself a read of a run-time path).
    const declared = options[spec]!;
    const effect =
      handled.includes(id) && declared !== 'harmless'
        ? READING.has(declared)
          ? undefined
          : HANDLED
        : OPTION_EFFECT[declared];
    if (effect !== undefined) effects[id] = effect;
  }
  return {
    options: specs,
    anyOption: entry.unknownOptions === 'harmless',
    effects: Object.keys(effects).length > 0 ? effects : undefined,
    parse: entry.parse,
  };
}

/** Options whose effect the shape reports rather than the option table. */
export function handledBy(shape: Shape): readonly string[] {
  switch (shape.kind) {
    case 'reader':
      return [
        ...(shape.inPlace ? [shape.inPlace.option] : []),
        ...(shape.dataWith ?? []),
        ...(shape.listsWith ? [shape.listsWith] : []),
        ...(shape.trees?.noFollow ? [shape.trees.noFollow] : []),
      ];
    case 'writer':
      return [shape.append];
    case 'remover':
      return shape.recursive ? [shape.recursive] : [];
    case 'escape':
      return shape.handles ?? [];
    default:
      return [];
  }
}

const HANDLED: OptionEffect = () => {};
const READING: ReadonlySet<Effect> = new Set(['reads', 'reads-list']);

/** The id options.ts gives a spec: its long name when it has one, else its letter. */
export function optionId(spec: string): string {
  const names = spec.replace(/[=?]$/, '').split('|');
  return names.find((n) => n.length > 1) ?? names[0]!;
}

/** What applyOptions does for each effect an option can have; `harmless` does nothing. */
const OPTION_EFFECT: Readonly<Record<Effect, OptionEffect | undefined>> = {
  reads: 'read',
  'reads-list': 'read-list',
  writes: 'write',
  appends: 'append',
  removes: (v, s, ctx) => s.remove(v ?? unnamed, `${ctx.name} deletes ${v?.raw ?? 'files'}`),
  'runs-code': 'script',
  'runs-program': 'exec',
  network: 'network',
  'sends-data': 'network-send',
  kills: (_v, s, ctx) => s.change(`${ctx.name} sends signals to processes`, true),
  'changes-system': (_v, s, ctx) => s.change(`${ctx.name} changes system state`, false),
  lingers: (_v, s, ctx) => s.lingers(`${ctx.name} keeps running until stopped`),
  unmodelled: 'not-read-only',
  harmless: undefined,
};

const unnamed = { value: '(files)', raw: '(files)', expansions: ['variable' as const], dynamicStart: false };

const NO_RULES: OptionRules = { options: [], anyOption: true };

function shapeBody(shape: Shape, rules: OptionRules | undefined): CommandSpec['analyze'] {
  const r = rules ?? NO_RULES;
  switch (shape.kind) {
    case 'printer':
      return (ctx, sink) => {
        applyOptions(ctx, sink, r);
      };
    case 'reader': {
      const { skipFirst, inPlace, dataWith, listsWith, trees } = shape;
      if (trees !== undefined) {
        const noFollow = trees.noFollow;
        return (ctx, sink) => {
          const parsed = applyOptions(ctx, sink, r);
          const followsLinks = !parsed.options.some((o) => o.id === noFollow);
          for (const w of parsed.operands) sink.readTree(w, { skipsHidden: false, followsLinks });
        };
      }
      if (
        skipFirst === undefined &&
        inPlace === undefined &&
        dataWith === undefined &&
        listsWith === undefined
      ) {
        return (ctx, sink) => {
          const operands = applyOptions(ctx, sink, r).operands;
          for (let i = 0; i < operands.length; i++) sink.read(operands[i]!);
        };
      }
      return (ctx, sink) => {
        const parsed = applyOptions(ctx, sink, r);
        if (dataWith !== undefined && parsed.options.some((o) => dataWith.includes(o.id))) return;
        const edits = inPlace !== undefined && parsed.options.some((o) => o.id === inPlace.option);
        const operands = skipFirst ? parsed.operands.slice(1) : parsed.operands;
        if (listsWith !== undefined && parsed.options.some((o) => o.id === listsWith)) {
          if (operands.length === 0) readsListed(sink, undefined);
          for (const w of operands) readsListed(sink, w);
          return;
        }
        for (const w of operands) {
          if (edits) sink.write(w, 'modify', `${ctx.name} ${inPlace.written} edits ${w.raw} in place`);
          else sink.read(w);
        }
      };
    }
    case 'writer': {
      const append = shape.append;
      return (ctx, sink) => {
        const parsed = applyOptions(ctx, sink, r);
        const appends = parsed.options.some((o) => o.id === append);
        for (const w of parsed.operands) writeOperand(ctx, sink, w, appends);
      };
    }
    case 'creator': {
      const verb = shape.verb;
      return (ctx, sink) => {
        const operands = applyOptions(ctx, sink, r).operands;
        for (const w of operands) sink.write(w, 'create', `${ctx.name} ${verb} ${w.raw}`);
      };
    }
    case 'remover': {
      const recursive = shape.recursive;
      return (ctx, sink) => {
        const parsed = applyOptions(ctx, sink, r);
        const how = parsed.options.some((o) => o.id === recursive) ? 'tree' : 'entry';
        for (const w of parsed.operands) sink.remove(w, `${ctx.name} deletes ${w.raw}`, how);
      };
    }
    case 'program': {
      const { runs, asks, downloads } = shape;
      return (ctx, sink) => {
        if (onlyAsks(ctx.args, asks)) return;
        if (downloads !== undefined) sink.network(`${ctx.name} ${downloads}`, false);
        sink.opaque(`${ctx.name} ${runs}`);
      };
    }
    case 'interpreter': {
      const asks = shape.asks;
      return (ctx, sink) => {
        const args = ctx.args;
        if (onlyAsks(args, asks)) return;
        if (args.length === 0 || args.some((w) => w.value === '-')) {
          sink.runsStdin(`${ctx.name} runs code it reads from stdin`);
          return;
        }
        const file = scriptFile(args);
        if (file) sink.read(file);
        const shown = args
          .map((w) => w.raw)
          .join(' ')
          .slice(0, 60);
        sink.opaque(`${ctx.name} runs a program the line does not show (${shown})`);
      };
    }
    case 'lingers': {
      const why = shape.why;
      return (ctx, sink) => {
        applyOptions(ctx, sink, r);
        sink.lingers(`${ctx.name} ${why}`);
      };
    }
    case 'hand-written':
      return shape.analyze;
    case 'escape': {
      const analyze = shape.analyze;
      if (rules === undefined) return (ctx, sink) => analyze(ctx, sink, undefined);
      return (ctx, sink) => analyze(ctx, sink, applyOptions(ctx, sink, rules));
    }
  }
}

/**
 * The script file an interpreter runs: its first operand, unless an option before it gives the
 * code itself (`-c`, `-e`, `-E`, `-r`, `-m`, `--eval`, ...). An option's value may be taken for
 * the file, which only reports a read too many.
 */
function scriptFile(args: readonly Word[]): Word | undefined {
  for (const w of args) {
    if (w.value === '--') continue;
    if (/^-[a-zA-Z]*[ceErm]$|^--(eval|command|execute|module|print)\b/.test(w.value)) return undefined;
    if (w.value.startsWith('-')) continue;
    return w;
  }
  return undefined;
}

/** Names a writer's output goes nowhere through; /dev/stdout and /dev/stderr only while they are the caller's. */
const DISCARDS = new Set(['/dev/null', '/dev/stderr', '/dev/stdout']);

function writeOperand(
  ctx: CommandContext,
  sink: EffectSink,
  w: Parsed['operands'][number],
  appends: boolean,
): void {
  if (w.expansions.length === 1 && w.expansions[0] === 'process') return; // >(cmd): a pipe
  // `tee /dev/stdout 1<f`: fd 1 is f, and opening /dev/stdout for writing truncates it.
  if (
    w.expansions.length === 0 &&
    DISCARDS.has(w.value) &&
    (w.value === '/dev/null' || !movesStandardOutput(ctx.line))
  )
    return;
  sink.write(
    w,
    appends ? 'append' : 'overwrite',
    `${ctx.name} ${appends ? 'appends to' : 'writes'} ${w.raw}`,
  );
}
