import { unknownHost, userHost } from '../../commands/hosts.js';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  type OptionEffect,
  type OptionRules,
} from '../../commands/spec.js';

/** The system: clocks, hosts, users, processes, services, packages. Looking is read-only; changing is not. */

/**
 * The options systemd's tools share (systemctl, timedatectl, localectl, journalctl's -H): the
 * value-taking ones, so their value is not read as the subcommand (`systemctl -H host status`),
 * and -H/--host, which runs the command on another machine over ssh.
 */
/**
 * -H/--host [USER@]HOST[:PORT][/CONTAINER]: the command runs on HOST, over ssh. The host is a
 * destination, so the reason names it and WebFetch(domain:...) rules meet it.
 */
const overSsh: OptionEffect = (value, sink, ctx) => {
  if (value === undefined) return;
  const slash = value.value.indexOf('/');
  const hostPart = slash < 0 ? value : { ...value, value: value.value.slice(0, slash) };
  const host = value.expansions.length > 0 ? unknownHost(value) : userHost(hostPart);
  const name = host === undefined || host.expansions.length > 0 ? value.raw : host.value;
  sink.network(`${ctx.name} -H runs the command on ${name} over ssh`, false);
  if (host !== undefined) sink.destination(host);
};

const SYSTEMD_RULES: OptionRules = {
  options: [
    'H|host=',
    'M|machine=',
    't|type=',
    'p|property=',
    'P=',
    's|signal=',
    'state=',
    'n|lines=',
    'o|output=',
    'root=',
    'image=',
    'kill-whom|kill-value=',
    'job-mode=',
    'what=',
    'timestamp=',
    'check-inhibitors=',
    'when=',
    'message=',
    'preset-mode=',
    'boot-loader-entry=',
    'boot-loader-menu=',
    'reboot-argument=',
    'marked',
  ],
  anyOption: true,
  effects: { host: overSsh },
  coded: { host: 'network' },
};

/**
 * localectl, timedatectl: with no subcommand, `status`, `show` or a `list-*` one they print;
 * `set-time`, `set-timezone`, `set-locale`, ... change the clock or the system's settings.
 */
const settings: CommandSpec = {
  rules: SYSTEMD_RULES,
  analyze(ctx, sink) {
    const sub = applyOptions(ctx, sink, SYSTEMD_RULES).operands[0];
    if (sub === undefined) return;
    if (
      sub.expansions.length === 0 &&
      /^(status|show|show-timesync|timesync-status|list-[a-z-]+)$/.test(sub.value)
    )
      return;
    sink.change(`${ctx.name} ${sub.raw} changes system settings`, false);
  },
};

const DATE_RULES: OptionRules = {
  options: [
    'd|date=',
    'f|file=',
    'I|iso-8601?',
    'R|rfc-email',
    'rfc-3339=',
    'r|reference=',
    's|set=',
    'u|utc|universal',
    'debug',
    'resolution',
  ],
  anyOption: true,
  effects: {
    file: 'read',
    reference: 'read',
    set: (_v, s) => s.change('date -s sets the system clock', false),
  },
  coded: { set: 'changes-system' },
};

const date: CommandSpec = {
  rules: DATE_RULES,
  analyze(ctx, sink) {
    applyOptions(ctx, sink, DATE_RULES);
    // `date MMDDhhmm[[CC]YY][.ss]` also sets the clock.
    if (ctx.args.some((w) => /^\d{8,12}(\.\d\d)?$/.test(w.value)))
      sink.change('date MMDDhhmm sets the system clock', false);
  },
};

const HOSTNAME_RULES: OptionRules = {
  options: [
    'a|alias',
    'A|all-fqdns',
    'b|boot',
    'd|domain',
    'f|fqdn|long',
    'F|file=',
    'i|ip-address',
    'I|all-ip-addresses',
    's|short',
    'y|yp|nis',
    'V|version',
    'h|help',
  ],
  anyOption: true,
  effects: { file: (_v, s) => s.change('hostname -F sets the host name', false) },
  coded: { file: 'changes-system' },
};

const hostname: CommandSpec = {
  rules: HOSTNAME_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, HOSTNAME_RULES);
    if (parsed.operands.length > 0) sink.change('hostname NAME sets the host name', false);
  },
};

/** kill: sends signals (destructive) unless it only lists them or checks existence (-0). */
const kill: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    if (
      args.length === 0 ||
      args.some((w) => /^(-l|-L|--list|--table)$/.test(w.value) || /^-l\d*$/.test(w.value))
    )
      return;
    if (args[0]?.value === '-0' || (args[0]?.value === '-s' && args[1]?.value === '0')) return;
    sink.change(`${ctx.name} sends a signal to processes`, true);
  },
};

const killall: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.some((w) => /^(-l|--list)$/.test(w.value))) return;
    sink.change(`${ctx.name} kills processes`, true);
  },
};

