import {
  applyOptions,
  type CommandContext,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  filledIn,
  type OptionRules,
} from '../../commands/spec.js';
import { optionTable, parseOptions } from '../../options.js';
import type { Word } from '../../word.js';

/**
 * Programs that run another command: the inner command is analyzed as if it were on the line.
 * Transparent wrappers (timeout, nice, env, command, ...) only adjust how it runs; the others
 * (sudo, xargs with options, watch, setsid, ...) change it enough that policy rules must match
 * them too.
 */

export function rest(ctx: CommandContext, index: number | undefined): readonly Word[] {
  return index === undefined ? [] : ctx.args.slice(index);
}

/** A wrapper with options, then `COMMAND ARGS...`. */
export function wrapper(
  options: readonly string[],
  opts: {
    transparent?: boolean;
    /** Operands to skip before the command (timeout's DURATION). */
    leading?: number;
    effects?: Parameters<typeof applyOptions>[2]['effects'];
    /** What options its `extra` reads itself do (OptionRules.coded). */
    coded?: Parameters<typeof applyOptions>[2]['coded'];
    /** What the wrapper adds beyond running the command. */
    extra?: (ctx: CommandContext, sink: EffectSink, inner: readonly Word[]) => void;
    /** What it does with no command (nice prints the niceness, env prints the environment). */
    alone?: (ctx: CommandContext, sink: EffectSink) => void;
  } = {},
): CommandSpec {
  const rules = { options, effects: opts.effects, coded: opts.coded, parse: { permute: false } };
  // Read once here: each wrapper's opts has a shape of its own, so reading them per call was a
  // megamorphic lookup.
  const { leading, extra, alone } = opts;
  return {
    transparent: opts.transparent ?? false,
    rules: rules,
    analyze(ctx, sink) {
      const parsed = applyOptions(ctx, sink, rules);
      const operands = rest(ctx, parsed.restIndex);
      const inner = operands.slice(leading ?? 0);
      extra?.(ctx, sink, inner);
      if (inner.length === 0) {
        if (alone) alone(ctx, sink);
        else if (!leading || operands.length < (leading ?? 0)) {
          // e.g. `timeout` with no duration: nothing runs.
        }
        return;
      }
      sink.run(inner, ctx.name);
    },
  };
}

const timeout = wrapper(['s|signal=', 'k|kill-after=', 'preserve-status', 'foreground', 'v|verbose'], {
  transparent: true,
  leading: 1,
});

const nice = wrapper(['n|adjustment='], {
  transparent: true,
  alone: () => {},
});

const nohup = wrapper([], {
  transparent: true,
  extra: (ctx, sink) => sink.lingers(`${ctx.name} keeps the command running after the shell exits`),
});

const stdbuf = wrapper(['i|input=', 'o|output=', 'e|error='], { transparent: true });

const time = wrapper(['p', 'f|format=', 'o|output=', 'a|append', 'v|verbose', 'q|quiet', 'portability'], {
  transparent: true,
  effects: { output: 'write' },
  alone: () => {},
});

const COMMAND_RULES: OptionRules = { options: ['p', 'v', 'V'], parse: { permute: false } };

const command: CommandSpec = {
  transparent: true,
  rules: COMMAND_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, COMMAND_RULES);
    // `command -v x` and `command -V x` only look a name up.
    if (parsed.options.some((o) => o.id === 'v' || o.id === 'V')) return;
    const inner = rest(ctx, parsed.restIndex);
    if (inner.length > 0) sink.run(inner, 'command');
  },
};

const builtin = wrapper([], { transparent: true });
const noglob = wrapper([], { transparent: true });

const EXEC_RULES: OptionRules = { options: ['a=', 'c', 'l'], parse: { permute: false } };

const exec: CommandSpec = {
  transparent: true,
  rules: EXEC_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, EXEC_RULES);
    const inner = rest(ctx, parsed.restIndex);
    if (inner.length > 0) sink.run(inner, 'exec');
  },
};

