import { remoteOperand, unknownHost, userHost } from '../../commands/hosts.js';
import {
  applyOptions,
  type CommandContext,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
} from '../../commands/spec.js';
import type { Word } from '../../word.js';

/**
 * Connections to other machines: ssh and the copies over it (scp, sftp, rsync), raw sockets
 * (nc, socat, telnet), and the tools whose operands are hosts (ping, dig, whois, ...). None is
 * read-only; each reports the hosts the line shows it connects to, the files it reads or writes
 * here, and the local commands its options run (ProxyCommand, `nc -e`, `socat EXEC:`).
 */

const literal = (value: string): Word => ({ value, raw: value, expansions: [], dynamicStart: false });

/**
 * Short options the getopt way (`-p22`, `-p 22`, `-vp 22`): letters in `valued` take a value.
 * Calls `option` for each; stops at the first operand (or after `--`) and returns its index.
 */
function shortOptions(
  args: readonly Word[],
  from: number,
  valued: string,
  option: (letter: string, value: Word | undefined) => void,
): number {
  let i = from;
  while (i < args.length) {
    const w = args[i]!;
    const v = w.value;
    if (v === '--') return i + 1;
    if (w.dynamicStart || v.length < 2 || !v.startsWith('-')) return i;
    i++;
    for (let k = 1; k < v.length; k++) {
      const letter = v[k]!;
      if (!valued.includes(letter)) {
        option(letter, undefined);
        continue;
      }
      if (k + 1 < v.length) option(letter, { ...w, value: v.slice(k + 1), dynamicStart: false });
      else option(letter, args[i++]);
      break;
    }
  }
  return i;
}

/** An ssh `-o Key=Value`: commands run locally, and the hosts it really connects to. */
function sshOption(opt: Word, sink: EffectSink, who: string): void {
  const m = /^\s*([A-Za-z]+(?:\s+exec)?)\s*[= ]\s*(.*)$/s.exec(opt.value);
  if (!m) return;
  const key = m[1]!.toLowerCase().replace(/\s+/, ' ');
  const value = m[2]!;
  if (/^(proxycommand|localcommand|knownhostscommand|match exec)$/.test(key)) {
    if (value !== 'none') sink.runScript({ ...opt, value }, `${who} -o ${m[1]}`);
  } else if (key === 'hostname' || key === 'proxyjump') {
    if (opt.expansions.length > 0) sink.destination(unknownHost(opt));
    else if (value !== 'none') for (const h of value.split(',')) sshHost(literal(h.trim()), sink);
  } else if (key === 'include') {
    sink.notUnderstood(`${who} -o Include reads a configuration that can run commands`);
  }
}

function sshHost(w: Word, sink: EffectSink): void {
  const host = userHost(w);
  if (host) sink.destination(host);
}

/** What the options shared by ssh, scp and sftp do. */
function sshCommonOption(letter: string, value: Word | undefined, sink: EffectSink, who: string): void {
  if (value === undefined) return;
  switch (letter) {
    case 'o':
      sshOption(value, sink, who);
      return;
    case 'F':
      sink.read(value);
      sink.notUnderstood(`${who} -F reads a configuration that can run commands`);
      return;
    case 'i':
      sink.read(value);
      return;
    case 'J':
      if (value.expansions.length > 0) sink.destination(unknownHost(value));
      else for (const h of value.value.split(',')) sshHost(literal(h), sink);
      return;
    case 'E':
      sink.write(value, 'append', `${who} -E writes its log to ${value.raw}`);
      return;
    case 'S':
      // scp and sftp: the program that makes the connection.
      if (who !== 'ssh') sink.runScript(value, `${who} -S`, { appendsArgs: true });
  }
}

/** ssh: options, the destination, more options, then the remote command. */
const ssh: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    const who = ctx.name;
    // `ssh -V` prints its version and connects nowhere (the oracle shows no effect).
    if (args.length === 1 && args[0]!.value === '-V') return;
    const option = (letter: string, value: Word | undefined) => {
      sshCommonOption(letter, value, sink, who);
      if (letter === 'W' && value) sshHost(value, sink);
      if (letter === 'f') sink.lingers(`${who} -f goes to the background`);
    };
    let i = shortOptions(args, 0, 'BbcDEeFIiJLlmOoPpQRSWw', option);
    const host = args[i];
    if (host) {
      sshHost(host, sink);
      i = shortOptions(args, i + 1, 'BbcDEeFIiJLlmOoPpQRSWw', option);
    }
    sink.network(`${who} connects to another machine and can run commands or send data there`, true);
  },
};

