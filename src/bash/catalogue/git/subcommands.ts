import { gitRemoteHost } from '../../commands/hosts.js';
import {
  type Analyzer,
  applyOptions,
  type CommandContext,
  type EffectSink,
  type OptionEffect,
  type OptionRules,
  readsListed,
} from '../../commands/spec.js';
import { dynamicWord, type Word } from '../../word.js';

/**
 * git's subcommands, the one-off analyzer of the git entry (index.ts). Reading subcommands stay
 * read-only unless an option writes (`--output`), runs a program (`--ext-diff`, `grep -O`) or
 * the form changes refs, the index or the working tree.
 */

const literalWord = (value: string): Word => ({ value, raw: value, expansions: [], dynamicStart: false });

/** Options of the diff machinery (diff, log, show, ...) that write files or run programs. */
const DIFF_EFFECTS: Readonly<Record<string, OptionEffect>> = {
  output: 'write',
  'ext-diff': (_v, s, c) =>
    s.opaque(`${c.name} --ext-diff runs the external diff program from git's configuration`),
  textconv: (_v, s, c) =>
    s.notUnderstood(`${c.name} --textconv runs text conversion programs from git's configuration`),
  'output-indicator-new': () => {},
};

/** Known harmless options that happen to be prefixes of dangerous ones (`--text` of `--textconv`). */
const DIFF_OPTIONS = [
  'output=',
  'ext-diff',
  'no-ext-diff',
  'textconv',
  'no-textconv',
  'text',
  'a',
  'o',
  'O=',
  'p',
  'u',
  'U=',
  'output-indicator-new=',
  'output-indicator-old=',
  'output-indicator-context=',
];

/** Subcommands that only read; their paths after `--` and their `rev:path` operands are reads. */
const READING_RULES: OptionRules = { options: DIFF_OPTIONS, anyOption: true, effects: DIFF_EFFECTS };

function reading(
  extraOptions: readonly string[] = [],
  extraEffects: Readonly<Record<string, OptionEffect>> = {},
): Analyzer {
  const rules = {
    options: [...DIFF_OPTIONS, ...extraOptions],
    anyOption: true,
    effects: { ...DIFF_EFFECTS, ...extraEffects },
  };
  return (ctx, sink) => {
    const parsed = applyOptions(ctx, sink, rules);
    reportPaths(ctx, parsed.operands, sink);
  };
}

/**
 * `-- path...` are files read; `rev:path` reads that file from history, `:path` and `:N:path`
 * its copy in the index. The path is the file's (relative to the top of the repository, or to
 * the working directory with `./`); it is reported as written, relative to where git runs.
 * Without `--`, git takes each operand as a revision if one has that name and as a path if not
 * (`git diff .env` prints the changes to .env): which one only the repository knows, so every
 * operand is also a file it may read, for the rules about reading files to see (not for grep,
 * whose first operand is the pattern).
 */
function reportPaths(
  ctx: CommandContext,
  operands: readonly Word[],
  sink: EffectSink,
  operandsMayBePaths = true,
): void {
  const dashDash = ctx.args.findIndex((w) => w.value === '--');
  if (dashDash >= 0) for (const w of ctx.args.slice(dashDash + 1)) sink.read(w);
  for (const w of operands) {
    const path = revisionPath(w.value);
    if (path !== undefined) sink.read({ ...w, value: path });
    // `:/text` names a commit by its message, not a file.
    else if (operandsMayBePaths && dashDash < 0 && !w.value.startsWith(':')) sink.read(w);
  }
}

/** The path of `rev:path`, `:path` or `:N:path`; undefined for other words (and `:/message`). */
function revisionPath(value: string): string | undefined {
  if (value.includes('://')) return undefined;
  const index = /^:(?:[0-3]:)?(?!\/)(.+)$/s.exec(value);
  if (index) return index[1];
  const colon = value.indexOf(':');
  return colon > 0 && colon < value.length - 1 ? value.slice(colon + 1) : undefined;
}

/**
 * `git diff --no-index A B` compares two paths outside git: both are read, a directory with
 * every file below it (dot files too).
 */
const diff: Analyzer = (ctx, sink) => {
  const parsed = applyOptions(ctx, sink, READING_RULES);
  if (!ctx.args.some((w) => w.value === '--no-index')) {
    reportPaths(ctx, parsed.operands, sink);
    return;
  }
  for (const w of parsed.operands)
    if (w.expansions.length > 0 || w.value !== '/dev/null')
      sink.readTree(w, { skipsHidden: false, followsLinks: false });
};

/** `git add PATH...` reads the files it stages (into the index, where `git show :PATH` prints them). */
const add: Analyzer = (ctx, sink) => {
  sink.change(`${ctx.name} stages changes in the index`, false);
  const parsed = applyOptions(ctx, sink, ADD_RULES);
  for (const w of parsed.operands) sink.read(w);
};

