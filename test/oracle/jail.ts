/**
 * The execution oracle: run one command line with real bash inside bubblewrap (every namespace
 * unshared: no network, private PIDs; all capabilities dropped) in a throwaway tree holding a
 * fixture git repository, traced by strace from outside the jail, and report what it did.
 *
 * Hostile lines run only here. The jail's root is an empty tmpfs with /usr and /etc read-only,
 * a fresh /dev and /proc, and two writable binds that are throwaway: HOME (with the project
 * inside) and /tmp. strace runs outside, so nothing in the jail can reach its log.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Effects, effectsOf, TRACED_CALLS, type TraceFile } from './trace.js';

/** Where the line's world sits inside the jail. */
export const JAIL_HOME = '/home/user';
export const JAIL_PROJECT = `${JAIL_HOME}/project`;
/** The jailed bash is started through this path, so its execve is told from any bash the line runs. */
const MARKER = '/oracle/bash';
/** The jail's first program: runs the line's bash, then gives what it left behind time to end. */
const WRAPPER = '/oracle/wrap';
/**
 * After the line's bash exits, wait up to 2 s while other processes than bubblewrap's init and
 * this one run (a process substitution finishing its output is no lingering job); what is still
 * running then is torn down with the jail and reported as left running. The pause is `read -t`
 * on a pipe that never ends (fd 9), so the wait itself starts no program.
 */
const WRAPPER_SCRIPT =
  `${MARKER} -c "$1"; s=$?; exec 9<> <(:); ` +
  'for ((i = 0; i < 20; i++)); do p=(/proc/[0-9]*); [ ${#p[@]} -le 2 ] && break; read -t 0.1 -u 9; done; exit $s';

export interface OracleResult {
  command: string;
  /** Nothing written, no program the line does not name, no network, no signal, nothing left running (a line cut off by the time limit is judged by what it did until then). */
  readOnly: boolean;
  effects: Effects;
  /** Programs executed whose names the line never shows (a script, a pager, a hook...). */
  hiddenExecs: string[];
  /** Files of HOME and /tmp that differ after the run (a backstop to the traced calls). */
  changed: string[];
  exitCode: number | null;
  timedOut: boolean;
}

export interface OracleAvailability {
  available: boolean;
  reason?: string;
}

/** bwrap and strace present, and able to run a jailed bash here. */
export function probeOracle(): OracleAvailability {
  for (const tool of ['bwrap', 'strace']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return { available: false, reason: `${tool} is not installed` };
  }
  const home = fixtureTemplate();
  const [cmd, ...rest] = [...launcher(), 'bwrap', ...jailArgs(home, os.tmpdir()), ...lineArgv('true')];
  const r = spawnSync(cmd!, rest, { timeout: 10_000 });
  if (r.status !== 0)
    return { available: false, reason: `bwrap cannot start a jail here: ${String(r.stderr)}` };
  return { available: true };
}

/** The unprivileged user a root caller runs lines as. */
const NOBODY = 65534;

/**
 * What starts bwrap. As root, lines run as nobody with a cap on processes: root's processes are
 * exempt from RLIMIT_NPROC even without capabilities, so a fork bomb would meet no limit, and an
 * unprivileged user owns nothing outside the throwaway tree. Otherwise lines run as the caller.
 */
function launcher(): string[] {
  if (process.getuid?.() !== 0) return [];
  return [
    'prlimit',
    '--nproc=512',
    'setpriv',
    `--reuid=${NOBODY}`,
    `--regid=${NOBODY}`,
    '--clear-groups',
    '--',
  ];
}

function chownTree(dir: string): void {
  fs.lchownSync(dir, NOBODY, NOBODY);
  for (const ent of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, ent.name);
    if (ent.isDirectory()) chownTree(full);
    else fs.lchownSync(full, NOBODY, NOBODY);
  }
}

