import fs from 'node:fs';
import type { PathPattern } from '../policy/match/path.js';
import { type SandboxError, sandboxError } from './error.js';

/**
 * One bounded walk of the directories a jailed command can write (and its cwd), done just
 * before the jail is built, because a mount needs a concrete path and the tree may have
 * changed since the last call. It finds:
 * - nested places where a protected entry starts (a `sub/.git`, a `pkg/.vscode`): the jail
 *   holds those read-only as it does the ones at the top;
 * - every path a read-deny glob matches (`/**\/.env`): the jail masks each one, so what the
 *   command's children open is denied too, not only what a file tool reads.
 *
 * The walk does not follow symlinks (a link is judged where it is, and masked if it matches)
 * and does not enter `.git` (git's own objects) or `node_modules` (installed packages: tools
 * do not load project configuration from inside them, and holding their dotfiles read-only
 * would break `npm install`). A tree larger than the limit fails closed: a jail that could
 * not look everywhere is not built.
 */
export const MAX_SCAN_ENTRIES = 200_000;

const SKIPPED = new Set(['.git', 'node_modules']);

export interface ScanResult {
  ok: true;
  /** Directories (below the roots) holding a name in `firstSegments`, with the names found. */
  nested: Map<string, Set<string>>;
  /** Paths a read-deny glob matches. */
  readDenied: { path: string; isDirectory: boolean }[];
  /** Directory entries looked at (for the bench and the limit). */
  entries: number;
}

export interface ScanInput {
  roots: readonly string[];
  firstSegments: ReadonlySet<string>;
  readDeny: readonly PathPattern[];
  maxEntries?: number;
}

export function scanTree(input: ScanInput): ScanResult | SandboxError {
  const max = input.maxEntries ?? MAX_SCAN_ENTRIES;
  const result: ScanResult = { ok: true, nested: new Map(), readDenied: [], entries: 0 };
  const seen = new Set<string>();
  const pending = [...new Set(input.roots)];
  const roots = new Set(pending);
  while (pending.length > 0) {
    const dir = pending.pop()!;
    if (seen.has(dir)) continue;
    seen.add(dir);
    let children: fs.Dirent[];
    try {
      children = fs.readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // Gone since it was listed: nothing there to hold or mask.
      if (code === 'ENOENT' || code === 'ENOTDIR') continue;
      return sandboxError(
        'isolation-failed',
        `The jail could not look inside "${dir}" (${code ?? 'error'}) for protected or read-denied paths, so it was not built; the command did not run.`,
        dir,
      );
    }
    result.entries += children.length;
    if (result.entries > max) {
      return sandboxError(
        'isolation-failed',
        `The writable directories hold more than ${max} entries, too many to check for protected and read-denied paths before every call; the jail was not built and the command did not run. Narrow the writable directories (sandbox.writeAllow) or run from a smaller directory.`,
      );
    }
    for (const child of children) {
      const full = dir === '/' ? `/${child.name}` : `${dir}/${child.name}`;
      if (!roots.has(dir) && input.firstSegments.has(child.name)) {
        const names = result.nested.get(dir) ?? new Set<string>();
        names.add(child.name);
        result.nested.set(dir, names);
      }
      const isDirectory = child.isDirectory();
      if (input.readDeny.some((p) => p.matches(full))) {
        result.readDenied.push({ path: full, isDirectory });
        continue;
      }
      if (isDirectory && !SKIPPED.has(child.name)) pending.push(full);
    }
  }
  return result;
}
