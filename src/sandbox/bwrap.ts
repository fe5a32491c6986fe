import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { compileAbsolutePathGlob } from '../policy/match/path.js';
import type { SandboxProfile } from '../policy/obligations.js';
import { describeThrown, type SandboxError, sandboxError } from './error.js';
import { holdOwnFiles } from './own-mounts.js';
import { protectedNames } from './protected.js';
import { type ProtectedBase, protectedMounts } from './protected-mounts.js';
import { isInside, realPathOf } from './real-path.js';
import { scanTree } from './scan.js';

/**
 * OS isolation on Linux with bubblewrap. The command sees:
 * - the whole filesystem read-only (`--ro-bind / /`), a fresh `/dev`, its own `/proc`, a private
 *   empty `/tmp`, and — without network — an empty `/run`, because Unix sockets there
 *   (docker.sock, D-Bus) are not cut off by a network namespace;
 * - the writable roots bound read-write;
 * - existing protected paths (at the top of the writable roots and the cwd) and existing
 *   write-denied paths inside the writable roots bound read-only over the read-write bind, and
 *   toolgate's own files there too (own-mounts.ts);
 * - existing paths the profile denies reading masked, last, so that no later bind can expose
 *   them again: an empty read-only tmpfs over a directory, `/dev/null` over a file (bwrap binds
 *   it `nodev`, so opening it fails with EACCES, which says "denied" more clearly than an empty
 *   file would);
 * - its own PID namespace (the whole tree dies with it), IPC namespace, no network namespace
 *   unless `profile.network`, no capabilities (even when toolgate runs as root), a new session
 *   (no TIOCSTI into the caller's terminal; see `inNewSession`), and death when toolgate dies.
 *
 * Mounts take paths, not patterns: a glob with wildcards cannot be mounted, so only globs that
 * name a concrete path (`/home/u/.ssh`, `/home/u/.ssh/**`) are masked. The others are still
 * enforced by the path checks of the file tools and the Bash write targets; the plan's notes
 * say which ones the OS layer did not cover.
 */
export interface BwrapPlan {
  ok: true;
  /** Arguments between `bwrap` and `--`. */
  args: string[];
  notes: string[];
  /**
   * Open directory descriptors bwrap binds by number (`--bind-fd`); they must be passed to it
   * as fds 3, 4, ... in this order, and closed with `close()` once it has started.
   */
  fds: number[];
  /** Mount points bwrap creates on the host for protected paths that did not exist. */
  ghosts: string[];
  /** Every protected mount point the jail relies on (ghosts included). */
  mountPoints: string[];
  /** Directory entries the scan of the writable roots looked at. */
  scanned: number;
  close(): void;
}

export interface BwrapPlanInput {
  cwd: string;
  profile: Pick<
    SandboxProfile,
    'writableRoots' | 'readableRoots' | 'readDeny' | 'writeDeny' | 'network' | 'workspaceRoots' | 'ownFiles'
  >;
  /** The scan's limit (tests use a small one). */
  maxScanEntries?: number;
  /**
   * The caller starts bwrap as the leader of a new session (setsid, as run.ts's detached
   * spawn does), which has no controlling terminal: then bwrap's own `--new-session` is left
   * out. The jail then has no terminal to push input into either way (TIOCSTI needs the
   * caller's controlling terminal or CAP_SYS_ADMIN), and a second new session costs a second
   * scheduler autogroup: measured 20.8 -> 30.0 ms a bwrap run at load 11 on 2 cores.
   */
  inNewSession?: boolean;
}

const GLOB_MAGIC = /[*?[\]{}()!+@]/;

export function planBwrap(input: BwrapPlanInput): BwrapPlan | SandboxError {
  const fds: number[] = [];
  try {
    return plan(input, fds);
  } catch (err) {
    for (const fd of fds) fs.closeSync(fd);
    return sandboxError('isolation-failed', `The jail could not be planned: ${describeThrown(err)}`);
  }
}

