import fs from 'node:fs';
import path from 'node:path';
import type { OwnFile } from '../policy/own-files.js';
import { type SandboxError, sandboxError } from './error.js';
import { holdEntry, type ProtectedMounts } from './protected-mounts.js';
import { isInside } from './real-path.js';

/**
 * How the jail holds toolgate's own files (SandboxProfile.ownFiles: its policy files, the log's
 * directory, the signing key, the trust store's directory, its cache, the program) when they
 * lie inside a directory the command may write: exactly as a protected path (protected-mounts.ts),
 * walked with lstat from the writable root, bound read-only when it exists, an empty read-only
 * directory on its first missing component when it does not, a symbolic link on the way
 * refused. Outside the writable roots everything is read-only already.
 *
 * Fails closed where it cannot hold one: an own file that is, or holds, a writable root (a log
 * at the top of the workspace: toolgate renames its checkpoint and lock there while the call
 * runs, and only its directory could hold them) would have to make that root read-only.
 *
 * Adds to `out`; writable binds planned inside what it makes read-only (a nested repository's
 * `.git` under an own directory, a `.claude/worktrees`) are dropped, or they would open it again.
 */
export function holdOwnFiles(
  own: readonly OwnFile[],
  writable: readonly string[],
  out: ProtectedMounts,
): SandboxError | undefined {
  const seen = new Set([...out.pins, ...out.readOnly, ...out.ghosts]);
  const [readOnlyBefore, ghostsBefore] = [out.readOnly.length, out.ghosts.length];
  for (const file of own) {
    const p = path.resolve(file.path);
    if (!writable.some((root) => isInside(p, root) || isInside(root, p))) continue;
    // Held already, as a protected path (`.toolgate/policy.yaml` inside `.toolgate`).
    if ([...out.readOnly, ...out.ghosts].some((r) => isInside(p, r))) continue;
    const around = writable.find((root) => isInside(root, p));
    if (around !== undefined) {
      return sandboxError(
        'isolation-failed',
        `"${p}" is ${file.what}, toolgate's own, and ${around === p ? 'is' : 'holds'} the writable directory "${around}": the jail cannot keep it read-only and that directory writable, so the command did not run. Keep toolgate's files (a --log, its key, policy files) in .toolgate/ or outside the directories commands may write.`,
        p,
      );
    }
    const root = writable.filter((r) => isInside(p, r)).sort((a, b) => b.length - a.length)[0]!;
    const held = holdable(root, p, file);
    if (typeof held !== 'string') return held;
    const failed = holdEntry(
      root,
      path.relative(root, held),
      out,
      seen,
      true,
      `toolgate's own file "${p}" (${file.what})`,
    );
    if (failed) return failed;
  }
  const held = [...out.readOnly.slice(readOnlyBefore), ...out.ghosts.slice(ghostsBefore)];
  if (held.length > 0) {
    const opens = (dir: string) => held.some((h) => dir !== h && isInside(dir, h));
    out.pins = out.pins.filter((dir) => !opens(dir));
    out.worktrees = out.worktrees.filter((dir) => !opens(dir));
  }
  return undefined;
}

/**
 * What to hold for `p`: itself, or, when a symbolic link lies on the way (a bin link such as
 * `node_modules/.bin/toolgate`, which a mount cannot hold and a command could retarget), the
 * directory that holds the link, so that the link cannot be replaced. A link right below the
 * writable root would need the root itself held: refused, like a link on a protected path.
 */
function holdable(root: string, p: string, file: OwnFile): string | SandboxError {
  let current = root;
  for (const part of path.relative(root, p).split('/')) {
    const next = path.join(current, part);
    const stat = fs.lstatSync(next, { throwIfNoEntry: false });
    if (stat === undefined) return p;
    if (stat.isSymbolicLink()) {
      if (current !== root) return current;
      return sandboxError(
        'isolation-failed',
        `"${next}" is a symbolic link on the way to toolgate's own file "${p}" (${file.what}), right inside the writable directory "${root}": the jail cannot hold a link (the command could retarget it) without making that directory read-only, so the command did not run. Name the file by its real path, or keep it outside the directories commands may write.`,
        next,
      );
    }
    current = next;
  }
  return p;
}
