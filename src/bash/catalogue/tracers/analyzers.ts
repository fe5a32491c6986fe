import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
} from '../../commands/spec.js';
import type { Word } from '../../word.js';
import { rest, wrapper } from '../wrappers/analyzers.js';

/**
 * Tracers and debuggers: they run the command they are given (which rules must see, as under
 * any wrapper) and more besides: tracing output written to files or piped to programs,
 * attaching to other processes, debugger commands that run shell code.
 */

const TRACES = (name: string) =>
  `${name} traces or instruments a program (and can attach to others or write files)`;

/** `strace -o FILE`; `-o '|cmd'` and `-o '!cmd'` pipe the trace into a shell command. */
function traceOutput(value: Word | undefined, sink: EffectSink, who: string): void {
  if (value === undefined) return;
  if (/^[|!]/.test(value.value)) {
    sink.runScript({ ...value, value: value.value.slice(1) }, `${who} -o |`);
    return;
  }
  sink.write(value, 'overwrite', `${who} -o writes ${value.raw}`);
}

const STRACE_RULES: OptionRules = {
  options: [
    'a|columns=',
    'b|detach-on=',
    'e=',
    'E|env=',
    'I|interruptible=',
    'o|output=',
    'O|summary-syscall-overhead=',
    'p|attach=',
    'P|trace-path=',
    's|string-limit=',
    'S|summary-sort-by=',
    'u|user=',
    'U|summary-columns=',
    'X|const-print-style=',
    'A|output-append-mode',
    'c|summary-only',
    'C|summary',
    'd|debug',
    'D|daemonize?',
    'f|follow-forks',
    'F',
    'h|help',
    'i|instruction-pointer',
    'k|stack-trace?',
    'n|syscall-number',
    'q|quiet?',
    'r|relative-timestamps?',
    't|absolute-timestamps?',
    'T|syscall-times?',
    'v|no-abbrev',
    'V|version',
    'w|summary-wall-clock',
    'x|strings-in-hex?',
    'y|decode-fds?',
    'z|successful-only',
    'Z|failed-only',
    'trace=',
    'signal=',
    'status=',
    'inject=',
    'fault=',
  ],
  anyOption: true,
  effects: {
    output: (v, s) => traceOutput(v, s, 'strace'),
    inject: (_v, s) => s.notUnderstood('strace --inject changes what system calls return'),
    fault: (_v, s) => s.notUnderstood('strace --fault makes system calls fail'),
    e: (v, s) => {
      if (v && /^(inject|fault)=/.test(v.value))
        s.notUnderstood(`strace -e ${v.raw} changes what system calls do`);
    },
  },
  coded: { output: 'runs-code', inject: 'unmodelled', fault: 'unmodelled', e: 'unmodelled' },
  parse: { permute: false },
};

const LTRACE_RULES: OptionRules = {
  options: [
    'a|align=',
    'A=',
    'D|debug=',
    'e=',
    'F|config=',
    'l|library=',
    'n|indent=',
    'o|output=',
    'p=',
    's=',
    'u=',
    'w|where=',
    'x=',
    'b|no-signals',
    'c',
    'C|demangle',
    'f',
    'h|help',
    'i',
    'L',
    'r',
    'S',
    't',
    'T',
    'V|version',
  ],
  anyOption: true,
  effects: { output: (v, s) => traceOutput(v, s, 'ltrace') },
  coded: { output: 'runs-code' },
  parse: { permute: false },
};

function tracer(rules: OptionRules): CommandSpec {
  return {
    rules,
    analyze(ctx, sink) {
      sink.notUnderstood(TRACES(ctx.name));
      const parsed = applyOptions(ctx, sink, rules);
      if (parsed.options.some((o) => o.id === 'attach' || o.id === 'p'))
        sink.change(`${ctx.name} -p attaches to a running process`, false);
      const inner = rest(ctx, parsed.restIndex);
      if (inner.length > 0) sink.run(inner, ctx.name);
    },
  };
}