const ADD_RULES: OptionRules = {
  options: ['chmod=', 'pathspec-from-file=', 'pathspec-file-nul', 'e|edit', 'p|patch', 'i|interactive'],
  anyOption: true,
  effects: {
    'pathspec-from-file': 'read',
    edit: (_v, s, c) => s.opaque(`${c.name} --edit opens an editor`),
  },
};

function writes(what: string, destructive = false): Analyzer {
  return (ctx, sink) => sink.change(`${ctx.name} ${what}`, destructive);
}

const network =
  (sends: boolean, also?: Analyzer): Analyzer =>
  (ctx, sink) => {
    sink.network(`${ctx.name} talks to a remote repository`, sends);
    also?.(ctx, sink);
  };

/** Options of clone, fetch, pull, push and ls-remote whose value is the next word. */
const REMOTE_VALUES = new Set([
  '-o',
  '--origin',
  '-b',
  '--branch',
  '-u',
  '--upload-pack',
  '--receive-pack',
  '--exec',
  '--reference',
  '--reference-if-able',
  '--separate-git-dir',
  '--depth',
  '--deepen',
  '--shallow-since',
  '--shallow-exclude',
  '-c',
  '--config',
  '--template',
  '-j',
  '--jobs',
  '--filter',
  '--bundle-uri',
  '--server-option',
  '--push-option',
  '--refmap',
  '--negotiation-tip',
  '--recurse-submodules-default',
  '--sort',
  '--repo',
]);

/** The repository a clone, fetch, pull, push or ls-remote names (its first operand), if any. */
function repositoryOperand(args: readonly Word[]): Word | undefined {
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    if (w.value === '--') return args[i + 1];
    if (w.dynamicStart || !w.value.startsWith('-')) return w;
    if (REMOTE_VALUES.has(w.value)) i++;
  }
  return undefined;
}

/** Where a repository operand (a URL, `user@host:path`) connects; a remote's name shows no host. */
function reportRepository(args: readonly Word[], sink: EffectSink): void {
  const repo = repositoryOperand(args);
  const host = repo && gitRemoteHost(repo);
  if (host) sink.destination(host);
  const option = args.find((w) => w.value.startsWith('--repo='));
  const optionHost = option && gitRemoteHost({ ...option, value: option.value.slice(7) });
  if (optionHost) sink.destination(optionHost);
}

function hasFlag(ctx: CommandContext, ...flags: string[]): boolean {
  return ctx.args.some(
    (w) => flags.includes(w.value) || flags.some((f) => f.startsWith('--') && w.value.startsWith(`${f}=`)),
  );
}

function hasShortFlag(ctx: CommandContext, letter: string): boolean {
  return ctx.args.some(
    (w) => /^-[a-zA-Z]+$/.test(w.value) && !w.value.startsWith('--') && w.value.includes(letter),
  );
}

const status: Analyzer = reading([
  'porcelain?',
  'ignored?',
  'untracked-files?',
  'u?',
  'column?',
  'find-renames?',
  'M?',
]);

const GREP_RULES: OptionRules = {
  options: [
    'O|open-files-in-pager?',
    'e=',
    'f=',
    'A|after-context=',
    'B|before-context=',
    'C|context=',
    'm|max-count=',
    'threads=',
    'max-depth=',
    'color?',
    'textconv',
    'no-textconv',
    'untracked',
    'cached',
    'no-index',
    'exclude-standard',
  ],
  anyOption: true,
  effects: {
    'open-files-in-pager': (v, s) =>
      v && v.value !== ''
        ? s.runScript(v, 'git grep -O', { appendsArgs: true })
        : s.opaque("git grep -O opens the files in the pager from git's configuration"),
    textconv: (_v, s) => s.notUnderstood('git grep --textconv runs text conversion programs'),
    f: 'read',
  },
};

const grep: Analyzer = (ctx, sink) => {
  const parsed = applyOptions(ctx, sink, GREP_RULES);
  reportPaths(ctx, parsed.operands, sink, false);
  // --no-index and --untracked search the files on disk, every one below each path (dot files
  // and untracked ones included), not what git tracks: `git grep --no-index TOKEN` reads .env.
  if (!parsed.options.some((o) => o.id === 'no-index' || o.id === 'untracked')) return;
  const patternGiven = parsed.options.some((o) => o.id === 'e' || o.id === 'f');
  const paths = patternGiven ? parsed.operands : parsed.operands.slice(1);
  for (const w of paths.length > 0 ? paths : [literalWord('.')])
    sink.readTree(w, { skipsHidden: false, followsLinks: false });
};

