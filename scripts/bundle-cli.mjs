// Bundles the `toolgate` command: dist/cli holds nothing but these files (the library, dist/index.js
// and the rest of dist/, stays unbundled).
//   main.js          the command (CommonJS: dist/cli/package.json says so), small: it runs
//                    `toolgate hook` from hook.cjs and every other command from toolgate.mjs
//   toolgate.mjs     the other commands, split into chunks/ that load as each command needs them
//   hook.cjs         `toolgate hook` alone, with hook-bash.cjs, hook-zod.cjs and hook-yaml.cjs
//                    beside it
//   exec.cjs         `toolgate exec` alone, sharing those three
// A hook starts in a fresh process for every tool call. main.js loads hook.cjs through vm.Script
// with V8's code cache (Node 20 caches no ES module code, and an ES module entry alone costs a
// hook several milliseconds), so a hook process compiles almost nothing. zod and the YAML parser
// are files of their own, loaded only by calls that parse a policy or write a decision log: V8
// reads every function of a script from the cache, whether it runs or not.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { lazyExports } from './lazy-exports.mjs';

const common = {
  bundle: true,
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
    '@opentelemetry/*',
    'esbuild',
  ],
};
/**
 * In the CommonJS bundles, `import fs from 'node:fs'` in our sources becomes a plain
 * `const fs = require('node:fs')`: esbuild would wrap the module in __toESM, which copies every
 * property of it, once per importing file (~1.5 ms of a hook process's start-up).
 */
const plainBuiltinImports = (text) =>
  text.replace(/^import (\w+) from '(node:[\w/]+)';$/gm, "const $1 = require('$2');");
const plainBuiltins = {
  name: 'plain-builtins',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, async (args) => ({
      loader: 'ts',
      contents: plainBuiltinImports(await fs.promises.readFile(args.path, 'utf8')),
    }));
  },
};

// Bundled modules find themselves by import.meta.dirname and .filename: in CommonJS output,
// __dirname and __filename. (Not import.meta.url: a file URL costs a hook process node's URL
// machinery, ~0.5 ms; the build fails on one rather than leave it undefined.)
const commonjs = {
  format: 'cjs',
  // import() of a package becomes require(): vm.Script has no dynamic import with a code cache.
  supported: { 'dynamic-import': false },
  define: { 'import.meta.dirname': '__dirname', 'import.meta.filename': '__filename' },
  logOverride: { 'empty-import-meta': 'error' },
  plugins: [plainBuiltins],
};
/** Resolves an import to a file of its own, beside the output, that is loaded at run time. */
const beside = (filter, to) => ({
  name: 'beside',
  setup(b) {
    b.onResolve({ filter }, (args) => ({ path: to(args.path), external: true }));
  },
});

