import { compileAbsolutePathGlob, hasGlobSyntax, type PathPattern } from './match/path.js';

/**
 * Paths whose contents decide what code runs later — on the next shell, the next `git`
 * command, the next editor or agent start. A write there turns one allowed call into code
 * execution outside every limit, so writes are refused unless the caller explicitly allows
 * them. The list is the union of Claude Code's "protected paths" and its sandbox's mandatory
 * write denials (research doc §2, §5.1, §5.2). The whole of `.git` is not on it: git itself has
 * to write objects and refs; hooks and config are where code execution hides.
 *
 * Entries match at any depth (a nested repository or home directory is no safer), and a
 * match on a directory covers its contents. The policy asks before such writes in every mode,
 * bypassPermissions included (deny where no person can answer), and the sandbox refuses them at
 * execution time: both read this one list.
 */
const ANYWHERE: readonly string[] = [
  // git: hooks run on commit/checkout; config can name fsmonitor, pagers, filters.
  '.git/hooks',
  '.git/config',
  '.git/config.worktree',
  '.gitconfig',
  '.gitmodules',
  '.config/git',
  // Shell start-up files run on the next shell.
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zshenv',
  '.zprofile',
  '.zlogin',
  '.zlogout',
  '.kshrc',
  '.cshrc',
  '.tcshrc',
  '.login',
  '.inputrc',
  '.config/fish',
  // Tool and editor configuration that runs commands or loads code.
  '.npmrc',
  '.ripgreprc',
  '.vscode',
  '.idea',
  '.husky',
  '.cargo',
  '.devcontainer',
  '.yarn',
  '.mvn',
  // Agent configuration: settings, hooks, commands, agents, MCP servers; and our own policy.
  '.claude/!(worktrees)',
  '.claude.json',
  '.mcp.json',
  // The other agents' settings and hook files toolgate is installed in (research: agents.md):
  // Gemini CLI's .gemini/settings.json, Cursor's .cursor/hooks.json, Codex's ~/.codex (hooks.json,
  // config.toml), Copilot CLI's .github/hooks/*.json, OpenCode's plugin directories.
  '.gemini',
  '.cursor',
  '.codex',
  '.github/hooks',
  '.opencode',
  '.config/opencode',
  '.toolgate',
  // toolgate's own cache (the default place): the hook runs the compiled code and the parsed
  // policies it finds there.
  '.cache/toolgate',
  // The user's toolgate config: the user layer and the trust store (trusted.json). An agent
  // that could write there would trust its own workspace policy and lift every allow in it.
  '.config/toolgate',
];

/**
 * The directories some entries live in, as a write target themselves (the path only, not
 * what is inside): moving or copying a directory onto `.git` or `.claude` plants hooks, config
 * and settings at once, and a `.git` *file* (`gitdir: /elsewhere`) points git at a config the
 * agent wrote. Their other contents (git objects, `.claude/worktrees`) stay writable.
 */
const PARENTS: readonly string[] = ['.git', '.claude', '.config'];

/**
 * Names protected at the top of a workspace only. A directory that holds `HEAD`, `objects` and
 * `refs` is a bare repository to git, with its own config: creating them plants one (Claude Code
 * protects these too).
 */
const AT_ROOT: readonly string[] = [
  'HEAD',
  'objects',
  'refs',
  // OpenCode's project config sits at the top of the project: its permissions and plugins.
  'opencode.json',
  'opencode.jsonc',
];

interface Entry {
  label: string;
  pattern: PathPattern;
}

let compiled: Entry[] | undefined;

function entries(): Entry[] {
  compiled ??= ANYWHERE.map((label) => ({
    label: label.replace('/!(worktrees)', ''),
    pattern: compileAbsolutePathGlob(`/**/${label}`),
  }));
  return compiled;
}

/**
 * The first segment of every ANYWHERE entry (`.git`, `.bashrc`, `.claude`, ...): each entry
 * matches at any depth, so a path or one of its directories matches only when one of the
 * path's segments is the entry's first one. Normalizing a path only drops segments (`.`, `..`,
 * empty), never makes one, so testing the segments as written is enough to rule every entry
 * out, which is the answer for almost every path a decision sees. Undefined (test every
 * entry) should an entry ever start with a pattern.
 */