/** env: options, NAME=VALUE operands, then the command (or, alone, print the environment). */
const ENV_RULES: OptionRules = {
  options: [
    'i|ignore-environment',
    '0|null',
    'u|unset=',
    'C|chdir=',
    'S|split-string=',
    'v|debug',
    'block-signal?',
    'default-signal?',
    'ignore-signal?',
    'list-signal-handling',
  ],
  // -S splits its value into the command and its first arguments.
  coded: { 'split-string': 'runs-program' },
  parse: { permute: false },
};

const env: CommandSpec = {
  transparent: true,
  rules: ENV_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, ENV_RULES);
    let operands: readonly Word[] = rest(ctx, parsed.restIndex);
    const split = parsed.options.find((o) => o.id === 'split-string');
    if (split?.value) {
      if (split.value.expansions.length > 0) {
        sink.notUnderstood(`env -S "${split.value.raw}" builds a command only known at run time`);
        return;
      }
      const words = split.value.value
        .split(/\s+/)
        .filter(Boolean)
        .map((v): Word => ({ value: v, raw: v, expansions: [], dynamicStart: false }));
      operands = [...words, ...operands];
    }
    operands = handOn(operands, sink);
    if (operands.length > 0) sink.run(operands, 'env');
  },
};

/** Leading `NAME=VALUE` operands (env's, sudo's) are the command's environment: the words after them. */
function handOn(operands: readonly Word[], sink: EffectSink): readonly Word[] {
  let i = 0;
  for (; i < operands.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(operands[i]!.value); i++) {
    const w = operands[i]!;
    const eq = w.value.indexOf('=');
    sink.exportVariable(w.value.slice(0, eq), { ...w, value: w.value.slice(eq + 1) });
  }
  return operands.slice(i);
}

/** sudo and doas run the command as another user: never read-only, whatever the command. */
const SUDO_RULES: OptionRules = {
  options: [
    'A|askpass',
    'b|background',
    'C|close-from=',
    'D|chdir=',
    'E|preserve-env?',
    'e|edit',
    'g|group=',
    'H|set-home',
    'h|host=',
    'i|login',
    'K|remove-timestamp',
    'k|reset-timestamp',
    'l|list',
    'n|non-interactive',
    'P|preserve-groups',
    'p|prompt=',
    'R|chroot=',
    'r|role=',
    'S|stdin',
    's|shell',
    't|type=',
    'T|command-timeout=',
    'U|other-user=',
    'u|user=',
    'V|version',
    'v|validate',
    'B|bell',
  ],
  parse: { permute: false },
};

const sudo: CommandSpec = {
  rules: SUDO_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SUDO_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    if (ids.has('list') || ids.has('version') || ids.has('validate')) return;
    sink.change(`${ctx.name} runs the command as another user`, false);
    // `sudo VAR=value cmd` sets VAR for cmd, as env does.
    const inner = handOn(rest(ctx, parsed.restIndex), sink);
    if (ids.has('edit')) {
      for (const w of inner) sink.write(w, 'modify', `${ctx.name} -e edits ${w.raw}`);
      return;
    }
    if (inner.length === 0) {
      if (ids.has('login') || ids.has('shell')) sink.opaque(`${ctx.name} starts a shell`);
      return;
    }
    if (ids.has('login') || ids.has('shell')) {
      sink.runScript(joinWords(inner), `${ctx.name} -s`, { shown: true });
      return;
    }
    sink.run(inner, ctx.name);
  },
};

export function joinWords(words: readonly Word[]): Word {
  const dynamic = words.some((w) => w.expansions.length > 0);
  return {
    value: words.map((w) => w.value).join(' '),
    raw: words.map((w) => w.raw).join(' '),
    expansions: dynamic ? ['variable'] : [],
    dynamicStart: dynamic,
  };
}

/** xargs appends words from stdin to the command (or puts them where -I says). */
const XARGS_RULES: OptionRules = {
  options: [
    '0|null',
    'a|arg-file=',
    'd|delimiter=',
    'E=',
    'e|eof?',
    'I=',
    'i|replace?',
    'L|max-lines=',
    'l',
    'n|max-args=',
    'o|open-tty',
    'P|max-procs=',
    'p|interactive',
    'process-slot-var=',
    'r|no-run-if-empty',
    's|max-chars=',
    'show-limits',
    't|verbose',
    'x|exit',
  ],
  effects: { 'arg-file': 'read' },
  parse: { permute: false },
};

