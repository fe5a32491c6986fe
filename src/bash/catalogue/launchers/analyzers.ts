import { applyOptions, type CommandSpec, type CommandTable, type OptionRules } from '../../commands/spec.js';
import { dynamicWord, type Word } from '../../word.js';
import { rest, stdinScript, wrapper } from '../wrappers/analyzers.js';

/**
 * Programs that run a command in an adjusted setting: resource limits, a terminal recorder, a
 * virtual display, a session bus, a password feeder, a proxy, a CPU or memory policy, a fake
 * clock. The command they run is analyzed as if it were on the line (so rules about it apply);
 * what they add themselves (log files, daemons left running) is reported on their own part.
 */

const prlimit = wrapper(
  [
    'c|core?',
    'd|data?',
    'e|nice?',
    'f|fsize?',
    'i|sigpending?',
    'l|memlock?',
    'm|rss?',
    'n|nofile?',
    'q|msgqueue?',
    'r|rtprio?',
    's|stack?',
    't|cpu?',
    'u|nproc?',
    'v|as?',
    'x|locks?',
    'y|rttime?',
    'p|pid=',
    'o|output=',
    'noheadings',
    'raw',
    'verbose',
    'h|help',
    'V|version',
  ],
  {
    transparent: true,
    extra: (ctx, sink) => {
      if (ctx.args.some((w) => /^(-p|--pid)(=|$)|^-p\d/.test(w.value)))
        sink.change(`${ctx.name} --pid changes the limits of a running process`, false);
    },
    alone: () => {},
  },
);

/** `script [FILE]` records the session into FILE (default `typescript`); `-c CMD` is run with the shell. */
const SCRIPT_RULES: OptionRules = {
  options: [
    'a|append',
    'c|command=',
    'E|echo=',
    'e|return',
    'f|flush',
    'force',
    'B|log-io=',
    'I|log-in=',
    'O|log-out=',
    'T|log-timing=',
    't|timing?',
    'm|logging-format=',
    'o|output-limit=',
    'q|quiet',
    'h|help',
    'V|version',
  ],
  // The body reads these: -c's command runs, the log options name the files it records into.
  coded: {
    command: 'runs-code',
    'log-io': 'writes',
    'log-in': 'writes',
    'log-out': 'writes',
    'log-timing': 'writes',
    timing: 'writes',
  },
};

const TYPESCRIPT: Word = { value: 'typescript', raw: 'typescript', expansions: [], dynamicStart: false };

const LOG_OPTIONS = new Set(['log-io', 'log-in', 'log-out', 'log-timing', 'timing']);

const script: CommandSpec = {
  rules: SCRIPT_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SCRIPT_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    if (ids.has('help') || ids.has('version')) return;
    const how = ids.has('append') ? 'append' : 'overwrite';
    const logs = parsed.options.filter((o) => LOG_OPTIONS.has(o.id) && o.value !== undefined);
    const file =
      parsed.operands[0] ??
      (logs.some((o) => o.id !== 'timing' && o.id !== 'log-timing') ? undefined : TYPESCRIPT);
    for (const w of [...logs.map((o) => o.value!), ...(file ? [file] : [])]) {
      if (w.expansions.length === 0 && w.value === '/dev/null') continue;
      sink.write(w, how, `${ctx.name} records the session into ${w.raw}`);
    }
    if (parsed.operands.length > 1) sink.notUnderstood(`${ctx.name}: more than one file`);
    const command = parsed.options.find((o) => o.id === 'command')?.value;
    if (command) sink.runScript(command, `${ctx.name} -c`, { shown: true });
    else stdinScript(ctx, sink, `${ctx.name} starts a shell that reads commands from the terminal`);
  },
};

const xvfbRun = wrapper(
  [
    'a|auto-servernum',
    'd|auto-display',
    'e|error-file=',
    'f|auth-file=',
    'n|server-num=',
    'l|listen-tcp',
    'p|xauth-protocol=',
    's|server-args=',
    'w|wait=',
    'h|help',
  ],
  { transparent: true, effects: { 'error-file': 'write', 'auth-file': 'write' } },
);

/** The oracle saw `dbus-run-session ls` start /usr/bin/dbus-daemon: a daemon the line does not show. */
const dbusRunSession = wrapper(['config-file=', 'dbus-daemon=', 'help', 'version'], {
  transparent: true,
  effects: { 'config-file': 'read', 'dbus-daemon': 'exec' },
  extra: (ctx, sink) => {
    if (ctx.args.length === 1 && ['--help', '--version'].includes(ctx.args[0]!.value)) return;
    sink.change(`${ctx.name} starts a session bus daemon (dbus-daemon) for the command`, false);
  },
});

const dbusLaunch = wrapper(
  [
    'sh-syntax',
    'csh-syntax',
    'auto-syntax',
    'binary-syntax',
    'close-stderr',
    'exit-with-session',
    'exit-with-x11',
    'autolaunch=',
    'config-file=',
    'version',
    'help',
  ],
  {
    effects: { 'config-file': 'read' },
    extra: (ctx, sink) => sink.lingers(`${ctx.name} starts a session bus that keeps running`),
    alone: () => {},
  },
);

const sshpass = wrapper(['f=', 'd=', 'p=', 'e|env', 'P=', 'v', 'h', 'V'], {
  transparent: true,
  effects: { f: 'read' },
});