// What tsc put in dist/cli and the last build's chunks (their names carry content hashes).
fs.rmSync('dist/cli', { recursive: true, force: true });
fs.mkdirSync('dist/cli', { recursive: true });
fs.writeFileSync('dist/cli/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);

await build({
  ...common,
  ...commonjs,
  // main.js runs as a plain CommonJS module, and toolgate.mjs is an ES module.
  supported: {},
  entryPoints: ['src/cli/main.ts'],
  outfile: 'dist/cli/main.js',
  plugins: [beside(/^\.\/toolgate\.js$/, () => './toolgate.mjs'), plainBuiltins],
});

await build({
  ...common,
  entryPoints: { toolgate: 'src/cli/toolgate.ts' },
  outdir: 'dist/cli',
  entryNames: '[name]',
  chunkNames: 'chunks/[name]-[hash]',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  format: 'esm',
  // CommonJS dependencies call require(); give every ES module output one.
  banner: {
    js: "import { createRequire as __toolgateRequire } from 'node:module'; const require = __toolgateRequire(import.meta.url);",
  },
});

/**
 * The Bash classifier for the hook, apart in hook-bash.cjs: only Bash calls load it. Its exports
 * are all functions, so the hook bundle reaches them through wrappers (lazyBash below) that
 * require the bundle on first call. tree-sitter's JavaScript rides in it too, with
 * node-gyp-build, under the code cache: loaded from node_modules they cost a Bash call ~3 ms to
 * resolve, read and compile. The one line of tree-sitter that finds its addon from `__dirname`
 * is pointed at the package's directory.
 */
const TREE_SITTER_ADDON = `const binding = typeof process.versions.bun === "string" ?
    // Statically analyzable enough for \`bun build --compile\` to embed the tree-sitter.node napi addon
    require(\`./prebuilds/\${process.platform}-\${process.arch}/tree-sitter.node\`) :
    require('node-gyp-build')(__dirname);`;
const GRAMMAR_REQUIRE = '  const require = createRequire(import.meta.filename);\n';
const treeSitterAddon = {
  name: 'tree-sitter-addon',
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/]bash[\\/]grammar\.ts$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes(GRAMMAR_REQUIRE))
        throw new Error(`${args.path}: no "${GRAMMAR_REQUIRE.trim()}" to drop`);
      return { loader: 'ts', contents: plainBuiltinImports(text.replace(GRAMMAR_REQUIRE, '')) };
    });
    // Both addons (tree-sitter's, from the line above; the grammar's, from grammar.ts) through
    // src/cache/addons.ts: found once, then loaded from the path it remembers.
    b.onResolve({ filter: /^node-gyp-build$/ }, () => ({ path: 'addons', namespace: 'toolgate-addons' }));
    b.onLoad({ filter: /.*/, namespace: 'toolgate-addons' }, () => ({
      loader: 'js',
      resolveDir: process.cwd(),
      contents: [
        "const { addonLoader } = require('./src/cache/addons.ts');",
        "module.exports = addonLoader((dir) => require('node-gyp-build/node-gyp-build.js').resolve(dir));",
      ].join('\n'),
    }));
    b.onLoad({ filter: /[\\/]node_modules[\\/]tree-sitter[\\/]index\.js$/ }, async (args) => {
      const text = await fs.promises.readFile(args.path, 'utf8');
      if (!text.includes(TREE_SITTER_ADDON))
        throw new Error(`${args.path} no longer finds its addon as this build expects: see treeSitterAddon`);
      return {
        loader: 'js',
        contents: text.replace(
          TREE_SITTER_ADDON,
          "const binding = require('node-gyp-build')(require('node:path').dirname(require.resolve('tree-sitter/package.json')));",
        ),
      };
    });
  },
};
await build({
  ...common,
  ...commonjs,
  external: [...common.external.filter((name) => name !== 'tree-sitter'), 'tree-sitter/package.json'],
  // (before plainBuiltins, which would answer for grammar.ts first)
  plugins: [treeSitterAddon, ...commonjs.plugins],
  entryPoints: ['src/cli/hook-bash.ts'],
  outfile: 'dist/cli/hook-bash.cjs',
});
// The export names, as an ES module build lists them (a CommonJS one lists none).
const { metafile } = await build({
  ...common,
  entryPoints: ['src/cli/hook-bash.ts'],
  outfile: 'hook-bash.mjs',
  format: 'esm',
  write: false,
  metafile: true,
});
const bashExports = Object.values(metafile.outputs).find((o) => o.entryPoint)?.exports ?? [];
if (bashExports.length === 0) throw new Error('hook-bash.cjs exports nothing');
// Checked against the bundle as built: only functions can be stubbed (see lazy-exports.mjs).
const lazyBashModule = lazyExports(
  bashExports,
  createRequire(import.meta.url)(path.resolve('dist/cli/hook-bash.cjs')),
);
const lazyBash = {
  name: 'lazy-bash',
  setup(b) {
    b.onResolve({ filter: /^\.\/hook-bash\.cjs$/ }, (args) => ({ path: args.path, external: true }));
    b.onResolve({ filter: /\/bash\/[^/]+\.js$/ }, (args) =>
      /[\\/]src[\\/]bash[\\/]/.test(args.importer)
        ? undefined
        : { path: 'lazy-bash', namespace: 'lazy-bash' },
    );
    b.onLoad({ filter: /.*/, namespace: 'lazy-bash' }, () => ({
      loader: 'js',
      contents: lazyBashModule,
    }));
  },
};

const vendored = ['zod', 'yaml'];
await build({
  ...common,
  ...commonjs,
  entryPoints: ['src/cli/hook-main.ts'],
  outfile: 'dist/cli/hook.cjs',
  plugins: [
    beside(new RegExp(`^(${vendored.join('|')})$`), (name) => `./hook-${name}.cjs`),
    lazyBash,
    plainBuiltins,
  ],
});
// `toolgate exec` the same way (exec.cjs): it shares the hook's zod, YAML and Bash bundles.
await build({
  ...common,
  ...commonjs,
  entryPoints: ['src/cli/exec-main.ts'],
  outfile: 'dist/cli/exec.cjs',
  plugins: [
    beside(new RegExp(`^(${vendored.join('|')})$`), (name) => `./hook-${name}.cjs`),
    lazyBash,
    plainBuiltins,
  ],
});
await build({
  ...common,
  entryPoints: Object.fromEntries(vendored.map((name) => [`hook-${name}`, name])),
  outdir: 'dist/cli',
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
});
