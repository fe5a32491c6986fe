import type { CommandLine } from '../../command-line.js';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  literal,
  type OptionRules,
} from '../../commands/spec.js';
import { isSensitiveShellVariable } from '../../environment.js';
import { isDynamic, type Word } from '../../word.js';

/**
 * Shell builtins and keywords. Most only touch the shell itself; the ones that matter are those
 * that run code (`eval`, `source`, `trap`, `mapfile -C`) and those that evaluate a *name*
 * argument as arithmetic, where an array subscript runs command substitutions:
 * `test -v 'a[$(cmd)]'`, `printf -v`, `read`, `declare`, `unset`, `let`.
 */

/** `a[$(cmd)]` as a variable name: bash evaluates the subscript, running what is inside. */
export function subscriptRunsCode(name: Word): boolean {
  const v = name.value;
  const open = v.indexOf('[');
  return open >= 0 && /[$`]/.test(v.slice(open));
}

function checkNames(
  words: readonly Word[],
  who: string,
  sink: Parameters<CommandSpec['analyze']>[1],
  line: CommandLine,
): void {
  for (const w of words) {
    if (subscriptRunsCode(w))
      sink.opaque(`${who}: the name "${w.raw}" has a subscript that runs code when evaluated`);
    else if (w.expansions.length > 0 && (w.value.includes('[') || nameMayHoldSubscript(w, line))) {
      sink.notUnderstood(`${who}: the name "${w.raw}" is only known at run time`);
    }
  }
}

/**
 * A name only known at run time can be `a[$(cmd)]`, which bash evaluates: when it comes from a
 * substitution, or from a variable or positional parameter the line sets (`f "a[\$(x)]"`).
 * The environment's variables are trusted, as everywhere else.
 */
function nameMayHoldSubscript(w: Word, line: CommandLine): boolean {
  if (w.expansions.some((e) => e !== 'variable')) return true;
  for (const m of w.raw.matchAll(/\$\{?([0-9]+|[@*]|[A-Za-z_][A-Za-z0-9_]*)/g)) {
    if (line.taintedNames.has(m[1]!)) return true;
  }
  return false;
}

const evalSpec: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.length === 0) return;
    const code = ctx.args.map((w) => w.value).join(' ');
    const dynamic = ctx.args.some((w) => w.expansions.length > 0);
    const raw = ctx.args.map((w) => w.raw).join(' ');
    sink.runScript(
      { value: code, raw, expansions: dynamic ? ['variable'] : [], dynamicStart: dynamic },
      'eval',
    );
  },
};

const sourceSpec: CommandSpec = {
  analyze(ctx, sink) {
    const file = ctx.args[0];
    // The file is read (and run): Read rules about it apply, as they do to `cat FILE`.
    if (file) sink.read(file);
    if (file && file.expansions.length > 0) {
      sink.unknownCode(`${ctx.name} runs the commands in ${file.raw}, which exist only at run time`);
      return;
    }
    sink.opaque(
      `${ctx.name} runs the commands in ${file ? file.raw : 'a file'}, which the line does not show`,
    );
  },
};

const trapSpec: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args.filter((w) => w.value !== '--');
    const first = args[0];
    if (first === undefined || /^-[lp]+$/.test(first.value)) return;
    if (first.value === '-' || (literal(first) === '' && args.length > 1)) return;
    if (args.length === 1 && /^\d+$/.test(first.value)) return;
    // Like `bash -c`, trap's job is to run the shell code it is given.
    sink.runScript(first, 'trap', { shown: true });
  },
};

/** `printf -v NAME` or `-vNAME`, `wait -p NAME` or `-npNAME`: the name a builtin assigns. */
function assignedName(args: readonly Word[], flag: string): Word | undefined {
  const re = new RegExp(`^-[a-zA-Z]*${flag}(.*)$`, 's');
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.value === '--' || !w.value.startsWith('-') || w.value.startsWith('--')) return undefined;
    const m = re.exec(w.value);
    if (m) return m[1] !== '' ? { ...w, value: m[1]! } : args[i + 1];
  }
  return undefined;
}

const printfSpec: CommandSpec = {
  analyze(ctx, sink) {
    const name = assignedName(ctx.args, 'v');
    if (name) checkNames([name], 'printf -v', sink, ctx.line);
  },
};

const waitSpec: CommandSpec = {
  analyze(ctx, sink) {
    const name = assignedName(ctx.args, 'p');
    if (name) checkNames([name], 'wait -p', sink, ctx.line);
  },
};

const READ_SPEC_RULES: OptionRules = {
  options: ['a=', 'd=', 'e', 'E', 'i=', 'n=', 'N=', 'p=', 'r', 's', 't=', 'u='],
  parse: { permute: false },
};

const readSpec: CommandSpec = {
  rules: READ_SPEC_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, READ_SPEC_RULES);
    const names = parsed.options.filter((o) => o.id === 'a').map((o) => o.value!);
    checkNames([...names, ...parsed.operands], 'read', sink, ctx.line);
  },
};

const MAPFILE_SPEC_RULES: OptionRules = {
  options: ['d=', 'n=', 'O=', 's=', 't', 'u=', 'C=', 'c='],
  effects: { C: 'script' },
};

const mapfileSpec: CommandSpec = {
  rules: MAPFILE_SPEC_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, MAPFILE_SPEC_RULES);
    checkNames(parsed.operands, ctx.name, sink, ctx.line);
  },
};

/** declare/typeset/local/export/readonly: names (with subscripts) and exported values. */
const declareSpec: CommandSpec = {
  analyze(ctx, sink) {
    const isExport = ctx.name === 'export';
    const exported = isExport || ctx.args.some((w) => /^-[a-zA-Z]*x/.test(w.value));
    // A name reference makes every later use of one name a use of another (`declare -n r=PATH;
    // r=tools; ls` runs tools/ls): which variable an assignment sets is only known at run time,
    // so it may be one that decides what later commands run, as a binding of PATH itself does.
    if (ctx.args.some((w) => /^-[a-zA-Z]*n/.test(w.value)))
      sink.opaque(
        `${ctx.name} -n makes a name refer to another variable: assigning through it may set PATH or BASH_ENV`,
      );
    for (const w of ctx.args) {
      if (w.value.startsWith('-') || w.value.startsWith('+')) continue;
      const eq = w.value.indexOf('=');
      const name = eq >= 0 ? w.value.slice(0, eq) : w.value;
      checkNames([{ ...w, value: name }], ctx.name, sink, ctx.line);
      if (exported && eq >= 0) sink.exportVariable(name, { ...w, value: w.value.slice(eq + 1) });
    }
  },
};

