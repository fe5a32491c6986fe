import {
  applyOptions,
  type CommandContext,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
} from '../../commands/spec.js';
import { staticWord, type Word } from '../../word.js';
import { joinWords, rest, SHELLS, stdinScript, wrapper } from '../wrappers/analyzers.js';

/**
 * Programs that run a command as someone or somewhere else: another user or group (su,
 * runuser, sg, pkexec), another root or namespace (chroot, nsenter, unshare), other privileges
 * (setpriv, fakeroot), a sandbox (firejail) or a system service (systemd-run). The command they
 * run is analyzed as if it were on the line, so rules about it apply; running it as another
 * user (or as a service) is itself not read-only, like sudo.
 */

const AS_USER = (name: string) => `${name} runs the command as another user`;

/** With no command, these start the target's shell, which reads commands from stdin. */
function shellAlone(ctx: CommandContext, sink: EffectSink): void {
  stdinScript(ctx, sink, `${ctx.name} starts a shell that reads commands from stdin`);
}

// ---------------------------------------------------------------- su, runuser

const SU_OPTIONS = [
  'c|command=',
  'session-command=',
  'f|fast',
  'g|group=',
  'G|supp-group=',
  'l|login',
  'm|p|preserve-environment',
  'P|pty',
  's|shell=',
  'w|whitelist-environment=',
  'h|help',
  'V|version',
];

const SU_CODED: OptionRules['coded'] = { command: 'runs-code', 'session-command': 'runs-code' };
const SU_RULES: OptionRules = { options: SU_OPTIONS, coded: SU_CODED };
const RUNUSER_RULES: OptionRules = { options: [...SU_OPTIONS, 'u|user='], coded: SU_CODED };

/**
 * `su [-] [USER [ARGS]]`: USER's shell runs `-c CMD`, or the ARGS (a script and its arguments),
 * or reads stdin. runuser takes the same, and `-u USER COMMAND ARGS` to run a program directly.
 */
function suLike(rules: OptionRules): CommandSpec {
  return {
    rules: rules,
    analyze(ctx, sink) {
      const parsed = applyOptions(ctx, sink, rules);
      const ids = new Set(parsed.options.map((o) => o.id));
      if (ids.has('help') || ids.has('version')) return;
      sink.change(AS_USER(ctx.name), false);
      const operands = parsed.operands.filter((w) => w.value !== '-');
      if (ids.has('user')) {
        if (operands.length > 0) sink.run(operands, ctx.name);
        else shellAlone(ctx, sink);
        return;
      }
      const code = parsed.options.find((o) => o.id === 'command' || o.id === 'session-command')?.value;
      const shell = parsed.options.find((o) => o.id === 'shell')?.value;
      const shellName = shell?.value.slice(shell.value.lastIndexOf('/') + 1);
      const args = operands.slice(1);
      if (shell !== undefined && (shell.expansions.length > 0 || !SHELLS.has(shellName ?? ''))) {
        // `-s PROGRAM` makes any program the "shell": it runs with `-c CMD` and the arguments.
        const dashC: Word[] = code ? [staticWord('-c'), code] : [];
        sink.run([shell, ...dashC, ...args], `${ctx.name} -s`);
        return;
      }
      if (code !== undefined) {
        sink.runScript(code, `${ctx.name} -c`, { shown: true });
        return;
      }
      if (args.length > 0) {
        // The shell is given these as its own arguments: a script to run, or options.
        sink.run([staticWord('sh'), ...args], ctx.name);
        return;
      }
      shellAlone(ctx, sink);
    },
  };
}

// ---------------------------------------------------------------- sg, pkexec