/** valgrind: `--name=value` options up to the program, which it runs. */
const valgrind: CommandSpec = {
  analyze(ctx, sink) {
    sink.notUnderstood(TRACES(ctx.name));
    const args = ctx.args;
    let i = 0;
    for (; i < args.length; i++) {
      const w = args[i]!;
      if (w.dynamicStart) break;
      const m = /^--?([a-z0-9-]+)(?:=(.*))?$/s.exec(w.value);
      if (!m) break;
      const value: Word | undefined = m[2] === undefined ? undefined : { ...w, value: m[2] };
      switch (m[1]) {
        case 'log-file':
        case 'xml-file':
          if (value) sink.write(value, 'overwrite', `valgrind --${m[1]} writes ${m[2]}`);
          break;
        case 'log-socket':
        case 'xml-socket':
          sink.network(`valgrind --${m[1]} sends its output over the network`, true);
          break;
        case 'db-command':
          if (value) sink.runScript(value, 'valgrind --db-command', { appendsArgs: true });
          break;
      }
    }
    const inner = args.slice(i);
    if (inner.length > 0) sink.run(inner, 'valgrind');
  },
};

/** gdb commands that only look at the program (the program itself is already not shown). */
const GDB_HARMLESS =
  /^\s*(bt|backtrace|where|info\b.*|i\s.*|q|quit|kill|thread apply all (bt|backtrace).*|set (pagination|confirm|print|width|height|style|logging (off|enabled off))\b.*|show\b.*|frame\b.*|f \d+|list\b.*|l\b.*|disassemble\b.*|x\/.*|p(rint)?\s.*|run|r|start|continue|c|next|n|step|s|finish|break\b.*|b\s.*|tbreak\b.*|watch\b.*|display\b.*|up|down)\s*$/;

/** One gdb command: `shell CMD` and `!CMD` run shell code; python, source, pipe and the like run other code. */
function gdbCommand(command: Word, sink: EffectSink, who: string): void {
  const v = command.value;
  const shell = /^\s*(?:shell\b|!)\s*(.*)$/s.exec(v);
  if (shell) {
    sink.runScript({ ...command, value: shell[1]! }, `${who} shell`);
    return;
  }
  if (command.expansions.length > 0 || !GDB_HARMLESS.test(v)) {
    sink.unknownCode(`${who} "${command.raw}" is a debugger command, which can run any code`);
  }
}

const GDB_TAKES_VALUE = new Set([
  'ex',
  'eval-command',
  'iex',
  'init-eval-command',
  'x',
  'command',
  'ix',
  'init-command',
  'p',
  'pid',
  'c',
  'core',
  's',
  'symbols',
  'e',
  'exec',
  'se',
  'd',
  'directory',
  'cd',
  'tty',
  'i',
  'interpreter',
  'b',
  'l',
  'D',
  'data-directory',
]);

/** gdb: `-ex CMD` runs debugger commands, `-x FILE` a command file, `--args PROG ARGS` sets up a program run. */
const gdb: CommandSpec = {
  analyze(ctx, sink) {
    sink.opaque('gdb runs and controls programs');
    const args = ctx.args;
    for (let i = 0; i < args.length; i++) {
      const w = args[i]!;
      if (w.value === '--args') {
        const inner = args.slice(i + 1);
        if (inner.length > 0) sink.run(inner, 'gdb --args');
        return;
      }
      const m = /^--?([A-Za-z][a-z-]*)(?:=(.*))?$/s.exec(w.value);
      if (!m || w.dynamicStart) {
        if (w.expansions.length === 0) sink.read(w);
        continue;
      }
      const name = m[1]!;
      if (!GDB_TAKES_VALUE.has(name)) continue;
      let value: Word | undefined;
      if (m[2] !== undefined) value = { ...w, value: m[2] };
      else {
        value = args[i + 1];
        i++;
      }
      if (value === undefined) break;
      switch (name) {
        case 'ex':
        case 'eval-command':
        case 'iex':
        case 'init-eval-command':
          gdbCommand(value, sink, `gdb -${name}`);
          break;
        case 'x':
        case 'command':
        case 'ix':
        case 'init-command':
          sink.opaque(`gdb -${name} runs the debugger commands in ${value.raw}`);
          break;
        case 'p':
        case 'pid':
          sink.change('gdb -p attaches to a running process', false);
          break;
      }
    }
  },
};

export const TRACERS: CommandTable = {
  strace: tracer(STRACE_RULES),
  ltrace: tracer(LTRACE_RULES),
  valgrind,
  gdb,
  catchsegv: wrapper([], { transparent: true }),
};
