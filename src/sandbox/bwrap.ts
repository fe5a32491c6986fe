import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxProfile } from '../policy/obligations.js';
import { protectedNames } from './protected.js';
import { isInside, realPathOf } from './real-path.js';

/**
 * OS isolation on Linux with bubblewrap. The command sees:
 * - the whole filesystem read-only (`--ro-bind / /`), a fresh `/dev`, its own `/proc`, a private
 *   empty `/tmp`, and — without network — an empty `/run`, because Unix sockets there
 *   (docker.sock, D-Bus) are not cut off by a network namespace;
 * - the writable roots bound read-write;
 * - existing protected paths (at the top of the writable roots and the cwd) and existing
 *   write-denied paths inside the writable roots bound read-only over the read-write bind;
 * - existing paths the profile denies reading masked, last, so that no later bind can expose
 *   them again: an empty read-only tmpfs over a directory, `/dev/null` over a file (bwrap binds
 *   it `nodev`, so opening it fails with EACCES, which says "denied" more clearly than an empty
 *   file would);
 * - its own PID namespace (the whole tree dies with it), IPC namespace, no network namespace
 *   unless `profile.network`, no capabilities (even when toolgate runs as root), a new session
 *   (no TIOCSTI into the caller's terminal), and death when toolgate dies.
 *
 * Mounts take paths, not patterns: a glob with wildcards cannot be mounted, so only globs that
 * name a concrete path (`/home/u/.ssh`, `/home/u/.ssh/**`) are masked. The others are still
 * enforced by the path checks of the file tools and the Bash write targets; the plan's notes
 * say which ones the OS layer did not cover.
 */
export interface BwrapPlan {
  /** Arguments between `bwrap` and `--`. */
  args: string[];
  notes: string[];
}

export interface BwrapPlanInput {
  cwd: string;
  profile: Pick<SandboxProfile, 'writableRoots' | 'readableRoots' | 'readDeny' | 'writeDeny' | 'network'>;
}

const GLOB_MAGIC = /[*?[\]{}()!+@]/;

export function planBwrap({ cwd, profile }: BwrapPlanInput): BwrapPlan {
  const notes: string[] = [];
  if (profile.readableRoots.length > 0) {
    notes.push(
      'readableRoots are enforced by path checks only; the OS sandbox shows the whole filesystem read-only, minus masked paths',
    );
  }
  const writable = profile.writableRoots.map(realOrSelf);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  if (!profile.network) args.push('--tmpfs', '/run');

  const readMasks = concretePaths(profile.readDeny, 'readDeny', notes);
  // A mask that contains a writable root goes first, so the root's bind punches through it;
  // it becomes read-only only at the end, because bwrap creates the mount points inside it.
  const around = readMasks.filter((m) => writable.some((root) => isInside(root, m.path)));
  const inside = readMasks.filter((m) => !around.includes(m));
  for (const mask of around) args.push('--tmpfs', mask.path);

  for (const root of writable) args.push('--bind', root, root);
  // What the private /tmp (and /run) hid but the call must still see. Only paths *under* them:
  // binding an ancestor such as `/` again would bring the host's /tmp back.
  const hidden = profile.network ? ['/tmp'] : ['/tmp', '/run'];
  const visible = [...profile.readableRoots.map(realOrSelf), realOrSelf(cwd)];
  for (const dir of visible) {
    const wasHidden = hidden.some((h) => isInside(dir, h));
    if (wasHidden && !writable.some((root) => isInside(dir, root))) args.push('--ro-bind', dir, dir);
  }

  // Outside the writable roots everything is read-only already; no mount needed there.
  const writeDenied = concretePaths(profile.writeDeny, 'writeDeny', notes).filter((d) =>
    writable.some((root) => isInside(d.path, root) || isInside(root, d.path)),
  );
  const readOnly = [...writeDenied, ...protectedInside(writable, realOrSelf(cwd))];
  for (const entry of readOnly) args.push('--ro-bind', entry.path, entry.path);
  const worktrees = writable
    .map((root) => path.join(root, '.claude', 'worktrees'))
    .filter((p) => fs.existsSync(p) && readOnly.some((e) => e.path === path.dirname(p)));
  for (const dir of worktrees) args.push('--bind', dir, dir);

  for (const mask of inside) args.push(...maskArgs(mask));
  for (const mask of around) args.push('--remount-ro', mask.path);

  args.push('--unshare-pid', '--unshare-ipc');
  if (!profile.network) args.push('--unshare-net');
  args.push('--die-with-parent', '--new-session', '--cap-drop', 'ALL', '--chdir', cwd);
  return { args, notes };
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
  if (skipped.length > 0) {
    notes.push(
      `${field} patterns with wildcards are enforced by path checks only, not by the OS sandbox: ${skipped.join(', ')}`,
    );
  }
  return found;
}

/** Existing protected paths at the top of each writable root and of the cwd. */
function protectedInside(writable: readonly string[], cwd: string): Existing[] {
  const bases = new Set(writable);
  if (writable.some((root) => isInside(cwd, root))) bases.add(cwd);
  const found: Existing[] = [];
  for (const base of bases) {
    for (const name of protectedNames().anywhere) {
      const candidate = path.join(base, name);
      const stat = fs.lstatSync(candidate, { throwIfNoEntry: false });
      // A symlink is left alone: binding it would bind its target, which may be anywhere.
      if (stat && !stat.isSymbolicLink()) found.push({ path: candidate, isDirectory: stat.isDirectory() });
    }
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
  const binary = bwrapPath ?? findOnPath('bwrap');
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
  const args = [
    ...planBwrap({
      cwd: '/',
      profile: { writableRoots: [], readableRoots: [], readDeny: [], writeDeny: [], network: false },
    }).args,
    '--',
    'true',
  ];
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