/** scp: remote operands are `[user@]host:path` or `scp://`; local sources are read, a local target written. */
const scp: CommandSpec = {
  analyze(ctx, sink) {
    const who = ctx.name;
    const at = shortOptions(ctx.args, 0, 'cDFiJlPoSX', (letter, value) =>
      sshCommonOption(letter, value, sink, who),
    );
    const operands = ctx.args.slice(at);
    sink.network(`${who} copies files to or from another machine`, true);
    operands.forEach((w, i) => {
      const host = remoteOperand(w);
      if (host) {
        sink.destination(host);
        return;
      }
      if (i === operands.length - 1 && operands.length > 1)
        sink.write(w, 'overwrite', `${who} copies into ${w.raw}`);
      else sink.read(w);
    });
  },
};

/** sftp: `-b FILE` runs the batch of commands in FILE (`!cmd` lines run locally). */
const sftp: CommandSpec = {
  analyze(ctx, sink) {
    const who = ctx.name;
    const at = shortOptions(ctx.args, 0, 'BbcDFiJlPoRSsX', (letter, value) => {
      sshCommonOption(letter, value, sink, who);
      if (letter === 'b' && value) {
        if (value.value !== '-') sink.read(value);
        sink.opaque(`${who} -b runs the commands in ${value.raw}, which can run local commands`);
      }
      if (letter === 'D' && value) sink.runScript(value, `${who} -D`, { appendsArgs: true });
    });
    const host = ctx.args[at];
    if (host) sshHost(host, sink);
    sink.network(`${who} transfers files to or from another machine`, true);
  },
};

/**
 * Tools whose operands are host names or addresses (ping, dig, whois, nc, ...): every operand
 * is reported as one (a record type or a port among them names no host a rule matches).
 * `valued`: option letters that take a value; `hostOptions`: those whose value is a host too.
 */
function hostTool(what: string, sends: boolean, valued: string, hostOptions = ''): CommandSpec {
  return {
    analyze(ctx, sink) {
      sink.network(`${ctx.name} ${what}`, sends);
      const args = ctx.args;
      let i = 0;
      while (i < args.length) {
        const w = args[i]!;
        const v = w.value;
        if (!w.dynamicStart && v.startsWith('--')) {
          i++;
          continue;
        }
        if (!w.dynamicStart && v.length > 1 && v.startsWith('-')) {
          // One option cluster: a value-taking letter ends it (value attached or next word).
          let k = 1;
          while (k < v.length && !valued.includes(v[k]!)) k++;
          if (k < v.length) {
            const value = k + 1 < v.length ? { ...w, value: v.slice(k + 1) } : args[++i];
            if (value && hostOptions.includes(v[k]!)) hostOperand(value, sink);
          }
          i++;
          continue;
        }
        if (!w.dynamicStart && /^[+]/.test(v)) {
          i++;
          continue;
        }
        hostOperand(!w.dynamicStart && v.startsWith('@') ? { ...w, value: v.slice(1) } : w, sink);
        i++;
      }
    },
  };
}

function hostOperand(w: Word, sink: EffectSink): void {
  if (w.expansions.length > 0 && (w.staticPrefix ?? 0) === 0) sink.destination(unknownHost(w));
  else sshHost(w, sink);
}

const NC_RULES: OptionRules = {
  options: [
    '4',
    '6',
    'b',
    'C',
    'D',
    'd',
    'F',
    'h',
    'k|keep-open',
    'l|listen',
    'N',
    'n',
    'r',
    'S',
    't',
    'U',
    'u|udp',
    'v|verbose',
    'z',
    'I=',
    'i|idle-timeout=',
    'M=',
    'm|max-conns=',
    'O=',
    'P|proxy-auth=',
    'p|source-port=',
    'q=',
    's|source=',
    'T=',
    'V=',
    'w|wait=',
    'X|proxy-type=',
    'x|proxy=',
    'e|exec=',
    'c|sh-exec=',
    'lua-exec=',
    'o|output=',
    'hex-dump=',
    'append-output',
    'ssl',
    'ssl-cert=',
    'ssl-key=',
    'allow=',
    'deny=',
    'allowfile=',
    'denyfile=',
    'broker',
    'chat',
    'send-only',
    'recv-only',
  ],
  anyOption: true,
  effects: {
    exec: (v, s, c) => v && s.runScript(v, `${c.name} -e`),
    'sh-exec': (v, s, c) => v && s.runScript(v, `${c.name} -c`),
    'lua-exec': (_v, s, c) => s.opaque(`${c.name} --lua-exec runs a Lua script`),
    output: 'write',
    'hex-dump': 'write',
    'ssl-key': 'read',
    proxy: (v, s) => v && hostOperand(v, s),
  },
  coded: { exec: 'runs-code', 'sh-exec': 'runs-code', 'lua-exec': 'runs-code', proxy: 'network' },
};

