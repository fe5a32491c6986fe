import path from 'node:path';
import { buildSync } from 'esbuild';

/**
 * Bundles a TypeScript entry point and everything it imports into one plain .mjs file in `dir`.
 * A child that runs as another user (nobody) cannot be expected to read the checkout: a clone
 * in a private directory (mktemp -d, mode 700) is the common case, so such a child must not
 * import tsx or sources from it. It runs this file, placed where that user can read it.
 */
export function bundleInto(entry: string, dir: string): string {
  const outfile = path.join(dir, `${path.basename(entry, path.extname(entry))}.mjs`);
  buildSync({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
    // Bundled CommonJS dependencies call require(); give the ESM file one.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  return outfile;
}
