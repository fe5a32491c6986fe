/**
 * What a traced run did, read from `strace -ff -y --pidns-translation` output (one file per
 * process; -q, not -qq, so each file ends with how its process ended). Pure: text in, effects out. The jail (jail.ts) produces the files.
 *
 * Only processes descended from the jailed bash count: bubblewrap's own set-up (mounts, uid maps)
 * happens in processes that never become that bash, so it is left out by ancestry, not by name.
 */

export interface TraceFile {
  /** The pid in strace's namespace, from the file name. */
  pid: number;
  text: string;
}

export interface Effects {
  /** Files opened for writing, created, removed, renamed, chmodded... (the path, and the call). */
  writes: string[];
  /** Programs executed after the jailed bash itself (absolute paths as execve saw them). */
  execs: string[];
  /** connect/sendto/sendmsg to an IPv4/IPv6 address (attempts count: the jail has no network). */
  network: string[];
  /** Unix-socket connections (name-service caches excepted): a daemon reached, reported apart. */
  sockets: string[];
  /** Signals (other than 0) sent to a process the line did not start. */
  kills: string[];
  /** Calls that change the system (clock, hostname, mounts, modules...), attempted. */
  system: string[];
  /** Processes still running when the line's bash ended (killed by the jail's teardown). */
  leftovers: string[];
}

const WRITE_FLAGS = /\bO_(WRONLY|RDWR|CREAT|TRUNC|APPEND)\b/;
/** Paths whose writes are no effect on files: the null device, terminals, pipes, sockets. */
const NOT_A_FILE =
  /^(\/dev\/null|\/dev\/zero|\/dev\/full|\/dev\/tty|\/dev\/pts\/\d+|\/dev\/ptmx|pipe:\[|socket:\[|anon_inode:)/;
/** Name lookups through nscd are how libc reads passwd/group; no daemon is really driven. */
const BENIGN_SOCKETS = /^\/(var\/)?run\/nscd\/socket$/;

const PATH_CALLS = new Set([
  'mkdir',
  'mkdirat',
  'unlink',
  'unlinkat',
  'rmdir',
  'rename',
  'renameat',
  'renameat2',
  'link',
  'linkat',
  'symlink',
  'symlinkat',
  'chmod',
  'fchmodat',
  'fchmodat2',
  'chown',
  'lchown',
  'fchownat',
  'truncate',
  'utime',
  'utimes',
  'utimensat',
  'futimesat',
  'mknod',
  'mknodat',
  'setxattr',
  'lsetxattr',
  'removexattr',
  'lremovexattr',
]);
const FD_WRITE_CALLS = new Set(['ftruncate', 'fchmod', 'fchown', 'fsetxattr', 'fremovexattr', 'fallocate']);
const SYSTEM_CALLS = new Set([
  'settimeofday',
  'clock_settime',
  'clock_adjtime',
  'adjtimex',
  'sethostname',
  'setdomainname',
  'mount',
  'umount2',
  'move_mount',
  'fsmount',
  'pivot_root',
  'chroot',
  'swapon',
  'swapoff',
  'reboot',
  'init_module',
  'finit_module',
  'delete_module',
  'kexec_load',
  'acct',
  'quotactl',
  'ptrace',
  'process_vm_writev',
]);

/** The calls jail.ts asks strace to trace: everything the classifier above looks at. */
export const TRACED_CALLS = [
  'execve',
  'execveat',
  'fork',
  'vfork',
  'clone',
  'clone3',
  'open',
  'openat',
  'openat2',
  'creat',
  'connect',
  'sendto',
  'sendmsg',
  'sendmmsg',
  'kill',
  'tkill',
  'tgkill',
  'rt_sigqueueinfo',
  'pidfd_send_signal',
  ...PATH_CALLS,
  ...FD_WRITE_CALLS,
  ...SYSTEM_CALLS,
];

interface Call {
  name: string;
  args: string;
  result: string;
}

/** `name(args) = result` lines; `+++ exited/killed +++` ends are returned apart. */
function callsOf(text: string): { calls: Call[]; end: string } {
  const calls: Call[] = [];
  let end = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('+++ ')) {
      end = line;
      continue;
    }
    const m = /^([a-z_0-9]+)\((.*)\)\s+= (.*)$/s.exec(line);
    if (m) calls.push({ name: m[1]!, args: m[2]!, result: m[3]! });
  }
  return { calls, end };
}