const crontab: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args.map((w) => w.value);
    if (args.includes('-l')) return;
    if (args.includes('-r')) return sink.change('crontab -r deletes the crontab', true);
    if (args.includes('-e')) return sink.opaque('crontab -e opens an editor');
    sink.change('crontab FILE replaces the crontab', true);
  },
};

/** systemctl/service: status and listing are reads; start/stop/restart change running services. */
const SYSTEMCTL_READS = new Set([
  'status',
  'show',
  'cat',
  'list-units',
  'list-unit-files',
  'list-sockets',
  'list-timers',
  'list-jobs',
  'list-dependencies',
  'list-machines',
  'is-active',
  'is-enabled',
  'is-failed',
  'is-system-running',
  'get-default',
  'show-environment',
  'help',
]);
const systemctl: CommandSpec = {
  rules: SYSTEMD_RULES,
  analyze(ctx, sink) {
    const sub = applyOptions(ctx, sink, SYSTEMD_RULES).operands[0];
    if (sub === undefined || (sub.expansions.length === 0 && SYSTEMCTL_READS.has(sub.value))) return;
    const stops =
      /^(stop|restart|kill|reload-or-restart|try-restart|isolate|poweroff|reboot|halt|kexec|suspend|hibernate|mask|disable|reset-failed)$/.test(
        sub.value,
      );
    sink.change(`systemctl ${sub.value} changes system services`, stops);
  },
};

const service: CommandSpec = {
  analyze(ctx, sink) {
    const action = ctx.args[1]?.value;
    if (ctx.args.length === 0 || action === 'status' || ctx.args.some((w) => w.value === '--status-all'))
      return;
    sink.change(`service ${action ?? ''} changes a system service`, action !== 'start');
  },
};

const JOURNALCTL_RULES: OptionRules = {
  options: [
    'u|unit=',
    'user-unit=',
    'n|lines?',
    'o|output=',
    'output-fields=',
    'p|priority=',
    'g|grep=',
    'S|since=',
    'U|until=',
    'b|boot?',
    't|identifier=',
    'T|exclude-identifier=',
    'D|directory=',
    'file=',
    'root=',
    'image=',
    'M|machine=',
    'H|host=',
    'namespace=',
    'facility=',
    'c|cursor=',
    'after-cursor=',
    'cursor-file=',
    'vacuum-size=',
    'vacuum-time=',
    'vacuum-files=',
    'rotate',
    'flush',
    'sync',
    'relinquish-var',
    'smart-relinquish-var',
    'setup-keys',
    'update-catalog',
    'verify-key=',
    'f|follow',
  ],
  anyOption: true,
  effects: {
    'vacuum-size': (_v, s) => s.change('journalctl --vacuum deletes journal files', true),
    'vacuum-time': (_v, s) => s.change('journalctl --vacuum deletes journal files', true),
    'vacuum-files': (_v, s) => s.change('journalctl --vacuum deletes journal files', true),
    host: overSsh,
    rotate: 'not-read-only',
    flush: 'not-read-only',
    sync: 'not-read-only',
    'relinquish-var': 'not-read-only',
    'smart-relinquish-var': 'not-read-only',
    'setup-keys': 'not-read-only',
    'update-catalog': 'not-read-only',
    'cursor-file': 'write',
    follow: (_v, s) => s.lingers('journalctl -f keeps following the journal'),
  },
  coded: {
    'vacuum-size': 'removes',
    'vacuum-time': 'removes',
    'vacuum-files': 'removes',
    host: 'network',
    follow: 'lingers',
  },
};

const journalctl: CommandSpec = {
  rules: JOURNALCTL_RULES,
  analyze(ctx, sink) {
    applyOptions(ctx, sink, JOURNALCTL_RULES);
  },
};

const ip: CommandSpec = {
  analyze(ctx, sink) {
    const words = ctx.args.filter((w) => !w.value.startsWith('-')).map((w) => w.value);
    const verb = words[1];
    if (verb === undefined || /^(show|list|lst|ls|get|help)$/.test(verb) || words[0] === 'monitor') return;
    sink.change(`ip ${words.join(' ')} changes network configuration`, /^(del|delete|flush)$/.test(verb));
  },
};

const ifconfig: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.filter((w) => !w.value.startsWith('-')).length <= 1) return;
    sink.change('ifconfig with settings changes network configuration', false);
  },
};

const sysctl: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.some((w) => w.value.includes('=') || /^(-w|--write|-p|--load|--system)/.test(w.value))) {
      sink.change('sysctl sets kernel parameters', false);
    }
  },
};

/**
 * top, htop, btop. Interactive, a keystroke kills or renices a process (htop also runs strace
 * and lsof on one), so only procps top's batch mode (-b), which reads no keys, is short of
 * destructive; and even that is not read-only: the oracle saw `top -b -n 1` make
 * ~/.config/procps in a home without it.
 */