function plan(
  { cwd, profile, maxScanEntries, inNewSession }: BwrapPlanInput,
  fds: number[],
): BwrapPlan | SandboxError {
  const notes: string[] = [];
  if (profile.readableRoots.length > 0) {
    notes.push(
      'readableRoots are enforced by path checks only; the OS sandbox shows the whole filesystem read-only, minus masked paths',
    );
  }
  const writable = profile.writableRoots.map(realOrSelf);
  const linked = linkedRoot(profile.writableRoots, writable);
  if (linked) return linked;
  const realCwd = realOrSelf(cwd);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  if (!profile.network) args.push('--tmpfs', '/run');

  const readMasks = concretePaths(profile.readDeny, 'readDeny', notes);
  const readGlobs = profile.readDeny.filter((g) => GLOB_MAGIC.test(g.endsWith('/**') ? g.slice(0, -3) : g));
  const cwdWritable = writable.some((root) => isInside(realCwd, root));
  // The writable roots, the workspace (a read-only jail has a workspace too) and the cwd.
  const scanRoots: string[] = [];
  for (const dir of [...writable, ...(profile.workspaceRoots ?? []).map(realOrSelf), realCwd]) {
    if (!scanRoots.some((root) => isInside(dir, root))) scanRoots.push(dir);
  }
  // Nothing to look for without writable roots or wildcard read denials: a read-only jail of a
  // big tree costs no walk.
  const scan =
    writable.length > 0 || readGlobs.length > 0
      ? scanTree({
          roots: scanRoots.filter((r) => r !== '/'),
          firstSegments: FIRST_SEGMENTS,
          readDeny: readGlobs.map(compileAbsolutePathGlob),
          maxEntries: maxScanEntries,
        })
      : { ok: true as const, nested: new Map<string, Set<string>>(), readDenied: [], entries: 0 };
  if (!scan.ok) return scan;
  if (readGlobs.length > 0) {
    notes.push(
      `readDeny patterns with wildcards are masked inside ${scanRoots.join(', ')} only; elsewhere path checks enforce them: ${readGlobs.join(', ')}`,
    );
  }
  readMasks.push(...scan.readDenied);
  // A mask that contains a writable root goes first, so the root's bind punches through it;
  // it becomes read-only only at the end, because bwrap creates the mount points inside it.
  const around = readMasks.filter((m) => writable.some((root) => isInside(root, m.path)));
  const inside = readMasks.filter((m) => !around.includes(m));
  for (const mask of around) args.push('--tmpfs', mask.path);

  for (const root of writable) args.push('--bind', root, root);
  // What the private /tmp (and /run) hid but the call must still see. Only paths *under* them:
  // binding an ancestor such as `/` again would bring the host's /tmp back.
  const hidden = profile.network ? ['/tmp'] : ['/tmp', '/run'];
  const visible = [...profile.readableRoots.map(realOrSelf), realCwd];
  for (const dir of visible) {
    const wasHidden = hidden.some((h) => isInside(dir, h));
    if (wasHidden && !writable.some((root) => isInside(dir, root))) args.push('--ro-bind', dir, dir);
  }

  // Outside the writable roots everything is read-only already; no mount needed there.
  const writeDenied = concretePaths(profile.writeDeny, 'writeDeny', notes).filter((d) =>
    writable.some((root) => isInside(d.path, root) || isInside(root, d.path)),
  );
  const bases: ProtectedBase[] = writable
    .filter((root) => root !== '/')
    .map((dir) => ({ dir, names: 'all' as const, atRoot: true }));
  if (cwdWritable && !writable.includes(realCwd)) bases.push({ dir: realCwd, names: 'all', atRoot: false });
  for (const [dir, names] of scan.nested) bases.push({ dir, names, atRoot: false });
  const held = protectedMounts(bases);
  if (!held.ok) return held;
  const own = holdOwnFiles(profile.ownFiles ?? [], writable, held);
  if (own) return own;
  notes.push(...held.notes);

  // Parents before what is inside them: a later bind of a parent would hide an earlier one.
  const mounts: { path: string; args: (p: string) => string[] }[] = [
    ...held.pins.map((p) => ({ path: p, args: (q: string) => ['--bind', q, q] })),
    ...[...writeDenied.map((d) => d.path), ...held.readOnly].map((p) => ({
      path: p,
      args: (q: string) => ['--ro-bind', q, q],
    })),
    ...held.ghosts.map((p) => ({ path: p, args: (q: string) => ['--tmpfs', q, '--remount-ro', q] })),
  ];
  mounts.sort((a, b) => depth(a.path) - depth(b.path));
  for (const m of mounts) args.push(...m.args(m.path));
  for (const dir of held.worktrees) {
    const fd = openPinned(dir);
    if (fd === undefined) {
      notes.push(`"${dir}" changed while the jail was planned; it stays read-only.`);
      continue;
    }
    args.push('--bind-fd', String(3 + fds.length), dir);
    fds.push(fd);
  }

  for (const mask of inside) args.push(...maskArgs(mask));
  for (const mask of around) args.push('--remount-ro', mask.path);

  args.push('--unshare-pid', '--unshare-ipc');
  if (!profile.network) args.push('--unshare-net');
  args.push(
    '--die-with-parent',
    ...(inNewSession ? [] : ['--new-session']),
    '--cap-drop',
    'ALL',
    '--chdir',
    cwd,
  );
  const mountPoints = [...held.pins, ...held.readOnly, ...held.ghosts, ...held.worktrees];
  let closed = false;
  return {
    ok: true,
    args,
    notes,
    fds,
    ghosts: held.ghosts,
    mountPoints,
    scanned: scan.entries,
    close() {
      if (closed) return;
      closed = true;
      for (const fd of fds) fs.closeSync(fd);
    },
  };
}

/** The first segment of every protected entry: where the scan looks for nested ones. */
const FIRST_SEGMENTS: ReadonlySet<string> = new Set(protectedNames().anywhere.map((l) => l.split('/')[0]!));

