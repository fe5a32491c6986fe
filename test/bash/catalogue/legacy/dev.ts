import {
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  opaque,
  reader,
} from '../../../../src/bash/commands/spec.js';
import type { Word } from '../../../../src/bash/word.js';

/**
 * Package managers, build tools, compilers and interpreters. Almost everything here runs code
 * the line does not show (package scripts, build files, programs); the exceptions are version
 * and help queries and a few listing subcommands.
 */

const literal = (value: string): Word => ({ value, raw: value, expansions: [], dynamicStart: false });

function onlyAsks(args: readonly Word[]): boolean {
  return args.length > 0 && args.every((w) => /^(--version|-V|--help|-h|version|help)$/.test(w.value));
}

/** Interpreters: a version query is read-only; code from anywhere (file, -c, -e, stdin) is opaque. */
function interpreter(versionFlags: RegExp = /^(--version|-V|-v|--help|-h)$/): CommandSpec {
  return {
    analyze(ctx, sink) {
      const args = ctx.args;
      if (args.length > 0 && args.every((w) => versionFlags.test(w.value))) return;
      if (args.length === 0 || args.some((w) => w.value === '-')) {
        stdinScriptOpaque(ctx.name, ctx, sink);
        return;
      }
      const file = scriptFile(args);
      if (file) sink.read(file);
      sink.opaque(
        `${ctx.name} runs a program the line does not show (${args
          .map((w) => w.raw)
          .join(' ')
          .slice(0, 60)})`,
      );
    },
  };
}

/**
 * The script file an interpreter runs: its first operand, unless an option before it gives the
 * code itself (`-c`, `-e`, `-E`, `-r`, `-m`, `--eval`, ...). An option's value may be taken for
 * the file, which only reports a read too many.
 */
function scriptFile(args: readonly Word[]): Word | undefined {
  for (const w of args) {
    if (w.value === '--') continue;
    if (/^-[a-zA-Z]*[ceErm]$|^--(eval|command|execute|module|print)\b/.test(w.value)) return undefined;
    if (w.value.startsWith('-')) continue;
    return w;
  }
  return undefined;
}

function stdinScriptOpaque(name: string, ctx: Parameters<CommandSpec['analyze']>[0], sink: EffectSink): void {
  void ctx;
  sink.runsStdin(`${name} runs code it reads from stdin`);
}

/** npm, yarn, pnpm, bun: listing and querying subcommands read; the rest run package scripts. */
function nodePackages(reads: RegExp, network: RegExp): CommandSpec {
  return {
    analyze(ctx, sink) {
      const words = ctx.args.filter((w) => !w.value.startsWith('-'));
      const sub = words[0]?.value;
      if (onlyAsks(ctx.args) || sub === undefined) return;
      if (
        reads.test(sub) ||
        (sub === 'config' && /^(get|list|ls)$/.test(words[1]?.value ?? '')) ||
        (sub === 'pkg' && words[1]?.value === 'get')
      ) {
        if (network.test(sub)) sink.network(`${ctx.name} ${sub} queries the registry`, false);
        return;
      }
      if (sub === 'ci' || sub === 'clean-install')
        sink.remove(literal('node_modules'), `${ctx.name} ${sub} deletes node_modules before installing`);
      if (/^(uninstall|remove|rm|un|r|prune|dedupe)$/.test(sub))
        sink.remove(literal('(packages)'), `${ctx.name} ${sub} removes packages`);
      if (/^(publish|unpublish|deprecate|owner|access|dist-tag|adduser|login|logout|team|token)$/.test(sub)) {
        sink.network(`${ctx.name} ${sub} changes the package registry`, true);
      }
      sink.opaque(`${ctx.name} ${sub} runs package scripts or programs the line does not show`);
    },
  };
}

const npmReads =
  /^(ls|list|ll|la|view|info|show|v|outdated|root|prefix|bin|whoami|help|help-search|explain|why|fund|search|find|s|se|doctor|ping|query|sbom|version)$/;
const npmNetwork = /^(view|info|show|v|outdated|whoami|search|find|s|se|ping|doctor)$/;

const npm = nodePackages(npmReads, npmNetwork);
const yarn = nodePackages(
  /^(list|info|why|outdated|help|versions|config|bin|dir|licenses)$/,
  /^(info|outdated)$/,
);
const pnpm = nodePackages(
  /^(ls|list|ll|why|outdated|root|bin|help|view|info|licenses|config)$/,
  /^(view|info|outdated)$/,
);

/** npx / bunx / pnpm dlx run a package's binary, downloading it if needed. */
const npx: CommandSpec = {
  analyze(ctx, sink) {
    if (onlyAsks(ctx.args)) return;
    sink.network(`${ctx.name} may download the package it runs`, false);
    sink.opaque(`${ctx.name} runs a package binary the line does not show`);
  },
};

const pip: CommandSpec = {
  analyze(ctx, sink) {
    const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
    if (
      onlyAsks(ctx.args) ||
      sub === undefined ||
      /^(list|show|freeze|check|help|debug|inspect|index|search|config|cache)$/.test(sub)
    ) {
      if (sub === 'config' || sub === 'cache') {
        const action = ctx.args.filter((w) => !w.value.startsWith('-'))[1]?.value;
        if (action && !/^(list|get|dir|info|debug)$/.test(action))
          sink.change(
            `${ctx.name} ${sub} ${action} changes pip's configuration or cache`,
            action === 'purge' || action === 'remove',
          );
      }
      return;
    }
    if (sub === 'uninstall') sink.remove(literal('(packages)'), `${ctx.name} uninstall removes packages`);
    if (sub === 'download')
      sink.write(literal('(downloaded packages)'), 'create', `${ctx.name} download saves packages`);
    sink.network(`${ctx.name} ${sub} may download packages`, false);
    sink.opaque(`${ctx.name} ${sub} runs package build scripts`);
  },
};

