import type { Analyzer } from '../../commands/spec.js';
import type { Word } from '../../word.js';
import type { CatalogueEntry, Examples } from '../entry.js';

/**
 * Package managers and compilers: listing and querying subcommands read (some query a
 * registry); the rest install, build or run package scripts, code the line does not show.
 */

const literal = (value: string): Word => ({ value, raw: value, expansions: [], dynamicStart: false });

/** Only asks for the version or help. */
function onlyAsks(args: readonly Word[]): boolean {
  return args.length > 0 && args.every((w) => ASKS.has(w.value));
}
const ASKS = new Set(['--version', '-V', '--help', '-h', 'version', 'help']);

const words = (...w: string[]): ReadonlySet<string> => new Set(w);

/**
 * npm, yarn, pnpm, bun: `reads` subcommands only read (`queries` of them ask the registry).
 * `bare`: what the program does without a subcommand; yarn installs (and runs the packages'
 * install scripts), the others print their help.
 */
function nodePackages(
  reads: ReadonlySet<string>,
  queries: ReadonlySet<string>,
  bare: 'help' | 'install',
): Analyzer {
  return (ctx, sink) => {
    const ws = ctx.args.filter((w) => !w.value.startsWith('-'));
    if (onlyAsks(ctx.args)) return;
    if (valueBeforeSubcommand(ctx.args, NODE_FLAGS)) {
      // Any subcommand may be the one run: fail closed as for one that runs package scripts.
      sink.opaque(
        `${ctx.name}: an option before the subcommand may take the next word as its value (npm --prefix ls install installs)`,
      );
      return;
    }
    const sub = ws[0]?.value ?? (bare === 'install' ? 'install' : undefined);
    if (sub === undefined) return;
    const actions = Object.hasOwn(READ_ACTIONS, sub) ? READ_ACTIONS[sub] : undefined;
    const listed = reads.has(sub) || sub === 'config' || sub === 'pkg';
    const readOnly = listed && (actions === undefined || actions.has(ws[1]?.value ?? ''));
    // `npm help --viewer=browser` opens a browser; `npm fund PKG` opens the package's funding page.
    const opens = sub === 'help' && ctx.args.some((w) => w.value.startsWith('--viewer'));
    if (readOnly && !opens) {
      if (queries.has(sub)) sink.network(`${ctx.name} ${sub} queries the registry`, false);
      return;
    }
    if (sub === 'ci' || sub === 'clean-install')
      sink.remove(literal('node_modules'), `${ctx.name} ${sub} deletes node_modules before installing`);
    if (REMOVES.has(sub)) sink.remove(literal('(packages)'), `${ctx.name} ${sub} removes packages`);
    if (PUBLISHES.has(sub)) sink.network(`${ctx.name} ${sub} changes the package registry`, true);
    sink.opaque(`${ctx.name} ${sub} runs package scripts or programs the line does not show`);
  };
}
/**
 * Subcommands that read only with one of these actions ('' for none): `config set`, `pkg set`,
 * `bun pm cache rm`, `npm version patch` (bumps, commits, tags and runs the version scripts) and
 * `npm fund PKG` (opens a browser) change or run things.
 */
const READ_ACTIONS: Readonly<Record<string, ReadonlySet<string>>> = {
  config: words('get', 'list', 'ls'),
  pkg: words('get'),
  pm: words('ls', 'bin', 'hash', 'hash-string', 'hash-print'),
  version: words(''),
  fund: words(''),
};

/** Global options of npm, yarn, pnpm and bun that take no value (a value-taking one must be `--opt=value`). */
const NODE_FLAGS = words(
  '-v',
  '-g',
  '--global',
  '-s',
  '--silent',
  '-q',
  '--quiet',
  '-d',
  '-dd',
  '-ddd',
  '--verbose',
  '--json',
  '-p',
  '--parseable',
  '-l',
  '--long',
  '--no-color',
  '--offline',
  '--frozen-lockfile',
  '-r',
  '--recursive',
);

/**
 * Whether a word before the subcommand is an option that may take the next word as its value:
 * then which word is the subcommand only the program's option table knows, and the first word
 * that does not start with `-` may be a value (`npm --prefix ls install`, `pip --log list freeze`).
 */
function valueBeforeSubcommand(args: readonly Word[], flags: ReadonlySet<string>): boolean {
  for (const w of args) {
    if (!w.value.startsWith('-') || w.value === '-') return false;
    if (w.expansions.length > 0) return true;
    if (!w.value.includes('=') && !flags.has(w.value) && !ASKS.has(w.value)) return true;
  }
  return false;
}

const REMOVES = words('uninstall', 'remove', 'rm', 'un', 'r', 'prune', 'dedupe');
const PUBLISHES = words(
  'publish',
  'unpublish',
  'deprecate',
  'owner',
  'access',
  'dist-tag',
  'adduser',
  'login',
  'logout',
  'team',
  'token',
);

