import type { Effect, Trait } from '../catalogue/effect.js';
import type { CommandLine, SimpleCommand } from '../command-line.js';
import { wordMayBeOption } from '../option-risk.js';
import {
  type OptionTable,
  optionTable,
  type ParsedArgs,
  type ParseOptions,
  parseOptions,
} from '../options.js';
import { dynamicWord, type Word } from '../word.js';

/**
 * How a command family describes what a command does with its arguments. An analyzer reads
 * the argv and reports effects to a sink; it never decides "read-only" itself, so the rules
 * that combine effects live in one place (classify).
 */
export type WriteHow =
  /** Makes something new; fails or does nothing when it exists (mkdir, touch, cp -n). */
  | 'create'
  /** Adds to the end (>>, tee -a). */
  | 'append'
  /** May overwrite or truncate what exists (>, cp, mv onto a target, sort -o). */
  | 'overwrite'
  /** Changes a file in place (sed -i, git checkout of a path). */
  | 'modify'
  /** Changes metadata only: permissions, owner, timestamps (chmod, chown). */
  | 'attributes';

/**
 * What a deletion takes: the named file or directory (`rm f`, `rmdir d`, `unlink f`, a moved
 * source), or it and everything below it (`rm -r`, `find X -delete`, `rsync --delete`'s
 * destination). The policy's critical guard reads this instead of a command's name.
 */
export type RemoveHow = 'entry' | 'tree';

/** How a command walks a directory tree it reads (see EffectSink.readTree). */
export interface TreeRead {
  /** It leaves out files and directories whose names start with a dot (rg, ag by default). */
  readonly skipsHidden: boolean;
  /** It follows symlinks to directories (grep -R, rg -L, tar -h). */
  readonly followsLinks: boolean;
}

export interface EffectSink {
  /** A file or directory the command reads. */
  read(target: Word): void;
  /**
   * A directory whose files the command reads, all the way down (grep -r, rg, tar -c): a rule
   * that denies reading any file below it applies. The directory itself is read too.
   */
  readTree(root: Word, how: TreeRead): void;
  /**
   * A path the command makes reachable under another name: what a link it creates points at
   * (`ln -s .git/hooks h`). Also a read. A later write through the new name writes this path, so
   * what protects it has to hold for the link too, whether or not the line shows that write.
   */
  alias(target: Word): void;
  write(target: Word, how: WriteHow, why: string): void;
  remove(target: Word, why: string, how?: RemoveHow): void;
  /** A command the line shows, run by this one (wrappers, xargs, find -exec). */
  run(argv: readonly Word[], via: string, opts?: RunOptions): void;
  /**
   * Shell code written on the line, run by this one. `shown` is for programs whose job is to
   * run a script (bash -c, watch): the line stays read-only when the script is. Anything else
   * (git -c core.pager=..., awk system(), sed e, eval) is code hidden in an argument, which is
   * never read-only. `appendsArgs`: the program adds arguments to it at run time (a pager gets
   * file names, an external diff gets paths).
   */
  runScript(code: Word, via: string, opts?: ScriptOptions): void;
  /** Runs code the line does not show: a script, an interpreter, a build tool, an unknown program. */
  opaque(why: string): void;
  network(why: string, sends: boolean): void;
  /**
   * A host the command connects to, as the line shows it (a URL's host, `user@host`, a host
   * operand); a word only known at run time when the line does not show it. Commands that
   * connect to a host the line does not name at all (a configured remote, a registry) report
   * none. Also a host the command sets up for later connections (`git remote add x URL`).
   */
  destination(host: Word): void;
  /** Changes state other than files: processes, permissions, the clock, git refs, packages. */
  change(why: string, destructive: boolean): void;
  /** An option or form this knowledge does not model: the line is not read-only (fail closed). */
  notUnderstood(why: string): void;
  /** Leaves work running after the line returns (daemons, `setsid`), or never ends by design. */
  lingers(why: string): void;
  /** Runs code that exists only at run time (a script from a substitution, `eval "$x"`): nothing can be checked. */
  unknownCode(why: string): void;
  /** Runs, as code, whatever arrives on its stdin (`sh`, `python3 -`): opaque, and remembered for `curl | sh`. */
  runsStdin(why: string): void;
  /** Hands a variable to every later command (`export X=...`). */
  exportVariable(name: string, value: Word): void;
  /** A trait this call has beyond its command's own (find with -exec is not prefix-allowable). */
  trait(t: Trait): void;
}