const xargs: CommandSpec = {
  rules: XARGS_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, XARGS_RULES);
    const replacing = parsed.options.find((o) => o.id === 'I' || o.id === 'replace');
    const replace = replacing !== undefined;
    // -I STRING (or -i, meaning {}): each input line replaces STRING, only known at run time,
    // and a line can start with "-": a word that starts with STRING may be an option.
    const token = replacing?.value?.value || '{}';
    const given = rest(ctx, parsed.restIndex);
    const inner = replace ? filledIn(given, token) : given;
    if (inner.length === 0) return; // the default command is echo
    const name = inner[0]!.value;
    if (SHELLS.has(name) || INTERPRETERS_RUN_ARGS.has(name)) {
      sink.notUnderstood(`xargs ${name} runs code with arguments only known at run time`);
    }
    sink.run(inner, 'xargs', { extraArgs: !replace, repeated: true });
  },
};

const INTERPRETERS_RUN_ARGS = new Set(['python', 'python3', 'perl', 'ruby', 'node', 'php', 'eval']);

/** watch runs its arguments with `sh -c`, over and over. */
const WATCH_RULES: OptionRules = {
  options: [
    'b|beep',
    'c|color',
    'C|no-color',
    'd|differences?',
    'e|errexit',
    'g|chgexit',
    'n|interval=',
    'p|precise',
    't|no-title',
    'w|no-wrap',
    'x|exec',
    'q|equexit=',
    'r|no-rerun',
  ],
  parse: { permute: false },
};

const watch: CommandSpec = {
  rules: WATCH_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, WATCH_RULES);
    sink.lingers('watch runs the command again and again until stopped');
    const inner = rest(ctx, parsed.restIndex);
    if (inner.length === 0) return;
    if (parsed.options.some((o) => o.id === 'exec')) sink.run(inner, 'watch');
    else sink.runScript(joinWords(inner), 'watch', { shown: true });
  },
};

const setsid = wrapper(['c|ctty', 'f|fork', 'w|wait'], {
  extra: (_ctx, sink) => sink.lingers('setsid detaches the command from the shell: it can outlive the call'),
});

const ionice = wrapper(['c|class=', 'n|classdata=', 'p|pid', 'P|pgid', 't|ignore', 'u|uid']);
const chrt = wrapper(
  [
    'a|all-tasks',
    'b|batch',
    'd|deadline',
    'f|fifo',
    'i|idle',
    'o|other',
    'r|rr',
    'm|max',
    'p|pid',
    'R|reset-on-fork',
    'v|verbose',
    'T|sched-runtime=',
    'P|sched-period=',
    'D|sched-deadline=',
  ],
  { leading: 1 },
);
const taskset = wrapper(['a|all-tasks', 'c|cpu-list', 'p|pid'], { leading: 1 });
const unbuffer = wrapper(['p']);

/** flock FILE COMMAND / flock FILE -c SCRIPT: creates the lock file, then runs the command. */
const FLOCK_RULES: OptionRules = {
  options: [
    's|shared',
    'x|exclusive',
    'u|unlock',
    'n|nonblock',
    'w|timeout=',
    'E|conflict-exit-code=',
    'o|close',
    'c|command=',
    'F|no-fork',
    'verbose',
  ],
  coded: { command: 'runs-code' },
  parse: { permute: false },
};

const flock: CommandSpec = {
  rules: FLOCK_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, FLOCK_RULES);
    const operands = rest(ctx, parsed.restIndex);
    const file = operands[0];
    if (file && !/^\d+$/.test(file.value))
      sink.write(file, 'create', `flock creates the lock file ${file.raw}`);
    const script = parsed.options.find((o) => o.id === 'command')?.value;
    if (script) {
      sink.runScript(script, 'flock -c', { shown: true });
      return;
    }
    // The usual form is `flock FILE -c CMD`: flock looks for -c after the file itself, and
    // runs CMD with `sh -c`.
    const after = operands.slice(1);
    const flag = after[0]?.value;
    if (flag === '-c' || flag === '--command') {
      if (after.length === 2) sink.runScript(after[1]!, 'flock -c', { shown: true });
      else sink.notUnderstood(`flock ${flag} takes exactly one command string`);
      return;
    }
    const attached = /^--command=(.*)$/s.exec(flag ?? '');
    if (attached) {
      sink.runScript({ ...after[0]!, value: attached[1]! }, 'flock --command', { shown: true });
      return;
    }
    if (after.length > 0) sink.run(after, 'flock');
  },
};

