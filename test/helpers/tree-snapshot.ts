import fs from 'node:fs';
import path from 'node:path';

/**
 * Every entry under `dir` by relative path: links by their target, directories as `dir`, files
 * by their bytes (latin1, so any content round-trips). Two snapshots are equal exactly when a
 * command left the tree as it found it.
 */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const rel = path.relative(dir, p);
      if (e.isSymbolicLink()) out[rel] = `link:${fs.readlinkSync(p)}`;
      else if (e.isDirectory()) {
        out[rel] = 'dir';
        walk(p);
      } else out[rel] = `file:${fs.readFileSync(p, 'latin1')}`;
    }
  };
  walk(dir);
  return out;
}