const branch: Analyzer = (ctx, sink) => {
  const listOnly =
    /^(-a|--all|-r|--remotes|-l|--list|-v|-vv|--verbose|--show-current|--contains|--no-contains|--merged|--no-merged|--points-at|--sort|--format|--column|--no-column|--color|--no-color|-i|--ignore-case|--abbrev|--no-abbrev|-q|--quiet)(=.*)?$/;
  const args = ctx.args;
  const deleting = args.some(
    (w) =>
      /^(-d|-D|--delete)$/.test(w.value) || (/^-[a-zA-Z]*[dD]/.test(w.value) && !w.value.startsWith('--')),
  );
  const moving = args.some((w) =>
    /^(-m|-M|-c|-C|--move|--copy|--force|-f|--set-upstream-to|-u|--unset-upstream|--edit-description|--track|-t|--no-track|--create-reflog)$/.test(
      w.value,
    ),
  );
  if (deleting) {
    sink.change(`${ctx.name} deletes a branch`, true);
    return;
  }
  if (moving) {
    sink.change(
      `${ctx.name} renames, copies or reconfigures a branch`,
      args.some((w) => /^(-M|-C|--force|-f)$/.test(w.value)),
    );
    return;
  }
  const listing = args.some((w) => /^(-l|--list)$/.test(w.value));
  const operands = args.filter(
    (w, i) =>
      !w.value.startsWith('-') &&
      !/^--(contains|no-contains|merged|no-merged|points-at|sort|format)$/.test(args[i - 1]?.value ?? ''),
  );
  if (!listing && operands.length > 0) {
    sink.change(`${ctx.name} creates a branch`, false);
    return;
  }
  for (const w of args)
    if (w.value.startsWith('-') && !listOnly.test(w.value))
      sink.notUnderstood(`${ctx.name}: option ${w.raw} is not modelled`);
};

const tag: Analyzer = (ctx, sink) => {
  const args = ctx.args;
  messageFile(ctx, sink);
  if (args.some((w) => /^(-d|--delete)$/.test(w.value)))
    return sink.change(`${ctx.name} deletes a tag`, true);
  if (args.some((w) => /^(-v|--verify)$/.test(w.value))) return;
  const listing =
    args.length === 0 ||
    args.some((w) =>
      /^(-l|--list|-n\d*|--contains|--no-contains|--points-at|--merged|--no-merged|--sort.*|--format.*|--column.*)$/.test(
        w.value,
      ),
    );
  if (listing) return;
  sink.change(
    `${ctx.name} creates a tag`,
    args.some((w) => /^(-f|--force)$/.test(w.value)),
  );
};

/** `stash list` takes log's options and `stash show` diff's: `--output=FILE` writes FILE. */
const stashReading: Analyzer = reading();

const stash: Analyzer = (ctx, sink) => {
  const sub = ctx.args[0]?.value;
  if (sub === 'list' || sub === 'show') return stashReading({ ...ctx, args: ctx.args.slice(1) }, sink);
  if (sub === 'drop' || sub === 'clear' || sub === 'pop')
    return sink.change(`${ctx.name} ${sub} discards stashed changes`, true);
  sink.change(`${ctx.name} ${sub ?? 'push'} changes the working tree and stash`, false);
};

const reflogShow: Analyzer = reading(['n=']);

const reflog: Analyzer = (ctx, sink) => {
  const sub = ctx.args[0]?.value;
  if (sub === 'expire' || sub === 'delete')
    return sink.change(`${ctx.name} ${sub} deletes reflog entries`, true);
  reflogShow(ctx, sink);
};

const remote: Analyzer = (ctx, sink) => {
  const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
  if (sub === undefined || sub === 'get-url') return;
  if (sub === 'show') {
    if (!hasFlag(ctx, '-n')) sink.network(`${ctx.name} show queries the remote`, false);
    return;
  }
  if (sub === 'update' || sub === 'prune')
    return sink.network(`${ctx.name} ${sub} fetches from remotes`, sub === 'prune');
  // `remote add NAME URL`, `remote set-url NAME URL`: later pushes and fetches go there.
  if (sub === 'add' || sub === 'set-url') {
    const operands = ctx.args.filter(
      (w, i) => !w.value.startsWith('-') && !/^(-t|-m|--track|--master)$/.test(ctx.args[i - 1]?.value ?? ''),
    );
    const url = operands[2];
    const host = url && gitRemoteHost(url);
    if (host) sink.destination(host);
  }
  sink.change(
    `${ctx.name} ${sub} changes the repository's remotes`,
    /^(remove|rm|set-url|rename)$/.test(sub),
  );
};

/**
 * git config: getting and listing read; anything else writes a configuration file, and git
 * configuration names programs git runs (core.hooksPath, core.pager, aliases): the file written
 * is reported, so protected-path guards and Edit rules meet it.
 */