export interface RunOptions {
  /** The program adds arguments at run time (xargs, fd -x). */
  readonly extraArgs?: boolean;
  /** The command runs once per file found (find -exec, xargs): its effects spread over a tree. */
  readonly repeated?: boolean;
}

export interface ScriptOptions {
  readonly shown?: boolean;
  readonly appendsArgs?: boolean;
}

export interface CommandContext {
  /** The command name as resolved (basename for system directories). */
  readonly name: string;
  /** argv[1..]: the arguments. */
  readonly args: readonly Word[];
  readonly command: SimpleCommand;
  readonly line: CommandLine;
  /** True when more arguments are appended at run time (under xargs). */
  readonly extraArgs: boolean;
  /** Run once per file found (find -exec, xargs, fd -x). */
  readonly repeated?: boolean;
}

export type Analyzer = (ctx: CommandContext, sink: EffectSink) => void;

export interface CommandSpec {
  readonly analyze: Analyzer;
  /**
   * A wrapper that only adjusts how its inner command runs (timeout, nice, env, command):
   * policy patterns look through it, as Claude Code's do.
   */
  readonly transparent?: boolean;
  /** What the policy reads instead of the command's name (see catalogue/effect.ts). */
  readonly traits?: readonly Trait[];
  /**
   * The option table its analyzer parses the arguments with, for the catalogue to list as data
   * (catalogue/hand-written.ts): a hand-written analyzer that parses with one names it here.
   */
  readonly rules?: OptionRules;
}

export type CommandTable = Readonly<Record<string, CommandSpec>>;

// ---------------------------------------------------------------- building blocks

export interface OptionRules {
  /** Option specs, see options.ts (`'o|output='`). */
  readonly options: readonly string[];
  /** Unknown options are harmless for this command (it has no option that writes, runs code or networks). */
  readonly anyOption?: boolean;
  /** What a given option does; options not listed are harmless. */
  readonly effects?: Readonly<Record<string, OptionEffect>>;
  /**
   * What each option whose work is code does, in the catalogue's closed set (catalogue/effect.ts),
   * for `toolgate catalogue` to list: an effect written as a function (the catalogue refuses one
   * without), or an option the analyzer's body reads itself (chmod -R, flock -c).
   * test/bash/catalogue/declared-options.test.ts holds the code to it.
   */
  readonly coded?: Readonly<Record<string, Effect>>;
  readonly parse?: ParseOptions;
}

export type OptionEffect =
  | 'read'
  | 'read-list'
  | 'write'
  | 'append'
  | 'exec'
  | 'script'
  | 'network'
  | 'network-send'
  | 'not-read-only'
  | CodedEffect;

/** An option's effect written as code (its kind in the catalogue's closed set: OptionRules.coded). */
export type CodedEffect = (value: Word | undefined, sink: EffectSink, ctx: CommandContext) => void;

export interface Parsed extends ParsedArgs {
  readonly table: OptionTable;
}

/**
 * Parses argv with an option table, reports what the options do, and returns the rest for the
 * operand rules. Unknown options fail closed unless the command has none that matter.
 */