/** GNU parallel: COMMAND ::: ARGS, or commands read from stdin. */
const parallel: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    const sep = args.findIndex((w) => w.value === ':::' || w.value === '::::' || w.value === ':::+');
    const template = (sep < 0 ? args : args.slice(0, sep)).filter((w) => !w.value.startsWith('-'));
    sink.notUnderstood('parallel runs a command template with arguments filled in at run time');
    if (template.length === 0) {
      sink.opaque('parallel reads the commands to run from stdin');
      return;
    }
    // The arguments after ::: (or from stdin) are appended to the template when it has no {}:
    // `parallel rm ::: a b` runs `rm a` and `rm b`.
    sink.runScript(joinWords(template), 'parallel', { appendsArgs: true });
  },
};

const busybox: CommandSpec = {
  transparent: true,
  analyze(ctx, sink) {
    if (ctx.args.length === 0 || ctx.args[0]!.value.startsWith('-')) return;
    sink.run(ctx.args, 'busybox');
  },
};

const coproc = wrapper([], {
  extra: (_ctx, sink) => sink.lingers('coproc runs the command in the background'),
});

// ---------------------------------------------------------------- shells

export const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'rbash']);

const SHELL_OPTIONS = optionTable([
  'c',
  'i',
  'l|login',
  'r|restricted',
  's',
  'e',
  'u',
  'x',
  'v',
  'n',
  'f',
  'h',
  'k',
  'm',
  'p',
  't',
  'a',
  'b',
  'B',
  'C',
  'E',
  'H',
  'P',
  'T',
  'o=',
  'O=',
  'norc',
  'noprofile',
  'posix',
  'rcfile=',
  'init-file=',
  'noediting',
  'debugger',
  'dump-strings',
  'dump-po-strings',
  'verbose',
  'version',
  'help',
  'pretty-print',
]);

/** `bash -c 'script'` runs the script; `bash file` runs a file; `bash` alone reads stdin. */
const shell: CommandSpec = {
  analyze(ctx, sink) {
    // `+o opt` style options are harmless settings; drop them before getopt-style parsing.
    const words = ctx.args.filter(
      (w, i, all) => !(w.value.startsWith('+') || all[i - 1]?.value.match(/^\+[oO]$/)),
    );
    const parsed = parseOptions(words, SHELL_OPTIONS, { permute: false });
    for (const u of parsed.unknown) sink.notUnderstood(`${ctx.name}: unknown option ${u}`);
    const ids = new Set(parsed.options.map((o) => o.id));
    if (ids.has('version') || ids.has('help')) return;
    const rcfile = parsed.options.find((o) => o.id === 'rcfile' || o.id === 'init-file');
    if (rcfile) {
      if (rcfile.value) sink.read(rcfile.value);
      sink.opaque(`${ctx.name} --rcfile runs ${rcfile.value?.raw ?? 'a file'}`);
    }
    const operands = parsed.restIndex === undefined ? [] : words.slice(parsed.restIndex);
    if (ctx.extraArgs) sink.notUnderstood(`${ctx.name} is given arguments only known at run time`);
    if (ids.has('n')) return; // -n: read commands without running them
    if (ids.has('c')) {
      const script = operands[0];
      if (script === undefined) sink.notUnderstood(`${ctx.name} -c without a script`);
      else sink.runScript(script, `${ctx.name} -c`, { shown: true });
      return;
    }
    if (operands.length > 0 && !ids.has('s')) {
      const script = operands[0]!;
      sink.read(script);
      if (script.expansions.length > 0)
        sink.unknownCode(`${ctx.name} runs the script ${script.raw}, which exists only at run time`);
      else sink.opaque(`${ctx.name} runs the script ${script.raw}, which the line does not show`);
      return;
    }
    stdinScript(ctx, sink, `${ctx.name} reads commands from stdin`);
  },
};