const config: Analyzer = (ctx, sink) => {
  const args = ctx.args;
  const reads =
    /^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|-l|--list|--show-origin|--show-scope|--name-only|-z|--null|--global|--system|--local|--worktree|--includes|--no-includes|--type=.*|--bool|--int|--path|--default=.*|--blob=.*)$/;
  const sub = args[0]?.value;
  if (sub === 'get' || sub === 'list') return;
  const fileOption = args.findIndex((w) => /^(-f|--file|--blob)$/.test(w.value));
  // `-f FILE` / `--file=FILE`: the file is read (listed, searched) whatever else is done with it.
  const file =
    fileOption >= 0 && args[fileOption]!.value !== '--blob'
      ? args[fileOption + 1]
      : args.find((w) => w.value.startsWith('--file='));
  if (file !== undefined)
    sink.read(file.value.startsWith('--file=') ? { ...file, value: file.value.slice(7) } : file);
  const options = args.filter((w) => w.value.startsWith('-'));
  if (/^(set|unset|rename-section|remove-section|edit)$/.test(sub ?? '')) {
    if (sub === 'edit') sink.opaque(`${ctx.name} edit opens an editor`);
    writesConfig(ctx, args, fileOption, sub !== 'set', sink);
    return;
  }
  const operands = args.filter(
    (w, i) => !w.value.startsWith('-') && (fileOption < 0 || i !== fileOption + 1),
  );
  if (options.some((w) => /^(-e|--edit)$/.test(w.value))) {
    sink.opaque(`${ctx.name} --edit opens an editor`);
    writesConfig(ctx, args, fileOption, true, sink);
    return;
  }
  const getting = options.some((w) =>
    /^(--get|--get-all|--get-regexp|--get-urlmatch|-l|--list|--get-color|--get-colorbool)/.test(w.value),
  );
  if (getting || (operands.length <= 1 && options.every((w) => reads.test(w.value)))) return;
  writesConfig(
    ctx,
    args,
    fileOption,
    options.some((w) => /^--(unset|unset-all|remove-section|rename-section|replace-all)/.test(w.value)),
    sink,
  );
};

/** The file `git config` writes: the repository's, ~/.gitconfig (--global), /etc/gitconfig, or -f FILE. */
function writesConfig(
  ctx: CommandContext,
  args: readonly Word[],
  fileOption: number,
  removes: boolean,
  sink: EffectSink,
): void {
  const file = fileOption >= 0 ? args[fileOption + 1] : undefined;
  const attached = args.find((w) => w.value.startsWith('--file='));
  const has = (flag: string) => args.some((w) => w.value === flag);
  const targets = file
    ? [file]
    : attached
      ? [{ ...attached, value: attached.value.slice(7) }]
      : has('--global')
        ? [CONFIG_WORDS.global, CONFIG_WORDS.xdg]
        : has('--system')
          ? [CONFIG_WORDS.system]
          : has('--worktree')
            ? [CONFIG_WORDS.worktree]
            : [CONFIG_WORDS.local];
  // Setting a key changes the file without losing what else is in it; removing loses data.
  for (const t of targets)
    sink.write(t, removes ? 'modify' : 'append', `${ctx.name} changes git configuration in ${t.raw}`);
}

const CONFIG_WORDS = {
  local: literalWord('.git/config'),
  worktree: literalWord('.git/config.worktree'),
  system: literalWord('/etc/gitconfig'),
  global: { value: '~/.gitconfig', raw: '~/.gitconfig', expansions: ['tilde'], dynamicStart: false } as Word,
  xdg: {
    value: '~/.config/git/config',
    raw: '~/.config/git/config',
    expansions: ['tilde'],
    dynamicStart: false,
  } as Word,
};

const worktree: Analyzer = (ctx, sink) => {
  const sub = ctx.args[0]?.value;
  if (sub === 'list') return;
  sink.change(`${ctx.name} ${sub ?? ''} changes worktrees`, sub === 'remove' || sub === 'prune');
};

const clean: Analyzer = (ctx, sink) => {
  if (hasFlag(ctx, '-n', '--dry-run') || hasShortFlag(ctx, 'n')) return;
  sink.remove(literalWord('(untracked files)'), `${ctx.name} deletes untracked files`);
};

const checkout: Analyzer = (ctx, sink) => {
  const args = ctx.args;
  if (args.some((w) => /^(-b|-B|--orphan)$/.test(w.value)) && !args.some((w) => w.value === '--')) {
    return sink.change(
      `${ctx.name} creates and switches to a branch`,
      args.some((w) => w.value === '-B'),
    );
  }
  sink.write(
    literalWord('(working tree)'),
    'modify',
    `${ctx.name} replaces files in the working tree (uncommitted changes to them are lost)`,
  );
};