const cargo: CommandSpec = {
  analyze(ctx, sink) {
    const sub = ctx.args.find((w) => !w.value.startsWith('-') && !w.value.startsWith('+'))?.value;
    if (
      onlyAsks(ctx.args) ||
      sub === undefined ||
      /^(version|help|search|locate-project|pkgid|read-manifest)$/.test(sub)
    )
      return;
    if (sub === 'fmt') {
      if (!ctx.args.some((w) => w.value === '--check'))
        sink.write(literal('(source files)'), 'modify', 'cargo fmt rewrites source files');
      return;
    }
    if (sub === 'clean') sink.remove(literal('target'), 'cargo clean deletes the target directory');
    sink.opaque(`cargo ${sub} builds and may run code (build scripts, tests, the program)`);
  },
};

const go: CommandSpec = {
  analyze(ctx, sink) {
    const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
    if (onlyAsks(ctx.args) || sub === undefined || sub === 'version' || sub === 'doc' || sub === 'help')
      return;
    if (sub === 'env') {
      if (ctx.args.some((w) => /^-(w|u)$/.test(w.value))) sink.change('go env -w changes Go settings', false);
      return;
    }
    if (sub === 'fmt' || sub === 'fix') {
      sink.write(literal('(Go source files)'), 'modify', `go ${sub} rewrites source files`);
      return;
    }
    if (sub === 'clean') sink.remove(literal('(build outputs)'), 'go clean deletes build outputs');
    if (sub === 'mod' || sub === 'get' || sub === 'install')
      sink.network(`go ${sub} may download modules`, false);
    sink.opaque(`go ${sub} builds, downloads or runs code`);
  },
};

const make: CommandSpec = {
  analyze(ctx, sink) {
    if (onlyAsks(ctx.args)) return;
    // Even `make -n` runs $(shell ...) and recipe lines marked with +.
    sink.opaque(`${ctx.name} runs the recipes of a build file the line does not show`);
  },
};

const tsc: CommandSpec = {
  analyze(ctx, sink) {
    if (onlyAsks(ctx.args) || ctx.args.some((w) => /^(--noEmit|--showConfig|--listFilesOnly)$/.test(w.value)))
      return;
    sink.write(literal('(compiled output)'), 'overwrite', 'tsc writes compiled files');
  },
};

/** Tools whose configuration is code (eslint.config.js, prettier plugins, test files). */
function runsProjectCode(what: string): CommandSpec {
  return {
    analyze(ctx, sink) {
      if (onlyAsks(ctx.args)) return;
      sink.opaque(`${ctx.name} ${what}`);
    },
  };
}

const python = interpreter();
const node = interpreter(/^(--version|-v|--help|-h)$/);

/** shellcheck lints the scripts it is given and prints; none of its options writes or runs anything. */
const shellcheck = reader({
  options: [
    'f|format=',
    'e|exclude=',
    'i|include=',
    'o|enable=',
    's|shell=',
    'S|severity=',
    'rcfile=',
    'P|source-path=',
  ],
  anyOption: true,
  effects: { rcfile: 'read' },
});

export const DEVELOPMENT: CommandTable = {
  npm,
  shellcheck,
  yarn,
  pnpm,
  bun: nodePackages(/^(pm|outdated|why|--version|--help)$/, /^outdated$/),
  npx,
  bunx: npx,
  pip,
  pip3: pip,
  pipx: pip,
  uv: opaque('runs Python tooling that installs packages and runs code'),
  poetry: opaque('runs Python tooling that installs packages and runs code'),
  cargo,
  go,
  make,
  gmake: make,
  cmake: make,
  ninja: make,
  meson: make,
  bazel: make,
  mvn: make,
  gradle: make,
  ant: make,
  rake: make,
  tsc,
  eslint: runsProjectCode('loads its configuration (JavaScript) and may fix files'),
  prettier: runsProjectCode('loads plugins and configuration and may rewrite files'),
  jest: runsProjectCode('runs tests'),
  vitest: runsProjectCode('runs tests'),
  mocha: runsProjectCode('runs tests'),
  pytest: runsProjectCode('runs tests'),
  tox: runsProjectCode('runs tests'),
  python,
  python2: python,
  python3: python,
  pypy: python,
  pypy3: python,
  node,
  nodejs: node,
  deno: interpreter(),
  ruby: interpreter(),
  perl: interpreter(),
  php: interpreter(),
  lua: interpreter(),
  Rscript: interpreter(),
  R: interpreter(),
  java: interpreter(/^(--version|-version|-help|--help)$/),
  jshell: interpreter(),
  irb: interpreter(),
  ipython: interpreter(),
  julia: interpreter(),
  swift: interpreter(),
  osascript: interpreter(),
  pwsh: interpreter(),
  powershell: interpreter(),
  tclsh: interpreter(),
  expect: interpreter(),
  dc: opaque('dc can run shell commands with !'),
  code: opaque('opens an editor'),
};