function depth(p: string): number {
  return p.split('/').length;
}

/**
 * A writable root reached through a symlink that lies inside another writable root was
 * redirected by something a command could write (an earlier call may have planted it):
 * binding it would make wherever it points writable.
 */
function linkedRoot(literal: readonly string[], real: readonly string[]): SandboxError | undefined {
  for (const [i, root] of literal.entries()) {
    if (real[i] === root) continue;
    let current = '';
    for (const part of root.split('/').filter(Boolean)) {
      current += `/${part}`;
      const stat = fs.lstatSync(current, { throwIfNoEntry: false });
      if (stat?.isSymbolicLink() && real.some((other, j) => j !== i && isInside(current, other))) {
        return sandboxError(
          'isolation-failed',
          `The writable directory "${root}" is reached through the symbolic link "${current}", which lies inside another writable directory; the jail will not follow it, so the command did not run.`,
          root,
        );
      }
    }
  }
  return undefined;
}

/**
 * Opens a directory planned by path, refusing a link, and checks the descriptor is that
 * directory: bwrap then binds what was checked, whatever the path points at a moment later.
 */
function openPinned(dir: string): number | undefined {
  let fd: number;
  try {
    fd = fs.openSync(dir, fs.constants.O_RDONLY | fs.constants.O_DIRECTORY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  let where: string | undefined;
  try {
    where = fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    where = undefined;
  }
  if (where !== dir) {
    fs.closeSync(fd);
    return undefined;
  }
  return fd;
}

interface Existing {
  path: string;
  isDirectory: boolean;
}

function maskArgs(mask: Existing): string[] {
  return mask.isDirectory
    ? ['--tmpfs', mask.path, '--remount-ro', mask.path]
    : ['--ro-bind', '/dev/null', mask.path];
}

/** The globs that name one concrete path (optionally with `/**`), resolved, when they exist. */
function concretePaths(globs: readonly string[], field: string, notes: string[]): Existing[] {
  const found: Existing[] = [];
  const skipped: string[] = [];
  for (const glob of globs) {
    const base = glob.endsWith('/**') ? glob.slice(0, -3) || '/' : glob;
    if (GLOB_MAGIC.test(base)) {
      skipped.push(glob);
      continue;
    }
    const real = realPathOf(base);
    if (!real.ok || real.stat === undefined || real.real === '/') continue;
    found.push({ path: real.real, isDirectory: real.stat.isDirectory() });
  }
  if (skipped.length > 0 && field === 'writeDeny') {
    notes.push(
      `${field} patterns with wildcards are enforced by path checks only, not by the OS sandbox: ${skipped.join(', ')}`,
    );
  }
  return found;
}

function realOrSelf(p: string): string {
  const real = realPathOf(p);
  return real.ok ? real.real : p;
}

export interface BwrapProbe {
  available: boolean;
  /** The binary that was probed (absolute), when one was found. */
  path?: string;
  /** Why it is not available. */
  reason?: string;
}

const probes = new Map<string, Promise<BwrapProbe>>();

/**
 * Whether bubblewrap works here, found by running it with the flags a real call uses (a binary
 * that exists but cannot create namespaces is not "available"). Cached per binary.
 */
export function probeBwrap(bwrapPath?: string): Promise<BwrapProbe> {
  const binary = bwrapPath ?? bwrapOnPath();
  if (binary === undefined)
    return Promise.resolve({ available: false, reason: 'bwrap was not found on PATH' });
  let probe = probes.get(binary);
  if (!probe) {
    probe = runProbe(binary);
    probes.set(binary, probe);
  }
  return probe;
}

function runProbe(binary: string): Promise<BwrapProbe> {
  const planned = planBwrap({
    cwd: '/',
    profile: { writableRoots: [], readableRoots: [], readDeny: [], writeDeny: [], network: false },
  });
  if (!planned.ok) return Promise.resolve({ available: false, path: binary, reason: planned.message });
  planned.close();
  const args = [...planned.args, '--', 'true'];
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 5000 });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 2000) stderr += chunk.toString('utf8');
    });
    child.once('error', (err) =>
      resolve({ available: false, path: binary, reason: `${binary}: ${err.message}` }),
    );
    child.once('close', (code, signal) => {
      if (code === 0) resolve({ available: true, path: binary });
      else {
        const why = stderr.trim() || (signal ? `killed by ${signal}` : `exit code ${code}`);
        resolve({ available: false, path: binary, reason: `${binary} does not work here: ${why}` });
      }
    });
  });
}

/**
 * `bwrap` on PATH, once found looked up again only when PATH changes (the lookup cost ~0.2 ms
 * of every call). Not found is not remembered: one installed later is found on the next call.
 */
let onPath: { path: string; found: string } | undefined;

function bwrapOnPath(): string | undefined {
  const current = process.env.PATH ?? '';
  if (onPath?.path === current) return onPath.found;
  const found = findOnPath('bwrap');
  onPath = found === undefined ? undefined : { path: current, found };
  return found;
}

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