const unsetSpec: CommandSpec = {
  analyze(ctx, sink) {
    checkNames(
      ctx.args.filter((w) => !w.value.startsWith('-')),
      'unset',
      sink,
      ctx.line,
    );
  },
};

/** `let` and `((...))` evaluate arithmetic; a literal subscript with `$(...)` runs it. */
const letSpec: CommandSpec = {
  analyze(ctx, sink) {
    for (const w of ctx.args) {
      if (/\[[^\]]*[$`]/.test(w.value)) sink.opaque(`let: "${w.raw}" has a subscript that runs code`);
      // `let PATH=0`, `let IFS++`: an assignment as any other, to a name that changes what runs.
      for (const m of w.value.matchAll(
        /([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[[^\]]*\])?\s*(?:(?:[-+*/%&|^]|<<|>>)?=(?!=)|\+\+|--)|(?:\+\+|--)\s*([A-Za-z_][A-Za-z0-9_]*)/g,
      )) {
        const name = m[1] ?? m[2]!;
        if (isSensitiveShellVariable(name))
          sink.notUnderstood(`let assigns ${name}, which changes how later commands run`);
      }
      for (const m of w.raw.matchAll(/\$\{?([0-9]+|[@*])|([A-Za-z_][A-Za-z0-9_]*)/g)) {
        const name = m[1] ?? m[2]!;
        if (ctx.line.taintedNames.has(name)) {
          sink.notUnderstood(
            `let evaluates ${name}, whose value this line sets: a subscript in it can run code`,
          );
        }
      }
    }
  },
};

/** `test`, `[` and `[[`: `-v name` evaluates a subscript; in `[[`, -eq and friends evaluate arithmetic. */
const testSpec: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    const arithmetic = ctx.name === '[[';
    for (let i = 0; i < args.length; i++) {
      const op = args[i]!.value;
      if (op === '-v' && args[i + 1]) checkNames([args[i + 1]!], `${ctx.name} -v`, sink, ctx.line);
      if (arithmetic && /^-(eq|ne|lt|le|gt|ge)$/.test(op)) {
        for (const side of [args[i - 1], args[i + 1]]) {
          if (side === undefined) continue;
          if (subscriptRunsCode(side) || (side.expansions.length === 0 && /\[.*[$`]/.test(side.value))) {
            sink.opaque(`[[ ${op} ]] evaluates "${side.raw}" as arithmetic, which runs its subscript`);
          }
          // Names, and positional parameters ($1, ${2}, $@), which a function call or `set` fills in.
          for (const m of side.raw.matchAll(/\$\{?([0-9]+|[@*])|\$?\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
            const name = m[1] ?? m[2]!;
            if (ctx.line.taintedNames.has(name)) {
              sink.opaque(
                `[[ ${op} ]] evaluates ${name}, whose value this line sets: a subscript in it can run code`,
              );
            }
          }
        }
      }
    }
  },
};

const hashSpec: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.some((w) => /^-[a-z]*p/.test(w.value))) {
      sink.notUnderstood('hash -p maps a command name to another program');
    }
  },
};

const enableSpec: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.length === 0 || ctx.args.every((w) => /^-[aps]+$/.test(w.value))) return;
    sink.notUnderstood('enable changes which builtins a name runs (or loads one from a shared object)');
  },
};

