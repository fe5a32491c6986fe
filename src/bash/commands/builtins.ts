import type { Word } from '../word.js';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  literal,
  type OptionRules,
  printer,
} from './spec.js';

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

function checkNames(words: readonly Word[], who: string, sink: Parameters<CommandSpec['analyze']>[1]): void {
  for (const w of words) {
    if (subscriptRunsCode(w))
      sink.opaque(`${who}: the name "${w.raw}" has a subscript that runs code when evaluated`);
    else if (w.expansions.length > 0 && w.value.includes('[')) {
      sink.notUnderstood(`${who}: the name "${w.raw}" is only known at run time`);
    }
  }
}

const harmless: CommandSpec = printer();

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

const printfSpec: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    for (let i = 0; i < args.length; i++) {
      if (args[i]!.value === '-v' && args[i + 1]) checkNames([args[i + 1]!], 'printf -v', sink);
      if (args[i]!.value === '--' || !args[i]!.value.startsWith('-')) break;
    }
  },
};

const READ_SPEC_RULES: OptionRules = {
  options: ['a=', 'd=', 'e', 'E', 'i=', 'n=', 'N=', 'p=', 'r', 's', 't=', 'u='],
  parse: { permute: false },
};

const readSpec: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, READ_SPEC_RULES);
    const names = parsed.options.filter((o) => o.id === 'a').map((o) => o.value!);
    checkNames([...names, ...parsed.operands], 'read', sink);
  },
};

const MAPFILE_SPEC_RULES: OptionRules = {
  options: ['d=', 'n=', 'O=', 's=', 't', 'u=', 'C=', 'c='],
  effects: { C: 'script' },
};

const mapfileSpec: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, MAPFILE_SPEC_RULES);
    checkNames(parsed.operands, ctx.name, sink);
  },
};

/** declare/typeset/local/export/readonly: names (with subscripts) and exported values. */
const declareSpec: CommandSpec = {
  analyze(ctx, sink) {
    const isExport = ctx.name === 'export';
    const exported = isExport || ctx.args.some((w) => /^-[a-zA-Z]*x/.test(w.value));
    for (const w of ctx.args) {
      if (w.value.startsWith('-') || w.value.startsWith('+')) continue;
      const eq = w.value.indexOf('=');
      const name = eq >= 0 ? w.value.slice(0, eq) : w.value;
      checkNames([{ ...w, value: name }], ctx.name, sink);
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
    );
  },
};

/** `let` and `((...))` evaluate arithmetic; a literal subscript with `$(...)` runs it. */
const letSpec: CommandSpec = {
  analyze(ctx, sink) {
    for (const w of ctx.args) {
      if (/\[[^\]]*[$`]/.test(w.value)) sink.opaque(`let: "${w.raw}" has a subscript that runs code`);
      for (const m of w.value.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
        if (ctx.line.taintedNames.has(m[0])) {
          sink.notUnderstood(
            `let evaluates ${m[0]}, whose value this line sets: a subscript in it can run code`,
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
      if (op === '-v' && args[i + 1]) checkNames([args[i + 1]!], `${ctx.name} -v`, sink);
      if (arithmetic && /^-(eq|ne|lt|le|gt|ge)$/.test(op)) {
        for (const side of [args[i - 1], args[i + 1]]) {
          if (side === undefined) continue;
          if (subscriptRunsCode(side) || (side.expansions.length === 0 && /\[.*[$`]/.test(side.value))) {
            sink.opaque(`[[ ${op} ]] evaluates "${side.raw}" as arithmetic, which runs its subscript`);
          }
          for (const m of side.raw.matchAll(/\$?\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
            if (ctx.line.taintedNames.has(m[1]!)) {
              sink.opaque(
                `[[ ${op} ]] evaluates ${m[1]}, whose value this line sets: a subscript in it can run code`,
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

const exitLike = harmless;

export const BUILTINS: CommandTable = {
  ':': harmless,
  true: harmless,
  false: harmless,
  printf: printfSpec,
  pwd: harmless,
  cd: cdSpec,
  pushd: cdSpec,
  popd: harmless,
  dirs: harmless,
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
  set: harmless,
  shopt: harmless,
  ulimit: harmless,
  umask: harmless,
  shift: harmless,
  getopts: harmless,
  wait: harmless,
  jobs: harmless,
  times: harmless,
  type: harmless,
  help: harmless,
  compgen: harmless,
  complete: harmless,
  compopt: harmless,
  caller: harmless,
  unalias: harmless,
  alias: harmless,
  disown: harmless,
  exit: exitLike,
  return: exitLike,
  break: exitLike,
  continue: exitLike,
  logout: exitLike,
};
