import path from 'node:path';
import type { BashPart } from './bash-parts.js';
import { type OwnFile, ownFileAt, ownFileWithin } from './own-files.js';
import { protectedEntryOf, protectedLinkTargetOf } from './protected.js';

/**
 * Checks that no allow rule, hook or mode lifts (bypass included), by what a command does, not
 * its name: deleting `/`, a top-level directory, the home directory, or the workspace root and
 * its parents (`rm -rf /`, `find ~ -delete`, `rsync --delete e/ /`, `mv ~ x`, `unlink /home`);
 * deleting a tree only known at run time (`rm -rf "$X"`, `fd -X rm -rf`); overwriting a disk
 * (`dd of=/dev/sda`, `mkfs /dev/sda`, `> /dev/nvme0n1`). Claude Code calls the first critical
 * paths; it asks, and so does toolgate (dontAsk turns that into deny; a policy may say deny).
 */
export function criticalRemoval(
  part: BashPart,
  home: string,
  workspaceRoot: string,
  realpath: (p: string) => string,
): string | undefined {
  for (const target of part.removes) {
    if (target.paths === undefined) {
      if (target.tree)
        return `${part.display} deletes "${target.raw}", a location only known at run time, with everything below it`;
      continue;
    }
    // Through symlinks too: deleting the real directory behind a linked workspace is just as bad.
    const roots = [...new Set([workspaceRoot, realpath(workspaceRoot)])];
    const homes = [...new Set([home, realpath(home)])];
    for (const p of target.paths) {
      for (const candidate of new Set([path.resolve(p), realpath(path.resolve(p))])) {
        for (const root of roots) {
          for (const h of homes) {
            const why = criticalReason(candidate, h, root);
            if (why) return `${part.display} would delete ${why}`;
          }
        }
      }
    }
  }
  for (const w of part.writes) {
    if (w.how !== 'overwrite' && w.how !== 'modify') continue;
    for (const p of w.paths ?? []) {
      for (const candidate of new Set([path.resolve(p), realpath(path.resolve(p))])) {
        if (isDisk(candidate)) return `${part.display} would overwrite the device ${candidate}`;
      }
    }
  }
  return undefined;
}

/**
 * Device files whose writing destroys no data: the sinks and sources, terminals, and the
 * directories of descriptors, pseudo-terminals, shared memory and message queues. Every other
 * name under /dev is taken for a disk (sda, nvme0n1, mmcblk0, dm-0, mapper/x, disk/by-id/x,
 * mem): fail closed on names this list does not know.
 */
const HARMLESS_DEVICE =
  /^\/dev\/(null|zero|full|random|urandom|tty\d*|ttyS\d+|pts\/.*|ptmx|console|stdin|stdout|stderr|fd\/.*|shm\/.*|mqueue\/.*)$/;

function isDisk(p: string): boolean {
  return p.startsWith('/dev/') && !HARMLESS_DEVICE.test(p);
}

function criticalReason(p: string, home: string, root: string): string | undefined {
  if (p === '/') return 'the root directory';
  if (path.dirname(p) === '/') return `the top-level directory ${p}`;
  if (p === home) return `the home directory ${p}`;
  if (p === root) return `the workspace root ${p}`;
  if (root.startsWith(`${p}/`)) return `${p}, which contains the workspace`;
  return undefined;
}

/** Why a write is protected: the entry or own file it touches, and what writing there would do. */
export interface Protection {
  /** `.git/hooks`, `.claude`, or an own file's description ("the decision log"). */
  readonly label: string;
  readonly why: string;
}

const RUNS_LATER = 'writing it can make code run later';
const OWN = "it is toolgate's own: changing it would change or switch off the guard, or rewrite its record";

/**
 * The protection a write (or, with `removal`, a deletion or a move away) would break, if any:
 * a protected entry (`.git/hooks`, `.bashrc`, `.claude`, ...) by the path as written or where
 * its symlinks lead (`hooks -> .git/hooks` makes `hooks/pre-commit` a hook), as the sandbox
 * checks it; or one of toolgate's own files (own-files.ts), which a deletion of the directory
 * holding it also takes along.
 */
export function protectedWrite(
  absolutePath: string,
  roots: readonly string[],
  realpath: (p: string) => string,
  own: readonly OwnFile[] = [],
  removal = false,
): Protection | undefined {
  const entry = protectedEntryOf(absolutePath, roots) ?? protectedEntryOf(realpath(absolutePath), roots);
  if (entry !== undefined) return { label: entry, why: RUNS_LATER };
  if (own.length === 0) return undefined;
  for (const p of new Set([absolutePath, realpath(absolutePath)])) {
    const hit = ownFileAt(p, own) ?? (removal ? ownFileWithin(p, own) : undefined);
    if (hit !== undefined) return { label: `${hit.what} ${hit.path}`, why: OWN };
  }
  return undefined;
}

/**
 * The protected entry a link to `absolutePath` would expose under a new name (see
 * protectedLinkTargetOf), by the path as written or where its symlinks lead.
 */
export function protectedAlias(
  absolutePath: string,
  roots: readonly string[],
  realpath: (p: string) => string,
): string | undefined {
  return protectedLinkTargetOf(absolutePath, roots) ?? protectedLinkTargetOf(realpath(absolutePath), roots);
}