/** The C-escaped string literals of an argument list, decoded. */
function strings(args: string): string[] {
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(args); m; m = re.exec(args)) out.push(unescapeC(m[1]!));
  return out;
}

function unescapeC(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)/g, (_, e: string) => {
    if (e[0] === 'x') return String.fromCharCode(Number.parseInt(e.slice(1), 16));
    if (/^[0-7]/.test(e)) return String.fromCharCode(Number.parseInt(e, 8));
    return (
      ({ n: '\n', t: '\t', r: '\r', v: '\v', f: '\f', a: '\x07', b: '\b' } as Record<string, string>)[e] ?? e
    );
  });
}

/**
 * The paths a call names: each string argument, joined to the directory of the descriptor
 * before it (`AT_FDCWD</home/user/project>, "f"` -> /home/user/project/f); a call that names
 * only a descriptor (`utimensat(3</x/f>, NULL, ...)`) names that descriptor's path.
 */
function pathsOf(args: string): string[] {
  const out: string[] = [];
  const re = /(?:(?:AT_FDCWD|\d+)<((?:[^>\\]|\\.)*)>, )?"((?:[^"\\]|\\.)*)"/g;
  for (let m = re.exec(args); m; m = re.exec(args)) {
    const name = unescapeC(m[2]!);
    out.push(m[1] !== undefined && !name.startsWith('/') ? `${unescapeC(m[1])}/${name}` : name);
  }
  if (out.length === 0) {
    const fd = fdPath(firstArg(args));
    if (fd !== undefined) out.push(fd);
  }
  return out;
}

/** The path strace's -y prints after a descriptor: `3</home/user/f>`. */
function fdPath(s: string): string | undefined {
  const m = /^-?\d+<(.*)>/.exec(s.trim());
  return m ? m[1] : undefined;
}

