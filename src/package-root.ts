import fs from 'node:fs';
import path from 'node:path';

/**
 * The directory of toolgate's package.json, found by walking up from this module: the same
 * answer from src/ (tests), dist/ (the library) and the bundled CLI's chunks.
 */
let root: string | undefined;

export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = import.meta.dirname;
  for (;;) {
    const candidate = path.join(dir, 'package.json');
    try {
      const pkg = JSON.parse(fs.readFileSync(candidate, 'utf8')) as { name?: string };
      if (pkg.name === 'toolgate') {
        root = dir;
        return dir;
      }
    } catch {
      // keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('toolgate: cannot find its own package.json');
    dir = parent;
  }
}