export function applyOptions(ctx: CommandContext, sink: EffectSink, rules: OptionRules): Parsed {
  // Everything read from the rules comes from their compiled form: the rules objects come in
  // dozens of shapes, which made every read of them here a megamorphic lookup.
  const c = compile(rules);
  const dangerous = c.dangerous;
  const parsed = parseOptions(ctx.args, c.table, c.parseOptions, (w) => wordMayBeOption(w, ctx.line));
  const who = ctx.name;
  if (!c.anyOption) {
    for (const u of parsed.unknown) sink.notUnderstood(`${who}: unknown option ${u}`);
  } else {
    // An unknown long option that abbreviates a dangerous one is that option.
    for (const u of parsed.unknown) {
      if (!u.startsWith('--') || dangerous.length === 0) continue;
      const name = u.slice(2);
      if (dangerous.some((d) => d.startsWith(name))) {
        sink.notUnderstood(`${who}: ${u} may abbreviate a dangerous option`);
      }
    }
  }
  if (dangerous.length > 0 || !c.anyOption) {
    for (const w of parsed.dynamicOptions) {
      sink.notUnderstood(`${who}: "${w.raw}" is only known at run time and could be an option`);
    }
  }
  const effects = c.effects;
  if (effects !== undefined) {
    for (const o of parsed.options) {
      const effect = effects.get(o.id);
      if (effect === undefined) continue;
      applyEffect(effect, o.value, o.written, sink, ctx);
    }
  }
  // One shape for every result: a spread here costs more than the parse on short lines.
  const { options, operands, unknown, dynamicOptions, restIndex } = parsed;
  return { options, operands, unknown, dynamicOptions, restIndex, table: c.table };
}

interface CompiledRules {
  readonly table: OptionTable;
  readonly anyOption: boolean;
  /** A Map, not the rules' object: a keyed lookup on objects of many shapes is megamorphic. */
  readonly effects: ReadonlyMap<string, OptionEffect> | undefined;
  readonly dangerous: readonly string[];
  readonly parseOptions: ParseOptions;
}

/** Rules are constants of their command, so they compile once (keyed by identity). */
const compiled = new WeakMap<OptionRules, CompiledRules>();

function compile(rules: OptionRules): CompiledRules {
  let c = compiled.get(rules);
  if (c === undefined) {
    const entries = Object.entries(rules.effects ?? {});
    // Reading options only add reads, which the rules on reads see; a word that may be one of
    // them is already a read of a run-time path, so they need no fail-closed abbreviation check.
    const dangerous = entries.filter(([, e]) => e !== 'read' && e !== 'read-list').map(([id]) => id);
    const parse = rules.parse;
    c = {
      table: optionTable(rules.options),
      anyOption: rules.anyOption === true,
      effects: entries.length > 0 ? new Map(entries) : undefined,
      dangerous,
      // Every field written, in one order, so parseOptions reads one shape.
      parseOptions: {
        permute: parse?.permute,
        singleDashLong: parse?.singleDashLong,
        terminators: parse?.terminators,
        numericOption: parse?.numericOption,
        dangerous: new Set(dangerous),
      },
    };
    compiled.set(rules, c);
  }
  return c;
}

function applyEffect(
  effect: OptionEffect,
  value: Word | undefined,
  written: string,
  sink: EffectSink,
  ctx: CommandContext,
): void {
  const who = `${ctx.name} ${written}`;
  if (typeof effect === 'function') {
    effect(value, sink, ctx);
    return;
  }
  switch (effect) {
    case 'read':
      if (value) sink.read(value);
      return;
    case 'read-list':
      readsListed(sink, value);
      return;
    case 'write':
      if (value) sink.write(value, 'overwrite', `${who} writes ${value.raw}`);
      else sink.notUnderstood(`${who} writes a file`);
      return;
    case 'append':
      if (value) sink.write(value, 'append', `${who} appends to ${value.raw}`);
      return;
    case 'exec':
      if (value) sink.runScript(value, who, { appendsArgs: true });
      else sink.opaque(`${who} runs a program`);
      return;
    case 'script':
      if (value) sink.runScript(value, who);
      else sink.opaque(`${who} runs code`);
      return;
    case 'network':
      sink.network(`${who} opens a network connection`, false);
      return;
    case 'network-send':
      sink.network(`${who} sends data over the network`, true);
      return;
    case 'not-read-only':
      sink.notUnderstood(`${who} is not a read-only option`);
      return;
  }
}