/** `2 /* 9216 in strace's PID NS *\/` -> 9216; a plain number -> itself. */
function hostPid(s: string): number | undefined {
  const m = /^\s*(-?\d+)(?:\s*\/\* (\d+) in strace's PID NS \*\/)?/.exec(s);
  if (!m) return undefined;
  return Number(m[2] ?? m[1]);
}

function firstArg(args: string): string {
  const i = args.indexOf(', ');
  return i < 0 ? args : args.slice(0, i);
}

/** The line's own processes: the one that execs `marker` (the jailed bash) and its descendants. */
function lineProcesses(files: TraceFile[], marker: string): Map<number, { calls: Call[]; end: string }> {
  const parsed = new Map<number, { calls: Call[]; end: string }>();
  const children = new Map<number, number[]>();
  for (const f of files) {
    const p = callsOf(f.text);
    parsed.set(f.pid, p);
    for (const c of p.calls) {
      if (!/^(clone3?|v?fork)$/.test(c.name)) continue;
      const child = hostPid(c.result);
      if (child !== undefined && child > 0) children.set(f.pid, [...(children.get(f.pid) ?? []), child]);
    }
  }
  const handover = (c: Call) => c.name === 'execve' && c.result === '0' && strings(c.args)[0] === marker;
  const root = files.find((f) => parsed.get(f.pid)!.calls.some(handover));
  const out = new Map<number, { calls: Call[]; end: string }>();
  if (!root) return out;
  const stack = [root.pid];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    if (out.has(pid)) continue;
    const p = parsed.get(pid);
    if (!p) continue;
    let calls = p.calls;
    if (pid === root.pid) {
      // The jailed bash's own process: only what happens after bubblewrap handed over.
      const at = calls.findIndex(handover);
      calls = calls.slice(at + 1);
    }
    out.set(pid, { calls, end: p.end });
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * The effects of the processes descended from the execve of the program `marker`.
 * `transient(path)` says a written path left no trace (a temporary file created and removed).
 */
export function effectsOf(files: TraceFile[], marker: string, transient: (p: string) => boolean): Effects {
  const procs = lineProcesses(files, marker);
  const e: Effects = {
    writes: [],
    execs: [],
    network: [],
    sockets: [],
    kills: [],
    system: [],
    leftovers: [],
  };
  const add = (list: string[], v: string) => {
    if (!list.includes(v)) list.push(v);
  };
  for (const [pid, { calls, end }] of procs) {
    let program = 'bash';
    for (const c of calls) {
      const ok = !c.result.startsWith('-1');
      if (c.name === 'execve' || c.name === 'execveat') {
        if (!ok) continue;
        program = strings(c.args)[0] ?? c.args;
        add(e.execs, program);
      } else if (c.name === 'open' || c.name === 'openat' || c.name === 'openat2' || c.name === 'creat') {
        if (c.name !== 'creat' && !WRITE_FLAGS.test(c.args)) continue;
        const target = (ok ? fdPath(c.result) : undefined) ?? pathsOf(c.args)[0] ?? c.args;
        // ENXIO: the name led to a socket (the caller's stdout is one) or a device, not a file.
        if (NOT_A_FILE.test(target) || transient(target) || c.result.includes('ENXIO')) continue;
        add(e.writes, `${c.name} ${target}${ok ? '' : ` (${c.result})`}`);
      } else if (PATH_CALLS.has(c.name)) {
        const paths = pathsOf(c.args);
        if (paths.length > 0 && paths.every((p) => transient(p))) continue;
        add(e.writes, `${c.name} ${paths.join(' -> ')}${ok ? '' : ` (${c.result})`}`);
      } else if (FD_WRITE_CALLS.has(c.name)) {
        const target = fdPath(firstArg(c.args)) ?? firstArg(c.args);
        if (NOT_A_FILE.test(target) || transient(target)) continue;
        add(e.writes, `${c.name} ${target}`);
      } else if (c.name === 'connect' || c.name.startsWith('send')) {
        const inet = /sa_family=AF_INET6?\b[^}]*/.exec(c.args);
        if (inet) add(e.network, `${c.name} ${inet[0]}`);
        const unix = /sun_path=@?"((?:[^"\\]|\\.)*)"/.exec(c.args);
        if (unix && !BENIGN_SOCKETS.test(unescapeC(unix[1]!)))
          add(e.sockets, `${c.name} ${unescapeC(unix[1]!)}`);
      } else if (
        c.name === 'kill' ||
        c.name === 'tkill' ||
        c.name === 'tgkill' ||
        c.name === 'rt_sigqueueinfo' ||
        c.name === 'pidfd_send_signal'
      ) {
        const parts = c.args.split(', ');
        const sig = c.name === 'tgkill' ? parts[2] : parts[1];
        if (sig === undefined || sig === '0') continue;
        const target = hostPid(c.name === 'tgkill' ? parts[1]! : parts[0]!);
        // A signal to a process the line itself started (timeout, kill %1 of its own job) stays inside it.
        if (target === pid || (target !== undefined && procs.has(target))) continue;
        add(e.kills, `${c.name}(${c.args})`);
      } else if (SYSTEM_CALLS.has(c.name)) {
        add(e.system, `${c.name}(${c.args.slice(0, 80)})`);
      }
    }
    // A process that never ended on its own was still running when the jail was torn down.
    if (end === '' || end.includes('killed by SIGKILL')) add(e.leftovers, `${program} (pid ${pid})`);
  }
  return e;
}