const reset: Analyzer = (ctx, sink) => {
  if (hasFlag(ctx, '--hard', '--merge', '--keep')) {
    return sink.write(
      literalWord('(working tree)'),
      'modify',
      `${ctx.name} --hard discards uncommitted changes`,
    );
  }
  sink.change(`${ctx.name} moves HEAD or unstages changes`, false);
};

const rm: Analyzer = (ctx, sink) => {
  if (hasFlag(ctx, '--cached', '-n', '--dry-run'))
    return sink.change(`${ctx.name} --cached removes files from the index`, false);
  for (const w of ctx.args.filter((a) => !a.value.startsWith('-')))
    sink.remove(w, `${ctx.name} deletes ${w.raw}`);
};

const push: Analyzer = (ctx, sink) => {
  const force = ctx.args.some(
    (w) =>
      /^(-f|--force|--force-with-lease.*|--force-if-includes|--mirror|-d|--delete|--prune)$/.test(w.value) ||
      /^\+/.test(w.value),
  );
  sink.network(
    `${ctx.name} sends commits to a remote${force ? ' and can overwrite or delete what is there' : ''}`,
    true,
  );
  const receivePack = ctx.args.find((w) => /^--(receive-pack|exec)=/.test(w.value));
  if (receivePack)
    sink.runScript(
      { ...receivePack, value: receivePack.value.replace(/^--[a-z-]+=/, '') },
      `${ctx.name} --receive-pack`,
    );
  sink.change(`${ctx.name} runs the repository's pre-push hook`, false);
  reportRepository(ctx.args, sink);
};

const lsRemote: Analyzer = (ctx, sink) => {
  sink.network(`${ctx.name} queries a remote repository`, false);
  const args = ctx.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    const m = /^--(upload-pack|exec)=(.*)$/s.exec(v);
    if (m) sink.runScript({ ...args[i]!, value: m[2]! }, `${ctx.name} --${m[1]}`);
    else if ((v === '--upload-pack' || v === '--exec') && args[i + 1])
      sink.runScript(args[i + 1]!, `${ctx.name} ${v}`);
    else if (/^ext::/.test(v)) sink.opaque(`${ctx.name} with an ext:: URL runs a command`);
  }
  reportRepository(args, sink);
};

const fetchLike =
  (what: string, destructive: boolean): Analyzer =>
  (ctx, sink) => {
    sink.network(`${ctx.name} ${what}`, false);
    for (const w of ctx.args) {
      const m = /^--(upload-pack|exec)=(.*)$/s.exec(w.value);
      if (m) sink.runScript({ ...w, value: m[2]! }, `${ctx.name} --${m[1]}`);
      if (w.value.startsWith('ext::')) sink.opaque(`${ctx.name} with an ext:: URL runs a command`);
    }
    reportRepository(ctx.args, sink);
    if (destructive || hasFlag(ctx, '--prune', '-p', '--force', '-f'))
      sink.change(`${ctx.name} can overwrite local refs or files`, true);
    else sink.change(`${ctx.name} updates local refs`, false);
  };

const rebase: Analyzer = (ctx, sink) => {
  const args = ctx.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if (v === '--exec' || v === '-x') {
      if (args[i + 1]) sink.runScript(args[i + 1]!, `${ctx.name} --exec`);
    } else if (v.startsWith('--exec='))
      sink.runScript({ ...args[i]!, value: v.slice(7) }, `${ctx.name} --exec`);
  }
  sink.change(`${ctx.name} rewrites commits`, true);
};

/** `-F FILE` / `--file=FILE`: a commit or tag message read from a file (into history, then pushed). */
function messageFile(ctx: CommandContext, sink: EffectSink): void {
  const args = ctx.args;
  for (let i = 0; i < args.length; i++) {
    const v = args[i]!.value;
    if ((v === '-F' || v === '--file') && args[i + 1] && args[i + 1]!.value !== '-') sink.read(args[i + 1]!);
    else if (v.startsWith('--file=')) sink.read({ ...args[i]!, value: v.slice(7) });
    else if (/^-F.+/s.test(v)) sink.read({ ...args[i]!, value: v.slice(2) });
  }
}

const commit: Analyzer = (ctx, sink) => {
  messageFile(ctx, sink);
  if (hasFlag(ctx, '--dry-run')) return;
  const amend = hasFlag(ctx, '--amend');
  sink.change(
    `${ctx.name} records a commit${amend ? ' (replacing the last one)' : ''} and runs the repository's hooks`,
    amend,
  );
};

