import fs from 'node:fs';
import { type SandboxError, sandboxError } from './error.js';
import { protectedNames } from './protected.js';

/**
 * How the jail holds protected paths (`.git/hooks`, `.mcp.json`, `.bashrc`, ...) inside the
 * directories a command may write, whether or not they exist when the jail is built:
 * - an existing entry is bound read-only onto itself; being a mount point, it can be neither
 *   written, removed nor renamed away;
 * - the directories on the way to one (`.git` for `.git/hooks`) are bound onto themselves,
 *   writable, only so that they cannot be renamed away and recreated without the mounts;
 * - the first missing component on the way gets an empty read-only directory mounted on it (a
 *   "ghost"): nothing can be created there, and being an empty directory it is invisible to git.
 *   bwrap creates its mount point on the host; the run removes it afterwards (ghosts.ts);
 * - a symbolic link on the way is refused: a link cannot be a mount point, so the command
 *   could replace it, and binding it would bind wherever it points (an earlier call may have
 *   planted it). The one exception is `.claude/worktrees`, which stays writable inside the
 *   read-only `.claude` only when it is a real directory; a link there is left read-only.
 *
 * Every path is walked with lstat from a base the caller trusts (a writable root or the cwd,
 * already resolved), so no link is followed anywhere in what is planned.
 */
export interface ProtectedMounts {
  ok: true;
  pins: string[];
  readOnly: string[];
  ghosts: string[];
  /** Real `.claude/worktrees` directories to bind writable again (by fd, see bwrap.ts). */
  worktrees: string[];
  notes: string[];
}

export interface ProtectedBase {
  dir: string;
  /** Every entry (a root or the cwd), or only those whose first segment exists here (nested). */
  names: 'all' | ReadonlySet<string>;
  /**
   * `HEAD`, `objects`, `refs` too: a writable root could be turned into a bare repository (whose
   * `config` git would obey). Existing ones are held; of the missing ones only `HEAD` gets a
   * ghost, because git does not take a directory whose HEAD is a directory for a repository,
   * and one empty directory in every `ls` is enough.
   */
  atRoot: boolean;
}

const WORKTREES = 'worktrees';

export function protectedMounts(bases: readonly ProtectedBase[]): ProtectedMounts | SandboxError {
  const out: ProtectedMounts = { ok: true, pins: [], readOnly: [], ghosts: [], worktrees: [], notes: [] };
  const seen = new Set<string>();
  const { anywhere, atRoot } = protectedNames();
  for (const base of bases) {
    const labels = [...anywhere, ...(base.atRoot ? atRoot : [])].filter(
      (label) => base.names === 'all' || base.names.has(label.split('/')[0]!),
    );
    for (const label of labels) {
      const failed = holdEntry(base.dir, label, out, seen, !atRoot.includes(label) || label === 'HEAD');
      if (failed) return failed;
    }
  }
  return out;
}

/**
 * Holds `label` (a path relative to `base`) as the comment at the top says; `what` names it in
 * the refusal (`the protected path ".git/hooks"`). Also used for toolgate's own files (own-mounts.ts).
 */
export function holdEntry(
  base: string,
  label: string,
  out: ProtectedMounts,
  seen: Set<string>,
  ghostIfMissing: boolean,
  what = `the protected path "${label}"`,
): SandboxError | undefined {
  const parts = label.split('/');
  let current = base;
  for (let i = 0; i < parts.length; i += 1) {
    const next = `${current === '/' ? '' : current}/${parts[i]}`;
    const last = i === parts.length - 1;
    const stat = fs.lstatSync(next, { throwIfNoEntry: false });
    if (stat === undefined) {
      if (ghostIfMissing) add(out.ghosts, next, seen);
      return undefined;
    }
    if (stat.isSymbolicLink()) {
      return sandboxError(
        'isolation-failed',
        `"${next}" is a symbolic link where ${what} lives; the jail cannot hold a link read-only (the command could replace it) and will not follow it, so the command did not run. Replace the link with the file or directory itself, outside the agent.`,
        next,
      );
    }
    if (last || !stat.isDirectory()) {
      // A file where a directory is expected (a `.git` file of a worktree) is held too: nothing
      // can be created below it, and it cannot be swapped for a directory that has hooks.
      add(out.readOnly, next, seen);
      if (last && label === '.claude' && stat.isDirectory()) holdWorktrees(next, out);
      return undefined;
    }
    add(out.pins, next, seen);
    current = next;
  }
  return undefined;
}

function holdWorktrees(claudeDir: string, out: ProtectedMounts): void {
  const dir = `${claudeDir}/${WORKTREES}`;
  const stat = fs.lstatSync(dir, { throwIfNoEntry: false });
  if (stat?.isDirectory()) out.worktrees.push(dir);
  else if (stat?.isSymbolicLink()) {
    out.notes.push(`"${dir}" is a symbolic link; it stays read-only inside the jail and is not followed.`);
  }
}

function add(list: string[], p: string, seen: Set<string>): void {
  if (seen.has(p)) return;
  seen.add(p);
  list.push(p);
}