function packages(
  name: string,
  summary: string,
  reads: ReadonlySet<string>,
  queries: ReadonlySet<string>,
  examples: Examples,
  bare: 'help' | 'install' = 'help',
): CatalogueEntry {
  return {
    name,
    summary,
    shape: {
      kind: 'escape',
      why: `subcommands: only ${[...reads].join(', ')} read (${[...queries].join(', ') || 'none'} ask the registry)${bare === 'install' ? '; without one it installs' : ''}`,
      analyze: nodePackages(reads, queries, bare),
    },
    unknownOptions: 'fail',
    examples,
  };
}

const pip: Analyzer = (ctx, sink) => {
  if (valueBeforeSubcommand(ctx.args, PIP_FLAGS)) {
    sink.opaque(`${ctx.name}: an option before the subcommand may take the next word as its value`);
    return;
  }
  for (const w of ctx.args) {
    const o = /^(--[a-z-]+)(?:=(.*))?$/s.exec(w.value)?.[1];
    if (o === undefined) continue;
    // --log FILE appends pip's log to FILE; --python runs pip under another interpreter.
    if ('--log'.startsWith(o) && o.length > 4) sink.notUnderstood(`${ctx.name} ${w.raw} writes a log file`);
    if (o === '--log-file' || o === '--local-log')
      sink.notUnderstood(`${ctx.name} ${w.raw} writes a log file`);
    if (o.length > 3 && '--python'.startsWith(o)) sink.opaque(`${ctx.name} ${w.raw} runs another Python`);
  }
  const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
  // `pip list --outdated/--uptodate`, `pip index` and `pip search` ask the package index.
  const asksIndex =
    sub === 'index' ||
    sub === 'search' ||
    (sub === 'list' && ctx.args.some((w) => /^(-[a-z]*[ou][a-z]*|--outdated|--uptodate)$/.test(w.value)));
  if (asksIndex) sink.network(`${ctx.name} ${sub} asks the package index`, false);
  if (onlyAsks(ctx.args) || sub === undefined || PIP_READS.has(sub)) {
    if (sub === 'config' || sub === 'cache') {
      const action = ctx.args.filter((w) => !w.value.startsWith('-'))[1]?.value;
      if (action && !words('list', 'get', 'dir', 'info', 'debug').has(action))
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
};
/** pip's global options that take no value. */
const PIP_FLAGS = words(
  '-v',
  '--verbose',
  '-q',
  '--quiet',
  '--isolated',
  '--no-cache-dir',
  '--disable-pip-version-check',
  '--no-color',
  '--no-input',
  '--require-virtualenv',
  '--no-python-version-warning',
);
const PIP_READS = words(
  'list',
  'show',
  'freeze',
  'check',
  'help',
  'debug',
  'inspect',
  'index',
  'search',
  'config',
  'cache',
);

const cargo: Analyzer = (ctx, sink) => {
  const sub = ctx.args.find((w) => !w.value.startsWith('-') && !w.value.startsWith('+'))?.value;
  if (onlyAsks(ctx.args) || sub === undefined || CARGO_READS.has(sub)) return;
  if (sub === 'fmt') {
    if (!ctx.args.some((w) => w.value === '--check'))
      sink.write(literal('(source files)'), 'modify', 'cargo fmt rewrites source files');
    return;
  }
  if (sub === 'clean') sink.remove(literal('target'), 'cargo clean deletes the target directory');
  sink.opaque(`cargo ${sub} builds and may run code (build scripts, tests, the program)`);
};
const CARGO_READS = words('version', 'help', 'search', 'locate-project', 'pkgid', 'read-manifest');

const go: Analyzer = (ctx, sink) => {
  const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
  if (onlyAsks(ctx.args) || sub === undefined || sub === 'version' || sub === 'doc' || sub === 'help') return;
  if (sub === 'env') {
    if (ctx.args.some((w) => w.value === '-w' || w.value === '-u'))
      sink.change('go env -w changes Go settings', false);
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
};

const tsc: Analyzer = (ctx, sink) => {
  if (onlyAsks(ctx.args) || ctx.args.some((w) => TSC_NO_OUTPUT.has(w.value))) return;
  sink.write(literal('(compiled output)'), 'overwrite', 'tsc writes compiled files');
};
const TSC_NO_OUTPUT = words('--noEmit', '--showConfig', '--listFilesOnly');

export const PACKAGES: readonly CatalogueEntry[] = [
  packages(
    'npm',
    'the Node.js package manager',
    words(
      'ls',
      'list',
      'll',
      'la',
      'view',
      'info',
      'show',
      'v',
      'outdated',
      'root',
      'prefix',
      'bin',
      'whoami',
      'help',
      'help-search',
      'explain',
      'why',
      'fund',
      'search',
      'find',
      's',
      'se',
      'doctor',
      'ping',
      'query',
      'sbom',
      'version',
    ),
    words('view', 'info', 'show', 'v', 'outdated', 'whoami', 'search', 'find', 's', 'se', 'ping', 'doctor'),
    {
      readOnly: ['npm ls --depth=0', 'npm config get registry', 'npm --version'],
      notReadOnly: ['npm view react version', 'npm outdated'],
      destructive: ['npm install', 'npm test', 'npm ci', 'npm publish', 'npm uninstall left-pad'],
    },
  ),
  packages(
    'yarn',
    'the Yarn package manager',
    words('list', 'info', 'why', 'outdated', 'help', 'versions', 'bin', 'dir', 'licenses'),
    words('info', 'outdated'),
    {
      readOnly: ['yarn why react', 'yarn --version'],
      notReadOnly: ['yarn info react'],
      // Without a subcommand yarn runs `yarn install` (the old table read it as read-only).
      destructive: ['yarn', 'yarn --frozen-lockfile', 'yarn build'],
    },
    'install',
  ),
  packages(
    'pnpm',
    'the pnpm package manager',
    words('ls', 'list', 'll', 'why', 'outdated', 'root', 'bin', 'help', 'view', 'info', 'licenses'),
    words('view', 'info', 'outdated'),
    {
      readOnly: ['pnpm ls', 'pnpm why react'],
      notReadOnly: ['pnpm outdated'],
      destructive: ['pnpm install', 'pnpm run build'],
    },
  ),
  packages(
    'bun',
    'the Bun runtime and package manager',
    words('pm', 'outdated', '--version', '--help'),
    words('outdated'),
    {
      readOnly: ['bun pm ls', 'bun --version'],
      notReadOnly: ['bun outdated'],
      destructive: ['bun run dev', 'bun install', 'bun x.ts'],
    },
  ),
  {
    name: 'pip',
    aliases: ['pip3', 'pipx'],
    summary: "Python's package installer",
    shape: {
      kind: 'escape',
      why: 'subcommands: list, show, freeze, check, ... read; config and cache read unless their action writes',
      analyze: pip,
    },
    unknownOptions: 'fail',
    examples: {
      readOnly: ['pip list', 'pip3 show requests', 'pip config list'],
      notReadOnly: ['pip config set global.index-url x'],
      destructive: ['pip install requests', 'pip uninstall -y requests', 'pip cache purge', 'pipx run black'],
    },
  },
  {
    name: 'cargo',
    summary: "Rust's build tool and package manager",
    shape: {
      kind: 'escape',
      why: 'subcommands: a few query; fmt rewrites sources unless --check; the rest build and may run code',
      analyze: cargo,
    },
    unknownOptions: 'fail',
    examples: {
      readOnly: ['cargo --version', 'cargo fmt --check', 'cargo locate-project'],
      destructive: ['cargo build', 'cargo test', 'cargo fmt', 'cargo clean', 'cargo +nightly run'],
    },
  },
  {
    name: 'go',
    summary: 'the Go toolchain',
    shape: {
      kind: 'escape',
      why: 'subcommands: version, doc, help and env read (env -w writes settings); fmt rewrites; the rest build or run',
      analyze: go,
    },
    unknownOptions: 'fail',
    examples: {
      readOnly: ['go version', 'go env GOPATH', 'go doc fmt.Println'],
      notReadOnly: ['go env -w GOFLAGS=-mod=mod'],
      destructive: ['go build ./...', 'go test ./...', 'go fmt ./...', 'go get example.com/x', 'go run .'],
    },
  },
  {
    name: 'tsc',
    summary: 'the TypeScript compiler: writes compiled files unless --noEmit',
    shape: { kind: 'escape', why: 'writes its output unless an option says it emits nothing', analyze: tsc },
    unknownOptions: 'fail',
    examples: {
      readOnly: ['tsc --noEmit -p .', 'tsc --version', 'tsc --showConfig'],
      destructive: ['tsc', 'tsc -p tsconfig.build.json'],
    },
  },
  {
    name: 'shellcheck',
    summary: 'lints the shell scripts it is given and prints; no option writes or runs anything',
    shape: { kind: 'reader' },
    options: {
      'f|format=': 'harmless',
      'e|exclude=': 'harmless',
      'i|include=': 'harmless',
      'o|enable=': 'harmless',
      's|shell=': 'harmless',
      'S|severity=': 'harmless',
      'rcfile=': 'reads',
      'P|source-path=': 'harmless',
    },
    unknownOptions: 'harmless',
    examples: { readOnly: ['shellcheck -f gcc scripts/*.sh', 'shellcheck --rcfile=.shellcheckrc x.sh'] },
  },
];