const top: CommandSpec = {
  analyze(ctx, sink) {
    const batch = ctx.name === 'top' && ctx.args.some((w) => /^-[a-zA-Z]*b/.test(w.value));
    if (!batch) {
      sink.change(`${ctx.name} is interactive: a keystroke kills or renices processes`, true);
      return;
    }
    sink.change('top makes its configuration directory ~/.config/procps when missing', false);
    if (!ctx.args.some((w) => /^-[a-zA-Z]*n/.test(w.value))) sink.lingers('top keeps running until stopped');
  },
};

const renice: CommandSpec = {
  analyze: (_ctx, sink) => sink.change('renice changes the priority of running processes', false),
};

const mount: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.length === 0 || ctx.args.every((w) => /^(-l|--show-labels|-t|--types|-v)$/.test(w.value)))
      return;
    sink.change(`${ctx.name} changes mounted file systems`, ctx.name !== 'mount');
  },
};

const power: CommandSpec = {
  analyze: (ctx, sink) => sink.change(`${ctx.name} stops or restarts the machine`, true),
};

const users: CommandSpec = {
  analyze: (ctx, sink) => sink.change(`${ctx.name} changes users, groups or passwords`, true),
};

const stty: CommandSpec = {
  analyze(ctx, sink) {
    if (ctx.args.length === 0 || ctx.args.every((w) => /^(-a|--all|-g|--save)$/.test(w.value))) return;
    sink.change('stty changes terminal settings', false);
  },
};

/** Package managers of the system: queries are reads, the rest installs or removes software. */
function systemPackages(reads: RegExp): CommandSpec {
  return {
    analyze(ctx, sink) {
      const sub = ctx.args.find((w) => !w.value.startsWith('-'));
      const flags = ctx.args.filter((w) => w.value.startsWith('-')).map((w) => w.value);
      if (ctx.name === 'dpkg' || ctx.name === 'rpm') {
        if (
          flags.every((f) =>
            /^-(l|L|s|S|p|c|I|q[a-z]*|-list|-listfiles|-status|-search|-print-avail|-contents|-info|-query|-get-selections|-verify|V)$/.test(
              f,
            ),
          ) &&
          flags.length > 0
        )
          return;
      } else if (sub === undefined || reads.test(sub.value)) return;
      sink.change(
        `${ctx.name} ${sub?.value ?? flags.join(' ')} installs, removes or configures software (running its scripts)`,
        true,
      );
      sink.network(`${ctx.name} may download packages`, false);
    },
  };
}

export const SYSTEM: CommandTable = {
  date,
  hostname,
  kill,
  pkill: killall,
  killall,
  skill: killall,
  xkill: killall,
  crontab,
  systemctl,
  service,
  journalctl,
  ip,
  ifconfig,
  sysctl,
  top,
  htop: top,
  btop: top,
  renice,
  mount,
  umount: mount,
  swapon: mount,
  swapoff: mount,
  shutdown: power,
  reboot: power,
  halt: power,
  poweroff: power,
  useradd: users,
  usermod: users,
  userdel: users,
  groupadd: users,
  groupdel: users,
  passwd: users,
  chpasswd: users,
  chsh: users,
  stty,
  apt: systemPackages(/^(list|show|search|policy|depends|rdepends|changelog|help)$/),
  'apt-get': systemPackages(/^(check|changelog|source-print-uris|help)$/),
  dpkg: systemPackages(/^$/),
  rpm: systemPackages(/^$/),
  yum: systemPackages(/^(list|info|search|provides|repolist|check-update|deplist|history)$/),
  dnf: systemPackages(/^(list|info|search|provides|repolist|repoquery|check-update|deplist|history)$/),
  brew: systemPackages(
    /^(list|ls|info|search|deps|uses|leaves|config|doctor|outdated|--version|--prefix|--cellar|--repository|home|desc|cat|log|options)$/,
  ),
  snap: systemPackages(/^(list|info|find|version|connections|services|changes)$/),
  pacman: systemPackages(/^$/),
  localectl: settings,
  timedatectl: settings,
  getent: {
    // The hosts and networks databases are looked up through DNS when the files do not answer.
    analyze(ctx, sink) {
      const words = ctx.args.filter((w) => !w.value.startsWith('-'));
      const db = words[0];
      if (db === undefined || words.length < 2) return;
      if (db.expansions.length > 0 || /^(a?hosts(v[46])?|networks)$/.test(db.value))
        sink.network(`getent ${db.raw} looks a name up, through DNS when the files do not have it`, false);
    },
  },
  ldd: { analyze: (_ctx, sink) => sink.opaque('ldd can run the program it inspects') },
};