/**
 * A list of file names the command reads, and then every file it names (`wc --files0-from=F`,
 * `tar -T F`, `md5sum -c F`, `git cat-file --batch` reading object names on stdin): `list`
 * undefined or `-` is stdin. Which files only the list knows at run time, so they are one word
 * only known then: a rule on reads cannot be ruled out for them, and the policy asks.
 */
export function readsListed(sink: EffectSink, list: Word | undefined): void {
  if (list !== undefined && list.value !== '-') sink.read(list);
  sink.read(
    dynamicWord(`(files listed in ${list === undefined || list.value === '-' ? 'stdin' : list.raw})`),
  );
}

/** A command whose operands are all files it reads. */
export function reader(rules: OptionRules): CommandSpec {
  return {
    rules,
    analyze(ctx, sink) {
      const parsed = applyOptions(ctx, sink, rules);
      for (const w of parsed.operands) sink.read(w);
    },
  };
}

/** A command that only prints (its operands are data, not files). */
export function printer(rules: OptionRules = { options: [], anyOption: true }): CommandSpec {
  return {
    rules,
    analyze(ctx, sink) {
      applyOptions(ctx, sink, rules);
    },
  };
}

/** A program this knowledge cannot see into: it runs code the line does not show. */
export function opaque(why: string): CommandSpec {
  return { analyze: (ctx, sink) => sink.opaque(`${ctx.name}: ${why}`) };
}

/** Dispatch on the first operand (`git log`, `npm test`, `kubectl get`). */
export function subcommands(
  globalRules: OptionRules,
  subs: Readonly<Record<string, Analyzer>>,
  fallback: Analyzer,
): CommandSpec {
  const rules: OptionRules = { ...globalRules, parse: { ...globalRules.parse, permute: false } };
  return {
    analyze(ctx, sink) {
      const parsed = applyOptions(ctx, sink, rules);
      const rest = parsed.restIndex === undefined ? [] : ctx.args.slice(parsed.restIndex);
      const sub = rest[0];
      if (sub === undefined) {
        fallback(subContext(ctx, ctx.name, []), sink);
        return;
      }
      if (sub.expansions.length > 0) {
        sink.notUnderstood(`${ctx.name}: the subcommand "${sub.raw}" is only known at run time`);
        return;
      }
      const analyzer = (Object.hasOwn(subs, sub.value) ? subs[sub.value] : undefined) ?? fallback;
      analyzer(subContext(ctx, `${ctx.name} ${sub.value}`, rest.slice(1)), sink);
    },
  };
}

/** The context of a subcommand (`git log`): its own name and arguments. */
export function subContext(ctx: CommandContext, name: string, args: readonly Word[]): CommandContext {
  return {
    name,
    args,
    command: ctx.command,
    line: ctx.line,
    extraArgs: ctx.extraArgs,
    repeated: ctx.repeated,
  };
}

/**
 * Words holding a placeholder the program fills in at run time (find's `{}`, the string of
 * `xargs -I`): only known at run time. `safeStart`: what replaces it cannot begin with `-` when
 * it starts the word (find's paths begin with its starting point).
 */
export function filledIn(words: readonly Word[], placeholder: string | RegExp, safeStart = false): Word[] {
  return words.map((w) => {
    const at = typeof placeholder === 'string' ? w.value.indexOf(placeholder) : w.value.search(placeholder);
    if (at < 0) return w;
    const known = w.expansions.length === 0 ? w.value.length : (w.staticPrefix ?? 0);
    return {
      value: w.value,
      raw: w.raw,
      expansions: w.expansions.includes('variable') ? w.expansions : [...w.expansions, 'variable'],
      dynamicStart: w.dynamicStart || (at === 0 && !safeStart),
      staticPrefix: Math.min(known, at),
    };
  });
}

export const literal = (w: Word | undefined): string | undefined =>
  w && w.expansions.length === 0 ? w.value : undefined;