const FIRST_SEGMENTS: ReadonlySet<string> | undefined = ANYWHERE.some((label) =>
  hasGlobSyntax(label.split('/')[0]!),
)
  ? undefined
  : new Set(ANYWHERE.map((label) => label.split('/')[0]!));

const ALL_DOTTED = FIRST_SEGMENTS !== undefined && [...FIRST_SEGMENTS].every((s) => s.startsWith('.'));

/** Whether some ANYWHERE entry could match `absolutePath` (see FIRST_SEGMENTS). Exported for tests. */
export function mayBeUnderEntry(absolutePath: string): boolean {
  if (FIRST_SEGMENTS === undefined) return true;
  let at = 0;
  while (at < absolutePath.length) {
    let end = absolutePath.indexOf('/', at);
    if (end < 0) end = absolutePath.length;
    // When every first segment starts with a dot, most segments are ruled out without a substring.
    if (
      (!ALL_DOTTED || absolutePath.charCodeAt(at) === 46) /* . */ &&
      FIRST_SEGMENTS.has(absolutePath.slice(at, end))
    )
      return true;
    at = end + 1;
  }
  return false;
}

/** The protected entry `absolutePath` falls under (e.g. `.git/hooks`), or undefined. */
export function protectedEntryOf(absolutePath: string, writableRoots: readonly string[]): string | undefined {
  if (mayBeUnderEntry(absolutePath)) {
    for (const entry of entries()) {
      if (entry.pattern.matches(absolutePath)) return entry.label;
    }
  }
  const name = absolutePath.slice(absolutePath.lastIndexOf('/') + 1);
  if (PARENTS.includes(name)) return name;
  for (const root of writableRoots) {
    for (const name of AT_ROOT) {
      if (isInside(absolutePath, root === '/' ? `/${name}` : `${root}/${name}`)) return name;
    }
  }
  return undefined;
}

function isInside(candidate: string, root: string): boolean {
  if (root === '/') return candidate.startsWith('/');
  return candidate === root || candidate.startsWith(`${root}/`);
}

/**
 * The directories that hold a protected entry below them (`.git` holds `.git/hooks`, `.cache`
 * holds `.cache/toolgate`): a link to one of them reaches the entry under a name that no longer
 * shows it (`ln -s .git g; echo x > g/hooks/pre-commit`).
 */
const HOLDERS: ReadonlySet<string> = new Set(
  ANYWHERE.filter((label) => label.includes('/')).map((label) => label.split('/')[0]!),
);

/**
 * The protected entry a link to `absolutePath` would make writable under another name: the
 * path is protected itself, or holds a protected entry whose name the link would hide.
 */
export function protectedLinkTargetOf(
  absolutePath: string,
  writableRoots: readonly string[],
): string | undefined {
  const entry = protectedEntryOf(absolutePath, writableRoots);
  if (entry !== undefined) return entry;
  const name = absolutePath.slice(absolutePath.lastIndexOf('/') + 1);
  return HOLDERS.has(name) ? name : undefined;
}

/**
 * The protected entry a path only known at run time visibly names (`/proc/$$/cwd/.git/config`,
 * `"$HOME"/.bashrc`): its text as written, quotes dropped, read as a path below `/`.
 */
export function protectedEntryShownIn(raw: string): string | undefined {
  const text = raw.replace(/["']/g, '');
  return protectedEntryOf(text.startsWith('/') ? text : `/${text}`, []);
}

/** The entries that match at any depth, as written (`.claude/!(worktrees)`): for tests. */
export function anywherePatterns(): readonly string[] {
  return ANYWHERE;
}

/** The protected names, for documentation and for masking existing ones in the OS sandbox. */
export function protectedNames(): { anywhere: readonly string[]; atRoot: readonly string[] } {
  return { anywhere: entries().map((e) => e.label), atRoot: AT_ROOT };
}
