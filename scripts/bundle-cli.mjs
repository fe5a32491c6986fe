// Bundles the `toolgate` command into a few minified files: a hook starts in a fresh process
// for every tool call, and loading ~100 separate modules costs more than the decision itself.
// The library (dist/index.js) stays unbundled; this only replaces dist/cli/main.js.
import { build } from 'esbuild';

await build({
  entryPoints: { main: 'src/cli/main.ts' },
  outdir: 'dist/cli',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  sourcemap: true,
  logLevel: 'warning',
  // Native addons and the large SDKs load only when a command needs them.
  external: [
    'tree-sitter',
    'tree-sitter-bash',
    'isolated-vm',
    '@anthropic-ai/sdk',
    '@modelcontextprotocol/sdk',
    'esbuild',
  ],
  // CommonJS dependencies call require(); give every output file one.
  banner: {
    js: "import { createRequire as __toolgateRequire } from 'node:module'; const require = __toolgateRequire(import.meta.url);",
  },
});