/** `sg [-] GROUP [-c] COMMAND`: COMMAND is a string for /bin/sh -c. */
const sg: CommandSpec = {
  analyze(ctx, sink) {
    let args = ctx.args.filter((w) => w.value !== '-');
    if (args[0]?.value.startsWith('-') && args[0].value !== '-c') {
      sink.notUnderstood(`sg: unknown option ${args[0].raw}`);
      return;
    }
    sink.change(`${ctx.name} runs the command with another group`, false);
    args = args.slice(1);
    if (args[0]?.value === '-c') args = args.slice(1);
    if (args.length === 0) shellAlone(ctx, sink);
    else sink.runScript(joinWords(args), `${ctx.name} -c`, { shown: true });
  },
};

const pkexec = wrapper(['u|user=', 'keep-cwd', 'disable-internal-agent', 'help', 'version'], {
  extra: (ctx, sink) => sink.change(AS_USER(ctx.name), false),
  alone: (ctx, sink) => {
    if (!ctx.args.some((w) => w.value === '--version' || w.value === '--help')) shellAlone(ctx, sink);
  },
});

// ---------------------------------------------------------------- roots and namespaces

const chroot = wrapper(['groups=', 'userspec=', 'skip-chdir', 'help', 'version'], {
  leading: 1,
  extra: (ctx, sink) => {
    const root = ctx.args.find((w) => !w.value.startsWith('-'));
    if (root) sink.read(root);
    sink.change(`${ctx.name} runs the command with another root directory`, false);
  },
  alone: shellAlone,
});

const NAMESPACES = ['m|mount?', 'u|uts?', 'i|ipc?', 'n|net?', 'p|pid?', 'C|cgroup?', 'U|user?', 'T|time?'];

const nsenter = wrapper(
  [
    ...NAMESPACES,
    'a|all',
    't|target=',
    'S|setuid=',
    'G|setgid=',
    'preserve-credentials',
    'r|root?',
    'w|wd?',
    'W|wdns=',
    'e|env',
    'F|no-fork',
    'Z|follow-context',
    'user-parent',
    'keep-caps',
    'c|join-cgroup',
    'N|net-socket=',
    'j|join=',
    'h|help',
    'V|version',
  ],
  {
    extra: (ctx, sink) => sink.change(`${ctx.name} runs the command in another process's namespaces`, false),
    alone: shellAlone,
  },
);

const unshare = wrapper(
  [
    ...NAMESPACES,
    'f|fork',
    'kill-child?',
    'mount-proc?',
    'mount-binfmt?',
    'r|map-root-user',
    'c|map-current-user',
    'map-user=',
    'map-group=',
    'map-users=',
    'map-groups=',
    'map-auto',
    'propagation=',
    'setgroups=',
    'keep-caps',
    'R|root=',
    'w|wd=',
    'S|setuid=',
    'G|setgid=',
    'monotonic=',
    'boottime=',
    'l|load-interp=',
    'h|help',
    'V|version',
  ],
  {
    extra: (ctx, sink) => sink.change(`${ctx.name} runs the command in new namespaces`, false),
    alone: shellAlone,
  },
);

const setpriv = wrapper(
  [
    'd|dump',
    'no-new-privs',
    'ambient-caps=',
    'inh-caps=',
    'bounding-set=',
    'keep-groups',
    'clear-groups',
    'init-groups',
    'groups=',
    'rgid=',
    'egid=',
    'regid=',
    'ruid=',
    'euid=',
    'reuid=',
    'securebits=',
    'pdeathsig=',
    'selinux-label=',
    'apparmor-profile=',
    'landlock-access=',
    'landlock-rule=',
    'seccomp-filter=',
    'reset-env',
    'ptracer=',
    'h|help',
    'V|version',
  ],
  {
    extra: (ctx, sink, inner) => {
      if (inner.length > 0)
        sink.change(`${ctx.name} runs the command with other user ids or privileges`, false);
    },
  },
);

/** fakeroot only pretends to be root (file ownership); `-s FILE` saves that state. */
const fakeroot = wrapper(['l|lib=', 'faked=', 'i=', 's=', 'u|unknown-is-real', 'b=', 'h', 'v', 'version'], {
  transparent: true,
  effects: { i: 'read', s: 'write' },
  alone: (ctx, sink) => {
    if (!ctx.args.some((w) => /^(-h|-v|--version)$/.test(w.value))) shellAlone(ctx, sink);
  },
});