const help: Analyzer = (ctx, sink) => {
  if (ctx.args.some((w) => /^(-w|--web|-m|--man|-i|--info)$/.test(w.value))) {
    sink.notUnderstood(`${ctx.name} opens a viewer configured in git's configuration`);
  }
};

const hashObject: Analyzer = (ctx, sink) => {
  for (const w of ctx.args) if (!w.value.startsWith('-')) sink.read(w);
  if (hasFlag(ctx, '--stdin-paths')) readsListed(sink, undefined);
  if (hasFlag(ctx, '-w')) sink.change(`${ctx.name} -w writes objects into the repository`, false);
};

/** `git archive [options] TREE [PATH...]`: the paths (and `--add-file` files) go into the archive. */
const archive: Analyzer = (ctx, sink) => {
  const args = ctx.args;
  const operands: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const v = w.value;
    if (w.dynamicStart || !v.startsWith('-')) {
      operands.push(w);
      continue;
    }
    const m = /^(-o|--[a-z-]+)(?:=(.*))?$/s.exec(v);
    const name = m?.[1];
    let value: Word | undefined;
    if (name !== undefined && ARCHIVE_VALUES.has(name)) {
      value = m?.[2] === undefined ? args[++i] : { ...w, value: m[2] };
    }
    if (name === '-o' || name === '--output') {
      if (value) sink.write(value, 'overwrite', `${ctx.name} writes ${value.raw}`);
    } else if (name === '--add-file') {
      if (value) sink.read(value);
    } else if (name === '--remote') {
      sink.network(`${ctx.name} --remote talks to a remote repository`, false);
      const host = value && gitRemoteHost(value);
      if (host) sink.destination(host);
    } else if (name === '--exec') sink.opaque(`${ctx.name} --exec runs a program on the remote`);
  }
  for (const w of operands.slice(1)) sink.read(w);
};

const ARCHIVE_VALUES = new Set([
  '-o',
  '--output',
  '--prefix',
  '--format',
  '--remote',
  '--exec',
  '--mtime',
  '--add-file',
  '--add-virtual-file',
]);

const formatPatch: Analyzer = (ctx, sink) => {
  if (hasFlag(ctx, '--stdout')) return;
  sink.write(literalWord('(patch files)'), 'overwrite', `${ctx.name} writes patch files`);
};

const apply: Analyzer = (ctx, sink) => {
  if (
    ctx.args.some((w) => /^--(check|stat|numstat|summary)$/.test(w.value)) &&
    !hasFlag(ctx, '--apply', '--index', '--cached')
  )
    return;
  sink.write(literalWord('(working tree)'), 'modify', `${ctx.name} changes files in the working tree`);
};

const submodule: Analyzer = (ctx, sink) => {
  const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
  if (sub === undefined || sub === 'status' || sub === 'summary') return;
  if (sub === 'foreach') return sink.opaque(`${ctx.name} foreach runs a command in every submodule`);
  if (sub === 'add') {
    const url = repositoryOperand(ctx.args.slice(ctx.args.findIndex((w) => w.value === 'add') + 1));
    const host = url && gitRemoteHost(url);
    if (host) sink.destination(host);
  }
  sink.network(`${ctx.name} ${sub} fetches and changes submodules`, false);
  sink.change(`${ctx.name} ${sub} changes submodules`, sub === 'deinit');
};

const notes: Analyzer = (ctx, sink) => {
  const sub = ctx.args.find((w) => !w.value.startsWith('-'))?.value;
  if (sub === undefined || sub === 'list' || sub === 'show' || sub === 'get-ref') return;
  sink.change(`${ctx.name} ${sub} changes notes`, sub === 'remove' || sub === 'prune');
};

const sparse: Analyzer = (ctx, sink) => {
  if (ctx.args[0]?.value === 'list') return;
  sink.change(`${ctx.name} changes which files are checked out`, false);
};

const symbolicRef: Analyzer = (ctx, sink) => {
  const operands = ctx.args.filter((w) => !w.value.startsWith('-'));
  if (operands.length >= 2 || hasFlag(ctx, '-d', '--delete'))
    sink.change(`${ctx.name} changes a symbolic ref`, hasFlag(ctx, '-d', '--delete'));
};

const interpretTrailers: Analyzer = (ctx, sink) => {
  if (hasFlag(ctx, '--in-place')) {
    for (const w of ctx.args.filter((a) => !a.value.startsWith('-')))
      sink.write(w, 'modify', `${ctx.name} --in-place edits ${w.raw}`);
  }
};

const bundle: Analyzer = (ctx, sink) => {
  const sub = ctx.args[0]?.value;
  if (sub === 'verify' || sub === 'list-heads') return;
  sink.write(
    ctx.args[1] ?? literalWord('(bundle)'),
    sub === 'create' ? 'overwrite' : 'modify',
    `${ctx.name} ${sub ?? ''} writes`,
  );
};