/** nc / ncat / netcat: `HOST PORT`, or a listener; `-e`/`-c` run a program wired to the socket. */
const nc: CommandSpec = {
  rules: NC_RULES,
  analyze(ctx: CommandContext, sink) {
    const parsed = applyOptions(ctx, sink, NC_RULES);
    sink.network(`${ctx.name} opens a raw network connection and sends its input`, true);
    const listens = parsed.options.some((o) => o.id === 'listen');
    const host = parsed.operands[0];
    if (host && !listens) hostOperand(host, sink);
  },
};

/** socat: two addresses; `TCP:host:port` and the like connect, `EXEC:`/`SYSTEM:` run commands. */
const socat: CommandSpec = {
  analyze(ctx, sink) {
    sink.network(`${ctx.name} relays data over the network`, true);
    for (const w of ctx.args) {
      if (!w.dynamicStart && w.value.startsWith('-') && w.value.length > 1) continue;
      if (w.expansions.length > 0 && (w.staticPrefix ?? 0) < w.value.indexOf(':') + 1) {
        sink.unknownCode(`${ctx.name} address "${w.raw}" is only known at run time (it may run a command)`);
        sink.destination(unknownHost(w));
        continue;
      }
      const m = /^([A-Za-z0-9-]+)[:,](.*)$/s.exec(w.value);
      if (!m) continue;
      const type = m[1]!.toUpperCase();
      const body = m[2]!.replace(/,.*$/s, '');
      if (type === 'EXEC' || type === 'SYSTEM') {
        sink.runScript({ ...w, value: m[2]!.replace(/,[a-z-]+(=[^,]*)?$/g, '') }, `${ctx.name} ${type}:`);
        continue;
      }
      if (/^(FILE|OPEN|GOPEN|CREATE|CREAT|PIPE)$/.test(type)) {
        // A file here: read from, and written to (socat relays both ways unless -u/-U).
        const file = { ...w, value: body };
        if (type !== 'CREATE' && type !== 'CREAT') sink.read(file);
        sink.write(file, 'modify', `${ctx.name} ${type}: writes ${body}`);
        continue;
      }
      const fields = body.split(':');
      const hosts = /^(PROXY|SOCKS4A?|SOCKS5)/.test(type)
        ? fields.slice(0, 2)
        : /^(TCP|UDP|SCTP|DCCP|OPENSSL|SSL|UDPLITE)/.test(type) && !/LISTEN|RECV/.test(type)
          ? fields.slice(0, 1)
          : [];
      for (const h of hosts) if (h !== '') hostOperand({ ...w, value: h }, sink);
    }
  },
};

/** rsync: a `host:` or `rsync://` operand is remote; the last operand is written. */
const RSYNC_RULES: OptionRules = {
  options: [
    'e|rsh=',
    'rsync-path=',
    'exclude=',
    'include=',
    'exclude-from=',
    'include-from=',
    'files-from=',
    'filter|f=',
    'chmod=',
    'chown=',
    'log-file=',
    'partial-dir=',
    'temp-dir|T=',
    'compare-dest=',
    'copy-dest=',
    'link-dest=',
    'backup-dir=',
    'suffix=',
    'bwlimit=',
    'timeout=',
    'port=',
    'password-file=',
    'n|dry-run',
    'delete',
    'delete-before',
    'delete-during',
    'delete-after',
    'delete-excluded',
    'remove-source-files',
    'list-only',
  ],
  anyOption: true,
  effects: {
    rsh: 'exec',
    'rsync-path': 'not-read-only',
    'exclude-from': 'read',
    'include-from': 'read',
    'files-from': 'read',
    'password-file': 'read',
    'log-file': 'write',
  },
};