// ---------------------------------------------------------------- sandboxes and services

/** firejail: `--name` / `--name=value` options, then the program (alone: a shell). */
const firejail: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    let i = 0;
    for (; i < args.length; i++) {
      const w = args[i]!;
      if (w.dynamicStart) {
        sink.notUnderstood(`firejail: "${w.raw}" is only known at run time and could be an option`);
        return;
      }
      if (w.value === '--') {
        i++;
        break;
      }
      if (!w.value.startsWith('-')) break;
      const m = /^--(output|output-stderr)=(.+)$/s.exec(w.value);
      if (m) sink.write({ ...w, value: m[2]! }, 'append', `firejail --${m[1]} writes ${m[2]}`);
      if (
        /^--(join|join-or-start|shutdown|list|tree|top|netstats|ls|get|put|cat|debug-[a-z-]+|version|help)\b/.test(
          w.value,
        )
      ) {
        sink.notUnderstood(`firejail ${w.raw} acts on sandboxes or files, not a command`);
        return;
      }
    }
    const inner = args.slice(i);
    if (inner.length > 0) sink.run(inner, ctx.name);
    else shellAlone(ctx, sink);
  },
};

const SYSTEMD_RUN_RULES: OptionRules = {
  options: [
    'u|unit=',
    'p|property=',
    'description=',
    'slice=',
    'slice-inherit',
    'r|remain-after-exit',
    'send-sighup',
    'service-type=',
    'uid=',
    'gid=',
    'nice=',
    'working-directory=',
    'd|same-dir',
    'E|setenv=',
    't|pty',
    'P|pipe',
    'q|quiet',
    'v|verbose',
    'wait',
    'G|collect',
    'user',
    'system',
    'H|host=',
    'M|machine=',
    'C|capsule=',
    'scope',
    'on-active=',
    'on-boot=',
    'on-startup=',
    'on-unit-active=',
    'on-unit-inactive=',
    'on-calendar=',
    'on-clock-change',
    'on-timezone-change',
    'path-property=',
    'socket-property=',
    'timer-property=',
    'no-block',
    'no-ask-password',
    'S|shell',
    'json=',
    'job-mode=',
    'ignore-failure',
    'background=',
    'expand-environment=',
    'h|help',
    'version',
  ],
  effects: {
    host: (v, s) => s.network(`systemd-run -H ${v?.raw ?? ''} runs the command on another machine`, true),
    machine: (_v, s) => s.change('systemd-run -M runs the command in a container', false),
  },
  coded: { host: 'network', machine: 'changes-system' },
  parse: { permute: false },
};

/** systemd-run: the command runs as a transient service, in the background unless waited for. */
const systemdRun: CommandSpec = {
  rules: SYSTEMD_RUN_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SYSTEMD_RUN_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    if (ids.has('help') || ids.has('version')) return;
    sink.change(`${ctx.name} runs the command as a system service`, false);
    const waits =
      ids.has('wait') || ids.has('pty') || ids.has('pipe') || ids.has('scope') || ids.has('shell');
    const timed = [...ids].some((id) => id.startsWith('on-'));
    if (!waits || timed) sink.lingers(`${ctx.name} leaves the command running as a service after the call`);
    const inner = rest(ctx, parsed.restIndex);
    if (inner.length > 0) sink.run(inner, ctx.name);
    else if (ids.has('shell')) shellAlone(ctx, sink);
    else sink.notUnderstood(`${ctx.name} without a command`);
  },
};

export const RUN_AS: CommandTable = {
  su: suLike(SU_RULES),
  runuser: suLike(RUNUSER_RULES),
  sg,
  pkexec,
  chroot,
  nsenter,
  unshare,
  setpriv,
  fakeroot,
  firejail,
  'systemd-run': systemdRun,
};