/**
 * fish: its syntax is not bash's, so code given to it is parsed with the bash grammar only to
 * find the commands rules must see; it is never taken as read-only.
 */
const FISH_RULES: OptionRules = {
  options: [
    'c|command=',
    'C|init-command=',
    'd|debug=',
    'o|debug-output=',
    'D|debug-stack-frames=',
    'i|interactive',
    'l|login',
    'N|no-config',
    'n|no-execute',
    'p|profile=',
    'profile-startup=',
    'P|private',
    'print-rusage-self',
    'print-debug-categories',
    'f|features=',
    'v|version',
    'h|help',
  ],
  effects: { 'debug-output': 'write', profile: 'write', 'profile-startup': 'write' },
  coded: { command: 'runs-code', 'init-command': 'runs-code' },
  parse: { permute: false },
};

const fish: CommandSpec = {
  rules: FISH_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, FISH_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    if (ids.has('version') || ids.has('help') || ids.has('no-execute')) return;
    if (ctx.extraArgs) sink.notUnderstood(`${ctx.name} is given arguments only known at run time`);
    const code = parsed.options.filter((o) => o.id === 'command' || o.id === 'init-command');
    for (const o of code) if (o.value) sink.runScript(o.value, `${ctx.name} -c`);
    if (code.some((o) => o.id === 'command')) return;
    const operands = rest(ctx, parsed.restIndex);
    const script = operands[0];
    if (script !== undefined) {
      sink.read(script);
      if (script.expansions.length > 0)
        sink.unknownCode(`${ctx.name} runs the script ${script.raw}, which exists only at run time`);
      else sink.opaque(`${ctx.name} runs the script ${script.raw}, which the line does not show`);
      return;
    }
    sink.notUnderstood(`${ctx.name} code is not bash: it is read with the bash grammar`);
    stdinScript(ctx, sink, `${ctx.name} reads commands from stdin`);
  },
};

/** A program that executes what arrives on stdin: fine only for a heredoc the line shows. */
export function stdinScript(ctx: CommandContext, sink: EffectSink, why: string): void {
  const cmd = ctx.command;
  const heredoc = cmd.redirects.find((r) => r.heredoc !== undefined);
  if (cmd.stdin === 'heredoc' && heredoc?.heredoc) {
    const body = heredoc.heredoc.body;
    const expanded = !heredoc.heredoc.quoted && /[$`\\]/.test(body);
    sink.runScript(
      { value: body, raw: body, expansions: expanded ? ['variable'] : [], dynamicStart: expanded },
      `${ctx.name} <<heredoc`,
      { shown: true },
    );
    return;
  }
  const herestring = cmd.redirects.find((r) => r.op === '<<<');
  if (cmd.stdin === 'herestring' && herestring?.target) {
    sink.runScript(herestring.target, `${ctx.name} <<<`, { shown: true });
    return;
  }
  // From a pipe or the terminal, the commands exist only when they arrive (`echo 'git push' |
  // bash`): unknown code, which any Bash deny rule may match. A file is a script, as `bash f`.
  if (cmd.stdin === 'file') sink.runsStdin(why);
  else sink.unknownCode(`${why}, which exist only at run time`);
}

export const WRAPPERS: CommandTable = {
  timeout,
  nice,
  nohup,
  stdbuf,
  time,
  command,
  builtin,
  noglob,
  exec,
  env,
  sudo,
  doas: sudo,
  xargs,
  // What they run is not what a prefix rule names (Claude Code never auto-approves them).
  watch: { ...watch, traits: ['no-prefix-allow'] },
  setsid: { ...setsid, traits: ['no-prefix-allow'] },
  ionice: { ...ionice, traits: ['no-prefix-allow'] },
  chrt,
  taskset,
  unbuffer,
  flock: { ...flock, traits: ['no-prefix-allow'] },
  parallel,
  busybox,
  coproc,
  bash: shell,
  sh: shell,
  dash: shell,
  zsh: shell,
  ksh: shell,
  mksh: shell,
  ash: shell,
  rbash: shell,
  fish,
};