function jailArgs(home: string, tmp: string): string[] {
  const args = ['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--new-session'];
  args.push('--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc');
  for (const top of ['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32']) {
    let target: string | undefined;
    try {
      target = fs.readlinkSync(top);
    } catch {
      target = undefined;
    }
    if (target !== undefined) args.push('--symlink', target, top);
    else if (fs.existsSync(top)) args.push('--ro-bind', top, top);
  }
  args.push('--dev', '/dev', '--proc', '/proc', '--tmpfs', '/run');
  args.push('--bind', home, JAIL_HOME, '--bind', tmp, '/tmp', '--chdir', JAIL_PROJECT);
  args.push('--symlink', '/usr/bin/bash', MARKER, '--symlink', '/usr/bin/bash', WRAPPER);
  args.push('--clearenv');
  const env: Record<string, string> = {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: JAIL_HOME,
    USER: 'user',
    LOGNAME: 'user',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    SHELL: '/bin/bash',
  };
  for (const [k, v] of Object.entries(env)) args.push('--setenv', k, v);
  return args;
}

function lineArgv(command: string): string[] {
  return [WRAPPER, '-c', WRAPPER_SCRIPT, 'oracle', command];
}

let template: string | undefined;

/** The fixture HOME, built once per process: a git repository with two commits and a few files. */
function fixtureTemplate(): string {
  if (template) return template;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-oracle-template-'));
  const project = path.join(dir, 'project');
  const files: Record<string, string> = {
    'README.md': '# Demo\n\nA project for the oracle.\n',
    f: 'hello\n',
    'notes.txt': 'one\ntwo\nthree\n',
    'src/main.c': 'int main(void) { return 0; }\n',
    'src/app.py': 'print("hi")\n',
    'src/index.js': 'console.log("hi");\n',
    'data/users.csv': 'id,name,role\n1,ann,admin\n2,bob,user\n',
    'package.json': '{"name":"demo","version":"1.0.0","scripts":{"build":"echo build"}}\n',
    '.gitignore': 'node_modules/\n',
  };
  for (const [name, body] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(project, name)), { recursive: true });
    fs.writeFileSync(path.join(project, name), body);
  }
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_AUTHOR_NAME: 'Oracle',
        GIT_AUTHOR_EMAIL: 'oracle@example.invalid',
        GIT_COMMITTER_NAME: 'Oracle',
        GIT_COMMITTER_EMAIL: 'oracle@example.invalid',
      },
    });
    if (r.status !== 0) throw new Error(`fixture: git ${args.join(' ')}: ${String(r.stderr)}`);
  };
  // Programs a line may be tricked into running instead of the real ones (PATH=tools, BASH_ENV=...):
  // each leaves a file behind, so the oracle sees the trick work.
  for (const name of ['ls', 'cat', 'git', 'less', 'grep', 'evil.sh']) {
    const file = path.join(project, 'tools', name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `#!/bin/sh\n: > ${JAIL_PROJECT}/pwned-by-${name}\n`, { mode: 0o755 });
  }
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  fs.appendFileSync(path.join(project, 'notes.txt'), 'four\n');
  git('commit', '-q', '-am', 'second');
  git('tag', 'v1');
  // A refreshed index now, so a read (git status) has no reason to rewrite it.
  git('status', '--porcelain');
  fs.chmodSync(dir, 0o755);
  template = dir;
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Path -> a fingerprint of what is there (type, mode, size, content hash). */
function snapshot(dir: string, prefix: string, out = new Map<string, string>()): Map<string, string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const ent of entries) {
    const full = path.join(dir, ent.name);
    const key = `${prefix}/${ent.name}`;
    const st = fs.lstatSync(full);
    if (ent.isDirectory()) {
      out.set(key, `d:${st.mode}`);
      snapshot(full, key, out);
    } else if (ent.isSymbolicLink()) {
      out.set(key, `l:${fs.readlinkSync(full)}`);
    } else if (ent.isFile()) {
      const hash = createHash('sha1').update(fs.readFileSync(full)).digest('hex');
      out.set(key, `f:${st.mode}:${hash}`);
    } else {
      out.set(key, `o:${st.mode}`);
    }
  }
  return out;
}

/** Git refreshing its index (a lock, a rename) is a cache, not a change the line asked for. */
const INDEX_REFRESH = new Set([`${JAIL_PROJECT}/.git/index`, `${JAIL_PROJECT}/.git/index.lock`]);