const rsync: CommandSpec = {
  rules: RSYNC_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, RSYNC_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    const ops = [...parsed.operands];
    const hosts = ops.map(remoteOperand).filter((h) => h !== undefined);
    const remote = hosts.length > 0;
    if (remote) sink.network('rsync copies to or from another machine', true);
    for (const h of hosts) sink.destination(h);
    if (ids.has('dry-run') || ids.has('list-only') || ops.length < 2) {
      if (!remote && !ids.has('dry-run') && !ids.has('list-only') && ops.length < 2)
        sink.notUnderstood('rsync without a destination');
      return;
    }
    const dest = ops.pop()!;
    sink.write(dest, 'overwrite', `rsync writes into ${dest.raw}`);
    for (const src of ops) sink.read(src);
    if ([...ids].some((id) => id.startsWith('delete')))
      sink.remove(dest, 'rsync --delete deletes files at the destination', 'tree');
    if (ids.has('remove-source-files'))
      for (const src of ops) sink.remove(src, 'rsync --remove-source-files deletes the sources');
  },
};

const SSH_KEYGEN_QUERY_IDS: ReadonlySet<string> = new Set(['l', 'y', 'B', 'L', 'F']);
const SSH_KEYGEN_QUERIES: OptionRules = {
  options: ['l', 'y', 'B', 'L', 'F=', 'f=', 'E=', 'v', 'q'],
  effects: { f: 'read' },
};

/**
 * ssh-keygen: its queries read (-l a fingerprint, -y the public half of a private key, -B, -L a
 * certificate, -F a host in known_hosts), from -f's file. Anything else makes or changes keys,
 * certificates or known_hosts (generating, -p, -R, -H, -s, ...): only the query options are
 * known here, so any other one is not read-only, and so is a call with no query at all (plain
 * `ssh-keygen` writes a new key).
 */
const sshKeygen: CommandSpec = {
  rules: SSH_KEYGEN_QUERIES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SSH_KEYGEN_QUERIES);
    if (!parsed.options.some((o) => SSH_KEYGEN_QUERY_IDS.has(o.id))) {
      sink.change(`${ctx.name} without a query option makes or changes a key`, true);
      return;
    }
    for (const w of parsed.operands) sink.notUnderstood(`${ctx.name} takes no operand like "${w.raw}"`);
  },
};

const SSH_ADD_QUERIES: OptionRules = { options: ['l', 'L', 'E=', 'q', 'v'] };

/** ssh-add: -l and -L list the agent's keys; anything else adds, removes or locks keys in it. */
const sshAdd: CommandSpec = {
  rules: SSH_ADD_QUERIES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SSH_ADD_QUERIES);
    if (parsed.operands.length > 0 || !parsed.options.some((o) => o.id === 'l' || o.id === 'L'))
      sink.change(`${ctx.name} adds, removes or locks keys in the ssh agent`, false);
  },
};

export const REMOTE: CommandTable = {
  ssh,
  'ssh-add': sshAdd,
  'ssh-keygen': sshKeygen,
  scp,
  sftp,
  ftp: hostTool('transfers files over the network', true, 'P'),
  tftp: hostTool('transfers files over the network', true, 'mcR'),
  rsync,
  nc,
  ncat: nc,
  netcat: nc,
  socat,
  telnet: hostTool('opens a network connection', true, 'belnX'),
  ping: hostTool('sends packets to a host', false, 'cfiIlmMpQsStTwWF'),
  ping6: hostTool('sends packets to a host', false, 'cfiIlmMpQsStTwWF'),
  traceroute: hostTool('sends packets to a host', false, 'fgimNpsqwzAMOtz'),
  tracepath: hostTool('sends packets to a host', false, 'lmp'),
  mtr: hostTool('sends packets to a host', false, 'acfimsBFIGLMPQYZ', 'a'),
  dig: hostTool('queries DNS', false, 'bcfkpqtxy', 'b'),
  nslookup: hostTool('queries DNS', false, ''),
  host: hostTool('queries DNS', false, 'cNRtWm'),
  whois: hostTool('queries a whois server', false, 'hpTsgi', 'h'),
  nmap: hostTool('scans hosts', false, ''),
  arping: hostTool('sends packets to a host', false, 'cwIsSTiW'),
};