/**
 * ssh-agent never only reads: the oracle saw `ssh-agent` and `ssh-agent -s` make a socket
 * directory under /tmp and leave the agent running; with a command it runs the agent for as long
 * as the command does. `-k` signals the agent $SSH_AGENT_PID names.
 */
const sshAgent = wrapper(['a=', 'c', 's', 'D', 'd', 'E=', 'k', 'O=', 'P=', 't='], {
  coded: { k: 'kills' },
  extra: (ctx, sink, inner) => {
    if (ctx.args.some((w) => w.value === '-k')) {
      sink.change(`${ctx.name} -k kills the agent $SSH_AGENT_PID names`, true);
      return;
    }
    sink.change(`${ctx.name} starts an agent process and makes its socket under /tmp`, false);
    if (inner.length === 0) sink.lingers(`${ctx.name} starts an agent that keeps running`);
  },
  alone: () => {},
});

const caffeinate = wrapper(['d', 'i', 'm', 's', 'u', 't=', 'w='], { transparent: true, alone: () => {} });

const numactl = wrapper(
  [
    'a|all',
    'i|interleave=',
    'w|weighted-interleave=',
    'p|preferred=',
    'P|preferred-many=',
    'm|membind=',
    'b|balancing',
    'N|cpunodebind=',
    'C|physcpubind=',
    'l|localalloc',
    's|show',
    'H|hardware',
    'V|version',
    'h|help',
    'c|cpu-compress',
    'S|strict',
  ],
  { transparent: true, alone: () => {} },
);

const SETARCH_OPTIONS = [
  'v|verbose',
  '3|3gb',
  '4|4gb',
  'B|32bit',
  'F|fdpic-funcptrs',
  'I|short-inode',
  'L|addr-compat-layout',
  'R|addr-no-randomize',
  'S|whole-seconds',
  'T|sticky-timeouts',
  'X|read-implies-exec',
  'Z|mmap-page-zero',
  'uname-2.6',
  'list',
  'show?',
  'h|help',
  'V|version',
];
const SETARCH_RULES: OptionRules = { options: SETARCH_OPTIONS, parse: { permute: false } };

/** `setarch ARCH [options] [PROGRAM [ARGS]]` (linux32 and linux64 need no ARCH); alone, a shell. */
const setarch: CommandSpec = {
  transparent: true,
  analyze(ctx, sink) {
    const hasArch = ctx.name === 'setarch' && ctx.args[0] !== undefined && !ctx.args[0].value.startsWith('-');
    const args = hasArch ? ctx.args.slice(1) : ctx.args;
    const parsed = applyOptions({ ...ctx, args }, sink, SETARCH_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    if (ids.has('list') || ids.has('show') || ids.has('help') || ids.has('version')) return;
    const inner = parsed.restIndex === undefined ? [] : args.slice(parsed.restIndex);
    if (inner.length > 0) sink.run(inner, ctx.name);
    else stdinScript(ctx, sink, `${ctx.name} starts a shell that reads commands from stdin`);
  },
};

const eatmydata = wrapper([], { transparent: true });

const faketime = wrapper(['m', 'f', 'p=', 'exclude-monotonic', 'date-prog=', 'h|help', 'v|version'], {
  transparent: true,
  leading: 1,
  effects: { 'date-prog': 'exec' },
});

const proxychains = wrapper(['q', 'f='], { transparent: true, effects: { f: 'read' } });

const torsocks = wrapper(
  [
    'u|user=',
    'p|pass=',
    'a|address=',
    'P|port=',
    'i|isolate',
    'd|debug',
    'q|quiet',
    'h|help',
    'version',
    'shell',
  ],
  {
    transparent: true,
    alone: (ctx, sink) => {
      if (ctx.args.some((w) => w.value === '--shell'))
        stdinScript(ctx, sink, `${ctx.name} --shell starts a shell that reads commands from stdin`);
    },
  },
);

/** entr runs the command each time a file it watches changes; `-s` makes it a shell command. */
const ENTR_RULES: OptionRules = {
  options: ['a', 'c', 'd', 'n', 'p', 'r', 's', 'z'],
  parse: { permute: false },
};

const entr: CommandSpec = {
  rules: ENTR_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, ENTR_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    if (!ids.has('z')) sink.lingers(`${ctx.name} runs the command again on every change until stopped`);
    // `/_` stands for the file that changed: only known at run time.
    const inner = rest(ctx, parsed.restIndex).map((w) =>
      w.value === '/_' ? dynamicWord('/_ (the file that changed)') : w,
    );
    if (inner.length === 0) return;
    if (ids.has('s')) sink.runScript(inner[0]!, `${ctx.name} -s`, { shown: true });
    else sink.run(inner, ctx.name, { repeated: true });
  },
};

export const LAUNCHERS: CommandTable = {
  prlimit,
  script,
  'xvfb-run': xvfbRun,
  'dbus-run-session': dbusRunSession,
  'dbus-launch': dbusLaunch,
  sshpass,
  'ssh-agent': sshAgent,
  caffeinate,
  numactl,
  setarch,
  linux32: setarch,
  linux64: setarch,
  eatmydata,
  faketime,
  proxychains,
  proxychains4: proxychains,
  torsocks,
  entr,
};