export async function runOracle(command: string, opts: { timeoutMs?: number } = {}): Promise<OracleResult> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-oracle-'));
  try {
    const home = path.join(root, 'home');
    const tmp = path.join(root, 'tmp');
    const traceDir = path.join(root, 'trace');
    fs.cpSync(fixtureTemplate(), home, { recursive: true, verbatimSymlinks: true });
    fs.mkdirSync(tmp);
    fs.mkdirSync(traceDir);
    if (launcher().length > 0) {
      fs.chmodSync(root, 0o755);
      chownTree(home);
      chownTree(tmp);
    }
    const before = new Map([...snapshot(home, JAIL_HOME), ...snapshot(tmp, '/tmp')]);

    const straceArgs = ['-ff', '-q', '-y', '--pidns-translation', '-s', '4096'];
    straceArgs.push('-e', `trace=${TRACED_CALLS.map((c) => `?${c}`).join(',')}`);
    straceArgs.push('-o', path.join(traceDir, 't'));
    const argv = [...straceArgs, ...launcher(), 'bwrap', ...jailArgs(home, tmp), ...lineArgv(command)];
    const { exitCode, timedOut } = await run('strace', argv, opts.timeoutMs ?? 10_000);

    const files: TraceFile[] = fs.readdirSync(traceDir).map((name) => ({
      pid: Number(name.slice(name.lastIndexOf('.') + 1)),
      text: fs.readFileSync(path.join(traceDir, name), 'utf8'),
    }));
    const hostOf = (p: string) =>
      p.startsWith('/tmp/')
        ? path.join(tmp, p.slice(5))
        : p.startsWith(`${JAIL_HOME}/`)
          ? path.join(home, p.slice(JAIL_HOME.length + 1))
          : undefined;
    // A temporary file (a here-document's, sort's) made and removed within the run left nothing.
    const transient = (p: string) => {
      if (INDEX_REFRESH.has(p)) return true;
      if (!p.startsWith('/tmp/')) return false;
      const host = hostOf(p);
      return host !== undefined && !fs.existsSync(host);
    };
    const effects = effectsOf(files, MARKER, transient);
    const after = new Map([...snapshot(home, JAIL_HOME), ...snapshot(tmp, '/tmp')]);
    const changed: string[] = [];
    for (const [k, v] of after) if (before.get(k) !== v && !INDEX_REFRESH.has(k)) changed.push(k);
    for (const k of before.keys()) if (!after.has(k)) changed.push(`${k} (removed)`);
    const hiddenExecs = effects.execs.filter((p) => !namedIn(command, p));
    // A line still running at the time limit (`tail -f`) is killed with everything it started:
    // what it did until then counts, being killed does not.
    if (timedOut) effects.leftovers.length = 0;
    const readOnly =
      effects.writes.length === 0 &&
      changed.length === 0 &&
      hiddenExecs.length === 0 &&
      effects.network.length === 0 &&
      effects.sockets.length === 0 &&
      effects.kills.length === 0 &&
      effects.system.length === 0 &&
      effects.leftovers.length === 0;
    return { command, readOnly, effects, hiddenExecs, changed, exitCode, timedOut };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Programs a tool runs by itself, whatever the line says: man's formatting pipeline, git's own
 * helpers. Running them is the named tool's doing, not code the line hides.
 */
const OWN_HELPERS: Record<string, RegExp> = {
  man: /^(groff|nroff|troff|grotty|gtbl|tbl|preconv|col|locale|eqn|neqn|pic|refer|vgrind|zsoelim|less|pager|more|cat|gzip|zcat|bzip2|xz|mandb|manconv|iconv)$/,
  git: /^git(-[a-z0-9-]+)?$/,
  // gzip's wrapper scripts run gzip (and the tool they wrap).
  zcat: /^gzip$/,
  zgrep: /^(gzip|grep|sed)$/,
  zless: /^(gzip|less)$/,
  zmore: /^(gzip|more)$/,
  zdiff: /^(gzip|diff|cmp|mktemp|rm)$/,
};

/** Whether the program's name appears in the line as a word of its own, or is a named tool's helper. */
function namedIn(command: string, program: string): boolean {
  const base = path.basename(program);
  const words = command.split(/[^A-Za-z0-9_.+@-]+/);
  if (words.includes(base) || words.includes(program)) return true;
  return Object.entries(OWN_HELPERS).some(([tool, helpers]) => words.includes(tool) && helpers.test(base));
}

function run(
  cmd: string,
  args: string[],
  timeoutMs: number,
): Promise<{ exitCode: number | null; timedOut: boolean }> {
  return new Promise((resolve) => {
    // Pipes, as an agent's tool runner gives: what a line prints is read and dropped.
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    child.stdin.end();
    child.stdout.resume();
    child.stderr.resume();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, timedOut });
    });
  });
}
