import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * The file walk under Glob and Grep's JavaScript search. Symbolic links are never followed
 * (neither files nor directories), so a walk cannot leave the tree it was asked about or loop;
 * version-control metadata and node_modules are skipped unless the walk starts inside them.
 * Bounded by an entry count, and stops when the call is aborted.
 */
export const SKIPPED_DIRECTORIES = new Set(['.git', '.hg', '.svn', 'node_modules']);
export const MAX_WALK_ENTRIES = 200_000;

export interface WalkedFile {
  /** Absolute path. */
  path: string;
  /** Relative to the walk's root, with `/` separators. */
  rel: string;
}

export interface Walk {
  files: WalkedFile[];
  /** The entry limit was reached; there may be more. */
  truncated: boolean;
}

export async function walkFiles(
  root: string,
  signal: AbortSignal,
  maxEntries = MAX_WALK_ENTRIES,
): Promise<Walk> {
  const files: WalkedFile[] = [];
  const pending: string[] = [''];
  let seen = 0;
  while (pending.length > 0) {
    if (signal.aborted) throw new Error('the search was aborted');
    const rel = pending.pop()!;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue; // unreadable directories are skipped, as ripgrep does
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    for (const entry of entries) {
      if (++seen > maxEntries) return { files, truncated: true };
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED_DIRECTORIES.has(entry.name)) pending.push(childRel);
      } else if (entry.isFile()) {
        files.push({ path: path.join(root, childRel), rel: childRel });
      }
    }
  }
  return { files, truncated: false };
}
