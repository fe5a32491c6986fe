import path from 'node:path';

/**
 * The names MCP tools have in rules and in the registry: `mcp__<server>__<tool>`, as in Claude
 * Code. A rule `mcp__server` matches every tool whose name starts with `mcp__server__`, so the
 * server part must never contain `__` nor end with `_`: otherwise `mcp__a_` + `__b` and
 * `mcp__a` + `___b` would be the same name, and a rule written for one server would reach
 * another's tools.
 */
const SERVER_NAME = /^[A-Za-z0-9-](?:[A-Za-z0-9-]|_(?!_))*$/;

/** Whether `name` can be the server part of an MCP tool name (what `--name` accepts). */
export function isMcpServerName(name: string): boolean {
  return SERVER_NAME.test(name) && !name.endsWith('_');
}

/**
 * Any text (a command, a configured name) -> a server name in `[a-z0-9_-]` that rules match
 * exactly, or undefined when nothing usable is left (the caller must then ask for a name).
 */
export function sanitizeMcpServerName(raw: string): string | undefined {
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  return name === '' ? undefined : name;
}

/** The default server name of a command: its basename without an extension, sanitized. */
export function serverNameOfCommand(command: string): string | undefined {
  const base = path.basename(command).replace(/\.(?:exe|cmd|bat|js|mjs|cjs|ts|py|sh)$/i, '');
  return sanitizeMcpServerName(base);
}

/**
 * The tool part as Claude Code normalizes it: anything outside `[A-Za-z0-9_-]` becomes `_`.
 * Two tools can end up with the same part (`a.b`, `a_b`); callers must treat that as ambiguous.
 */
export function mcpToolPart(tool: string): string {
  return tool.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${mcpToolPart(tool)}`;
}

/**
 * Programs that start another one: the server is named after what they start, not after them
 * (`npx -y @modelcontextprotocol/server-filesystem /srv` serves `filesystem`, not `npx`). Each
 * entry: the words of the launcher's own subcommand to skip, and its options that take a value.
 */
const LAUNCHERS: Readonly<Record<string, { sub?: readonly string[]; valued?: readonly string[] }>> = {
  npx: { valued: ['-p', '--package', '-c', '--call'] },
  pnpx: {},
  bunx: {},
  uvx: { valued: ['--from', '--with', '--python', '-p'] },
  npm: { sub: ['exec', 'x'], valued: ['-p', '--package', '-c', '--call'] },
  pnpm: { sub: ['dlx', 'exec'] },
  yarn: { sub: ['dlx', 'exec'] },
  bun: { sub: ['x', 'run'] },
  uv: { sub: ['run', 'tool'], valued: ['--from', '--with', '--python', '-p', '--directory'] },
  deno: { sub: ['run'] },
  node: { valued: ['-r', '--require', '--import', '--loader'] },
  tsx: {},
  python: {},
  python3: {},
  docker: {
    sub: ['run'],
    valued: ['-e', '--env', '-v', '--volume', '--name', '--network', '-w', '--workdir'],
  },
  podman: {
    sub: ['run'],
    valued: ['-e', '--env', '-v', '--volume', '--name', '--network', '-w', '--workdir'],
  },
};

/** Words a server's package or file name carries that say only "this is an MCP server". */
const MCP_AFFIXES = [
  /^mcp[-_]server[-_]/,
  /^server[-_]/,
  /^mcp[-_]/,
  /[-_]mcp[-_]server$/,
  /[-_]mcp$/,
  /[-_]server$/,
];

/**
 * The default server name of a launch (the command and its arguments): what a launcher starts
 * (a package, a module, an image, a script) if the command is one, else the command itself;
 * scope, version, tag, path and the words that only say "MCP server" dropped, sanitized.
 */
export function serverNameOfLaunch(command: string, args: readonly string[]): string | undefined {
  const launcher = path.basename(command).replace(/\.(?:exe|cmd)$/i, '');
  const spec = Object.hasOwn(LAUNCHERS, launcher) ? LAUNCHERS[launcher] : undefined;
  if (spec === undefined) return serverNameOfCommand(command);
  // A launcher's own name would name every server it starts alike: then the caller asks for --name.
  const target = launchedBy(launcher, spec, args);
  if (target === undefined) return undefined;
  const stem = target.kind === 'file' ? fileStem(target.text) : packageStem(target.text);
  if (stem === undefined) return undefined;
  let name: string = stem;
  for (const affix of MCP_AFFIXES) {
    const stripped: string = stem.replace(affix, '');
    if (stripped !== '' && stripped !== stem) {
      name = stripped;
      break;
    }
  }
  return sanitizeMcpServerName(name);
}

function launchedBy(
  launcher: string,
  spec: { sub?: readonly string[]; valued?: readonly string[] },
  args: readonly string[],
): { kind: 'package' | 'file'; text: string } | undefined {
  let i = 0;
  const skipOptions = (): void => {
    while (i < args.length && args[i]!.startsWith('-')) {
      const word = args[i]!;
      // python -m module: the module is what runs
      if ((launcher === 'python' || launcher === 'python3') && word === '-m') return;
      if (word === '--') {
        i++;
        return;
      }
      i += spec.valued?.includes(word) ? 2 : 1;
    }
  };
  skipOptions();
  if (spec.sub !== undefined) {
    if (!spec.sub.includes(args[i] ?? '')) return undefined;
    i++;
    if (launcher === 'uv' && args[i - 1] === 'tool' && args[i] === 'run') i++;
    skipOptions();
  }
  const word = args[i];
  if (word === undefined) return undefined;
  if (word === '-m') return args[i + 1] === undefined ? undefined : { kind: 'package', text: args[i + 1]! };
  const runsFiles = ['node', 'tsx', 'python', 'python3', 'deno', 'bun'].includes(launcher);
  const isFile = /^(?:\.{0,2}\/|[A-Za-z]:\\)/.test(word) || /\.(?:[cm]?[jt]s|py)$/.test(word);
  const isPackage = /^(?:npm|jsr):/.test(word);
  return { kind: (runsFiles || isFile) && !isPackage ? 'file' : 'package', text: word };
}

/** `@scope/name@1.2` -> `name`; `ghcr.io/org/image:tag` -> `image`; `npm:name` -> `name`; `mod.sub` -> `mod`. */
function packageStem(text: string): string {
  const parts = text.replace(/^(?:npm|jsr):/, '').split('/');
  const last = parts
    .pop()!
    .replace(/(?<=.)[@:].*$/, '')
    .split('.')[0]!;
  // `@playwright/mcp`: the package says only "MCP"; its scope says whose
  const scope = parts.at(-1)?.replace(/^@/, '');
  return /^(?:mcp|server|mcp[-_]server)$/i.test(last) && scope ? scope : last.replace(/^@/, '');
}

/** A script: its name, or its package's directory when the name is a generic entry point. */
function fileStem(file: string): string | undefined {
  const parts = file.split(/[/\\]/).filter((p) => p !== '' && p !== '.' && p !== '..');
  const GENERIC = /^(?:index|main|server|cli|bin|dist|build|lib|src|out|__main__)$/i;
  for (let j = parts.length - 1; j >= 0; j--) {
    const stem = parts[j]!.replace(/\.(?:[cm]?[jt]s|py)$/i, '');
    if (!GENERIC.test(stem) && stem !== 'node_modules') return stem;
  }
  return undefined;
}