const fcSpec: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.some((w) => /^-[a-z]*l/.test(w.value))) return;
    sink.opaque('fc re-runs commands from the history through an editor');
  },
};

const historySpec: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.every((w) => /^\d+$/.test(w.value))) return;
    sink.change('history with options changes or writes the command history', false);
  },
};

const bindSpec: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.some((w) => /^-[a-zA-Z]*x/.test(w.value)))
      sink.opaque('bind -x binds a key to a shell command');
  },
};

const cdSpec: CommandSpec = {
  analyze(ctx, sink) {
    const target = ctx.args.find((w) => !/^-[LPe@]+$/.test(w.value));
    if (target && target.value !== '-') sink.read(target);
  },
};

/**
 * compgen prints completions, and makes them the way `complete` would: `-C CMD` runs a command,
 * `-F FUNC` a function, and the `-W WORDLIST` string is expanded like a line of words, so a
 * `$(...)` in it runs. `-X`/`-P`/`-S` are patterns and texts, expanded no further.
 */
const compgenSpec: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === '--' || !v.startsWith('-')) break;
      const flags = v.slice(1);
      for (let j = 0; j < flags.length; j++) {
        const f = flags[j]!;
        if (!'CFWXPSAGo'.includes(f)) continue;
        // The flag takes the rest of the word, or the next word.
        const attached = flags.slice(j + 1);
        const value = attached !== '' ? { ...args[i]!, value: attached, raw: attached } : args[++i];
        if (value === undefined) break;
        if (f === 'C') sink.runScript(value, 'compgen -C');
        else if (f === 'F') sink.opaque(`compgen -F runs the function ${value.raw}`);
        else if (f === 'W' && /[$`]/.test(value.value)) {
          sink.opaque(`compgen -W expands "${value.raw}" as shell words, which runs the substitutions in it`);
        }
        break;
      }
    }
  },
};

/** `jobs -x COMMAND ARGS`: runs COMMAND (with job specs in ARGS replaced by process group ids). */
const jobsSpec: CommandSpec = {
  analyze(ctx, sink) {
    const at = ctx.args.findIndex((w) => /^-[lnprs]*x/.test(w.value));
    if (at >= 0) sink.run(ctx.args.slice(at + 1), 'jobs -x');
  },
};

/**
 * `set -k` (`-o keyword`): from then on, every `NAME=value` argument of a command is put in its
 * environment instead (`git diff GIT_EXTERNAL_DIFF=prog`), which this analysis does not model.
 */
const setSpec: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === '--' || v === '-' || !/^[-+]/.test(v)) break;
      const keyword =
        (/^-[a-zA-Z]*k/.test(v) && !v.startsWith('--')) || (v === '-o' && args[i + 1]?.value === 'keyword');
      if (keyword) sink.notUnderstood('set -k makes NAME=value arguments environment assignments');
      if (isDynamic(args[i]!)) sink.notUnderstood(`set ${args[i]!.raw}: options only known at run time`);
      if (v === '-o' || v === '+o') i++;
    }
  },
};

export const BUILTINS: CommandTable = {
  printf: printfSpec,
  cd: cdSpec,
  pushd: cdSpec,
  eval: evalSpec,
  source: sourceSpec,
  '.': sourceSpec,
  trap: trapSpec,
  read: readSpec,
  mapfile: mapfileSpec,
  readarray: mapfileSpec,
  declare: declareSpec,
  typeset: declareSpec,
  local: declareSpec,
  export: declareSpec,
  readonly: declareSpec,
  unset: unsetSpec,
  let: letSpec,
  test: testSpec,
  '[': testSpec,
  '[[': testSpec,
  hash: hashSpec,
  enable: enableSpec,
  fc: fcSpec,
  history: historySpec,
  bind: bindSpec,
  set: setSpec,
  wait: waitSpec,
  jobs: jobsSpec,
  compgen: compgenSpec,
};