const fsck: Analyzer = (ctx, sink) => {
  if (hasFlag(ctx, '--lost-found'))
    sink.change(`${ctx.name} --lost-found writes into .git/lost-found`, false);
};

const mergeTree: Analyzer = (ctx, sink) => {
  if (!hasFlag(ctx, '--no-messages') && hasFlag(ctx, '--write-tree'))
    sink.change(`${ctx.name} --write-tree writes objects`, false);
};

const R_E_A_D__O_N_L_Y_RULES: OptionRules = {
  options: [
    'L=',
    'S=',
    'contents=',
    'ignore-rev=',
    'ignore-revs-file=',
    'C?',
    'M?',
    'abbrev=',
    'date=',
    'encoding=',
  ],
  anyOption: true,
  effects: { contents: 'read', S: 'read', 'ignore-revs-file': 'read' },
};

const READ_ONLY: Record<string, Analyzer> = {
  status,
  log: reading([
    'L=',
    'S=',
    'G=',
    'grep=',
    'author=',
    'committer=',
    'since=',
    'until=',
    'after=',
    'before=',
    'format=',
    'pretty?',
    'n|max-count=',
    'skip=',
  ]),
  show: reading(['format=', 'pretty?']),
  diff,
  'diff-tree': reading(),
  'diff-index': reading(),
  'diff-files': reading(),
  whatchanged: reading(),
  'range-diff': reading(),
  blame: (ctx, sink) => {
    const parsed = applyOptions(ctx, sink, R_E_A_D__O_N_L_Y_RULES);
    const file = parsed.operands[parsed.operands.length - 1];
    if (file && ctx.args.findIndex((w) => w.value === '--') < 0) sink.read(file);
    reportPaths(ctx, [], sink);
  },
  annotate: reading(),
  shortlog: reading(),
  describe: reading(),
  'rev-parse': reading(),
  'rev-list': reading(),
  'ls-files': reading(),
  'ls-tree': reading(),
  // --batch prints each object named on stdin, `HEAD:.env` as well (--batch-check only their
  // type and size); --batch-all-objects every object in the repository.
  'cat-file': reading(['batch?', 'batch-check?', 'batch-command?', 'batch-all-objects'], {
    batch: (_v, s) => readsListed(s, undefined),
    'batch-command': (_v, s) => readsListed(s, undefined),
    'batch-all-objects': (_v, s) => s.read(dynamicWord('(every object in the repository)')),
  }),
  grep,
  'for-each-ref': reading([
    'format=',
    'sort=',
    'count=',
    'points-at=',
    'merged?',
    'no-merged?',
    'contains?',
    'no-contains?',
  ]),
  'show-ref': reading(),
  'show-branch': reading(),
  'name-rev': reading(),
  'merge-base': reading(),
  'count-objects': reading(),
  cherry: reading(),
  'check-ignore': reading(),
  'check-attr': reading(),
  'check-ref-format': reading(),
  'check-mailmap': reading(),
  var: reading(),
  version: reading(),
  'verify-commit': reading(),
  'verify-tag': reading(),
  'verify-pack': reading(),
  'get-tar-commit-id': reading(),
  'patch-id': reading(),
  'fmt-merge-msg': reading(),
  column: reading(),
  stripspace: reading(),
  'merge-tree': mergeTree,
  help,
  fsck,
  'hash-object': hashObject,
};

const CHANGES: Record<string, Analyzer> = {
  branch,
  tag,
  stash,
  reflog,
  remote,
  config,
  worktree,
  clean,
  checkout,
  switch: (ctx, sink) => {
    const discard = hasFlag(ctx, '--discard-changes', '-f', '--force', '-C', '--force-create');
    sink.change(`${ctx.name} switches branches${discard ? ' and discards local changes' : ''}`, discard);
  },
  restore: (ctx, sink) => {
    const staged = hasFlag(ctx, '--staged', '-S') && !hasFlag(ctx, '--worktree', '-W');
    if (staged) return sink.change(`${ctx.name} --staged unstages changes`, false);
    sink.write(literalWord('(working tree)'), 'modify', `${ctx.name} discards uncommitted changes to files`);
  },
  reset,
  rm,
  mv: (ctx, sink) => {
    for (const w of ctx.args.filter((a) => !a.value.startsWith('-')))
      sink.write(w, 'overwrite', `${ctx.name} moves ${w.raw}`);
  },
  add,
  commit,
  push,
  pull: fetchLike('fetches and merges from a remote', false),
  fetch: fetchLike('fetches from a remote', false),
  clone: fetchLike('copies a remote repository', false),
  'ls-remote': lsRemote,
  merge: writes('merges commits into the working tree'),
  rebase,
  'cherry-pick': writes('applies commits'),
  revert: writes('records reverting commits'),
  am: writes('applies patches as commits'),
  apply,
  init: writes('creates a repository'),
  gc: writes('repacks the repository and prunes unreachable objects', true),
  prune: writes('deletes unreachable objects', true),
  repack: writes('repacks objects'),
  'update-ref': (ctx, sink) => sink.change(`${ctx.name} changes a ref`, hasFlag(ctx, '-d')),
  'update-index': writes('changes the index'),
  'read-tree': writes('changes the index'),
  'write-tree': writes('writes a tree object'),
  'commit-tree': writes('writes a commit object'),
  mktree: writes('writes a tree object'),
  mktag: writes('writes a tag object'),
  'symbolic-ref': symbolicRef,
  replace: writes('replaces objects'),
  'filter-branch': (ctx, sink) => {
    sink.opaque(`${ctx.name} runs filter commands over history`);
    sink.change(`${ctx.name} rewrites history`, true);
  },
  'filter-repo': (ctx, sink) => sink.change(`${ctx.name} rewrites history`, true),
  bisect: writes('checks out commits'),
  'format-patch': formatPatch,
  archive,
  bundle,
  submodule,
  notes,
  'sparse-checkout': sparse,
  maintenance: writes('runs maintenance tasks'),
  'interpret-trailers': interpretTrailers,
  'send-email': network(true),
  'request-pull': network(false),
  daemon: (ctx, sink) => {
    sink.network(`${ctx.name} serves repositories over the network`, true);
    sink.lingers(`${ctx.name} keeps running`);
  },
  instaweb: (ctx, sink) => sink.lingers(`${ctx.name} starts a web server`),
  credential: (ctx, sink) => sink.notUnderstood(`${ctx.name} reads or stores credentials`),
  hook: (ctx, sink) => sink.opaque(`${ctx.name} runs a repository hook`),
  lfs: (ctx, sink) => {
    const sub = ctx.args[0]?.value;
    if (sub === 'ls-files' || sub === 'status' || sub === 'env' || sub === 'version') return;
    sink.network(`${ctx.name} ${sub ?? ''} transfers large files`, sub === 'push');
  },
};

/** A Map: the subcommand comes from the command line, never read through a prototype chain. */
export const SUBCOMMANDS: ReadonlyMap<string, Analyzer> = new Map(
  Object.entries({ ...READ_ONLY, ...CHANGES }),
);

/**
 * `git -c alias.NAME=VALUE NAME ARGS`: the alias the line defines. `!cmd` is shell code, already
 * analyzed where -c is read; otherwise git runs `git VALUE ARGS`, which is analyzed as a command
 * of its own (with the line's other aliases, for chains), so rules about `git push` meet
 * `git -c alias.p=push p`. A definition only known at run time is code only known then.
 */
export function runAlias(
  options: readonly { id: string; value?: Word }[],
  name: string,
  args: readonly Word[],
  sink: EffectSink,
): boolean {
  const defs = options.filter(
    (o) =>
      (o.id === 'c' || o.id === 'config-env') && o.value !== undefined && /^alias\./i.test(o.value.value),
  );
  const key = `alias.${name}`.toLowerCase();
  let found: { id: string; value?: Word } | undefined;
  for (const o of defs) {
    const v = o.value!.value;
    const eq = v.indexOf('=');
    if (eq > 0 && v.slice(0, eq).toLowerCase() === key) found = o;
  }
  if (found === undefined) {
    if (defs.some((o) => o.value!.expansions.length > 0))
      sink.unknownCode(`git ${name} may be an alias defined only at run time`);
    return false;
  }
  const word = found.value!;
  const value = word.value.slice(word.value.indexOf('=') + 1);
  if (found.id === 'config-env' || word.expansions.length > 0) {
    sink.unknownCode(`git ${name} runs an alias only known at run time`);
    return true;
  }
  if (value.startsWith('!')) return true;
  const words = splitAlias(value);
  if (words === undefined) {
    sink.notUnderstood(`git alias ${name} ("${value}") is not modelled`);
    return true;
  }
  const aliasOptions = defs.flatMap((o) => [literalWord('-c'), o.value!]);
  sink.run([literalWord('git'), ...aliasOptions, ...words, ...args], `git alias ${name}`);
  return true;
}

/** An alias value split as git does (blanks, quotes); undefined for what that does not cover. */
function splitAlias(value: string): Word[] | undefined {
  if (/[\\$`]/.test(value)) return undefined;
  const words: Word[] = [];
  for (const m of value.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g))
    words.push(literalWord(m[1] ?? m[2] ?? m[3]!));
  return words.length > 0 ? words : undefined;
}
