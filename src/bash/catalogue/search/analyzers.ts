import { HELP_OR_VERSION, onlyAsks } from '../../commands/only-asks.js';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  filledIn,
  type OptionRules,
} from '../../commands/spec.js';
import { wordMayBeOption } from '../../option-risk.js';
import type { Word } from '../../word.js';

/** Searching: grep and friends read; find, fd and rg also have options that write or run programs. */

const GREP_OPTIONS = [
  'E|extended-regexp',
  'F|fixed-strings',
  'G|basic-regexp',
  'P|perl-regexp',
  'e|regexp=',
  'f|file=',
  'i|ignore-case',
  'no-ignore-case',
  'v|invert-match',
  'w|word-regexp',
  'x|line-regexp',
  'y',
  'c|count',
  'color|colour?',
  'L|files-without-match',
  'l|files-with-matches',
  'm|max-count=',
  'o|only-matching',
  'q|quiet|silent',
  's|no-messages',
  'b|byte-offset',
  'H|with-filename',
  'h|no-filename',
  'label=',
  'n|line-number',
  'T|initial-tab',
  'Z|null',
  'A|after-context=',
  'B|before-context=',
  'C|context=',
  'NUM',
  'group-separator=',
  'no-group-separator',
  'a|text',
  'binary-files=',
  'D|devices=',
  'd|directories=',
  'exclude=',
  'exclude-from=',
  'exclude-dir=',
  'I',
  'include=',
  'r|recursive',
  'R|dereference-recursive',
  'line-buffered',
  'U|binary',
  'z|null-data',
  'line-regexp',
];

const HERE: Word = { value: '.', raw: '.', expansions: [], dynamicStart: false };

const GREP_RULES: OptionRules = {
  options: GREP_OPTIONS,
  anyOption: true,
  effects: { file: 'read', 'exclude-from': 'read' },
  parse: { numericOption: 'context' },
};

const grep: CommandSpec = {
  rules: GREP_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, GREP_RULES);
    const operands = [...parsed.operands];
    const hasPattern = parsed.options.some((o) => o.id === 'regexp' || o.id === 'file');
    if (!hasPattern) operands.shift();
    const follows = parsed.options.some((o) => o.id === 'dereference-recursive');
    const recursive =
      follows ||
      parsed.options.some(
        (o) => o.id === 'recursive' || (o.id === 'directories' && o.value?.value === 'recurse'),
      );
    if (!recursive) {
      for (const w of operands) sink.read(w);
      return;
    }
    // Recursive with no operand searches the working directory.
    if (operands.length === 0) operands.push(HERE);
    for (const w of operands) sink.readTree(w, { skipsHidden: false, followsLinks: follows });
  },
};

const RG_RULES: OptionRules = {
  options: [
    'e|regexp=',
    'f|file=',
    'g|glob=',
    'iglob=',
    't|type=',
    'T|type-not=',
    'type-add=',
    'type-clear=',
    'A|after-context=',
    'B|before-context=',
    'C|context=',
    'm|max-count=',
    'M|max-columns=',
    'j|threads=',
    'max-depth|maxdepth|d=',
    'max-filesize=',
    'E|encoding=',
    'colors=',
    'color=',
    'path-separator=',
    'r|replace=',
    'sort=',
    'sortr=',
    'pre=',
    'pre-glob=',
    'hostname-bin=',
    'hyperlink-format=',
    'context-separator=',
    'field-context-separator=',
    'field-match-separator=',
    'dfa-size-limit=',
    'regex-size-limit=',
    'engine=',
    'ignore-file=',
    // -z runs a decompressor (gzip, xz, ...) over the files it reads, as tar -z does: still reads.
    'z|search-zip',
    'no-config',
    '.|hidden',
    'no-hidden',
    'u|unrestricted',
    'L|follow',
  ],
  anyOption: true,
  effects: {
    pre: 'exec',
    'hostname-bin': 'exec',
    file: 'read',
    'ignore-file': 'read',
  },
};

const rg: CommandSpec = {
  rules: RG_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, RG_RULES);
    const operands = [...parsed.operands];
    const hasPattern = parsed.options.some((o) => o.id === 'regexp' || o.id === 'file');
    if (!hasPattern) operands.shift();
    if (operands.length === 0) operands.push(HERE);
    // rg leaves out hidden files unless told (--hidden, -., -uu); .gitignore is not modelled,
    // which can only make toolgate think it reads more than it does. A glob or a type that
    // selects files wins over that rule: `rg -g '.env'`, `-g '*'` and `-t sh` read the hidden
    // files they match (checked with ripgrep 13), so only excluding globs keep it.
    const unrestricted = parsed.options.filter((o) => o.id === 'unrestricted').length;
    const selects = parsed.options.some(
      (o) =>
        o.id === 'type' ||
        ((o.id === 'glob' || o.id === 'iglob') && (o.value === undefined || !o.value.value.startsWith('!'))),
    );
    // An ignore file the line names may whitelist hidden files (`!.env`), which rg then
    // searches; its lines are only known at run time. (Ignore files on disk: the policy's walk.)
    const ignoreFile = parsed.options.some((o) => o.id === 'ignore-file');
    const how = {
      skipsHidden:
        !selects && !ignoreFile && !parsed.options.some((o) => o.id === 'hidden') && unrestricted < 2,
      followsLinks: parsed.options.some((o) => o.id === 'follow'),
    };
    for (const w of operands) sink.readTree(w, how);
  },
};

/** ag and ack: `--pager` runs a program; ack's `--output` evaluates Perl. */
const AG_RULES: OptionRules = {
  options: [
    'pager=',
    'output=',
    'G|file-search-regex=',
    'ignore=',
    'A|after=',
    'B|before=',
    'C|context=',
    'm|max-count=',
    'depth=',
    'p|path-to-ignore=',
    'hidden',
    'u|unrestricted',
    'f|follow',
  ],
  anyOption: true,
  effects: { pager: 'exec', output: 'not-read-only' },
};

const ag: CommandSpec = {
  rules: AG_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, AG_RULES);
    const operands = [...parsed.operands];
    operands.shift();
    if (operands.length === 0) operands.push(HERE);
    // ag leaves out hidden files unless --hidden (-u: everything); ack is taken to read them all.
    const how = {
      skipsHidden:
        ctx.name === 'ag' && !parsed.options.some((o) => o.id === 'hidden' || o.id === 'unrestricted'),
      followsLinks: parsed.options.some((o) => o.id === 'follow'),
    };
    for (const w of operands) sink.readTree(w, how);
  },
};

// ---------------------------------------------------------------- find

/** Primaries taking one argument (tests and options), by name. */
const FIND_ONE_ARG = new Set([
  'name',
  'iname',
  'path',
  'ipath',
  'wholename',
  'iwholename',
  'regex',
  'iregex',
  'lname',
  'ilname',
  'type',
  'xtype',
  'size',
  'perm',
  'user',
  'group',
  'uid',
  'gid',
  'mtime',
  'mmin',
  'atime',
  'amin',
  'ctime',
  'cmin',
  'used',
  'links',
  'inum',
  'samefile',
  'newer',
  'anewer',
  'cnewer',
  'fstype',
  'context',
  'maxdepth',
  'mindepth',
  'regextype',
  'printf',
  'files0-from',
]);
const FIND_NO_ARG = new Set([
  'print',
  'print0',
  'ls',
  'prune',
  'quit',
  'true',
  'false',
  'empty',
  'executable',
  'readable',
  'writable',
  'nouser',
  'nogroup',
  'depth',
  'd',
  'mount',
  'xdev',
  'follow',
  'noleaf',
  'warn',
  'nowarn',
  'ignore_readdir_race',
  'noignore_readdir_race',
  'daystart',
  'not',
  'a',
  'and',
  'o',
  'or',
  'help',
  'version',
]);
const FIND_WRITE_ONE = new Set(['fprint', 'fprint0', 'fls']);
/**
 * Primaries that pick no files out (options, actions that print, `-type`): with only these
 * before it, `-delete` deletes each starting point with everything below it. Any other test
 * selects (`-name '*.o'`), unless an operator could turn it around (`!`, `-o`, `,`).
 */
const FIND_SELECTS_NOTHING = new Set([
  'type',
  'xtype',
  'depth',
  'd',
  'maxdepth',
  'mindepth',
  'mount',
  'xdev',
  'follow',
  'noleaf',
  'warn',
  'nowarn',
  'ignore_readdir_race',
  'noignore_readdir_race',
  'daystart',
  'regextype',
  'print',
  'print0',
  'true',
  'a',
  'and',
]);
const FIND_TURNS_AROUND = new Set(['!', ',', '-not', '-o', '-or']);
const FIND_EXEC = new Set(['exec', 'execdir', 'ok', 'okdir']);

const DOT: Word = { value: '.', raw: '.', expansions: [], dynamicStart: false };

const find: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    if (onlyAsks(args, HELP_OR_VERSION)) return;
    let i = 0;
    // Global options before the starting points.
    while (i < args.length && /^-(H|L|P|D|O\d*)$/.test(args[i]!.value)) i += args[i]!.value === '-D' ? 2 : 1;
    const starts: Word[] = [];
    while (i < args.length) {
      const w = args[i]!;
      if (wordMayBeOption(w, ctx.line)) {
        sink.notUnderstood(`find: "${w.raw}" is only known at run time and could be an expression`);
        i++;
        continue;
      }
      if (w.value.startsWith('-') || w.value === '(' || w.value === '!' || w.value === ')' || w.value === ',')
        break;
      starts.push(w);
      i++;
    }
    for (const s of starts.length > 0 ? starts : [DOT]) sink.read(s);
    // Whether the expression so far picks files out (see FIND_SELECTS_NOTHING).
    let selects = false;
    let turned = false;
    while (i < args.length) {
      const w = args[i]!;
      const v = w.value;
      if (FIND_TURNS_AROUND.has(v)) turned = true;
      else if (v.startsWith('-') && v !== '-delete' && !FIND_SELECTS_NOTHING.has(v.slice(1))) selects = true;
      if (wordMayBeOption(w, ctx.line)) {
        sink.notUnderstood(`find: "${w.raw}" is only known at run time and could be an action`);
        i++;
        continue;
      }
      if (v === '(' || v === ')' || v === '!' || v === ',') {
        i++;
        continue;
      }
      if (!v.startsWith('-')) {
        sink.notUnderstood(`find: unexpected "${w.raw}" in the expression`);
        i++;
        continue;
      }
      const name = v.slice(1);
      if (FIND_NO_ARG.has(name)) {
        i++;
      } else if (FIND_ONE_ARG.has(name) || /^newer[aBcmt][aBcmt]$/.test(name)) {
        if (name === 'files0-from' && args[i + 1]) sink.read(args[i + 1]!);
        i += 2;
      } else if (FIND_WRITE_ONE.has(name) || name === 'fprintf') {
        const file = args[i + 1];
        if (file) sink.write(file, 'overwrite', `find -${name} writes ${file.raw}`);
        i += name === 'fprintf' ? 3 : 2;
      } else if (name === 'delete') {
        // Claude Code never approves find with an action by a prefix rule.
        sink.trait('no-prefix-allow');
        if (selects && !turned)
          sink.remove(
            { value: '(every file found)', raw: '-delete', expansions: ['glob'], dynamicStart: false },
            'find -delete deletes every file it finds',
          );
        else
          for (const s of starts.length > 0 ? starts : [DOT])
            sink.remove(s, `find -delete deletes ${s.raw} and everything below it`, 'tree');
        i++;
      } else if (FIND_EXEC.has(name)) {
        let end = i + 1;
        while (end < args.length && args[end]!.value !== ';' && args[end]!.value !== '+') end++;
        // `{}` is each file found: a path only known at run time, under the starting points.
        const safeStart = starts.every((s) => s.expansions.length === 0);
        const inner = filledIn(args.slice(i + 1, end), '{}', safeStart);
        sink.trait('no-prefix-allow');
        sink.notUnderstood(`find -${name} runs a command for every file it finds`);
        if (inner.length > 0) sink.run(inner, `find -${name}`, { repeated: true });
        if (name === 'ok' || name === 'okdir') sink.notUnderstood(`find -${name} asks on the terminal`);
        i = end + 1;
      } else {
        sink.notUnderstood(`find: unknown primary ${v}`);
        i++;
      }
    }
  },
};

/** fd / fdfind: `-x`/`-X` run a command for each result. */
const FD_RULES: OptionRules = {
  options: [
    'd|max-depth=',
    'min-depth=',
    'exact-depth=',
    'E|exclude=',
    't|type=',
    'e|extension=',
    'S|size=',
    'changed-within=',
    'changed-before=',
    'o|owner=',
    'c|color=',
    'j|threads=',
    'max-results=',
    'base-directory=',
    'path-separator=',
    'search-path=',
    'ignore-file=',
    'format=',
  ],
  anyOption: true,
  effects: { 'ignore-file': 'read' },
};

const fd: CommandSpec = {
  rules: FD_RULES,
  analyze(ctx, sink) {
    const args = ctx.args;
    const execAt = args.findIndex(
      (w) => /^(-x|-X|--exec|--exec-batch)(=|$)/.test(w.value) || /^-[a-zA-Z]*[xX]/.test(w.value),
    );
    const own = execAt >= 0 ? args.slice(0, execAt) : args;
    const parsed = applyOptions({ ...ctx, args: own }, sink, FD_RULES);
    const [, ...paths] = parsed.operands;
    for (const p of paths.length > 0
      ? paths
      : [{ value: '.', raw: '.', expansions: [], dynamicStart: false } as Word])
      sink.read(p);
    if (execAt >= 0) {
      const flag = args[execAt]!;
      // `-xrm`, and `--exec=rm` (clap's attached value).
      const attached =
        /^--exec(?:-batch)?=(.*)$/s.exec(flag.value)?.[1] ?? /^-[a-zA-Z]*[xX](.+)$/.exec(flag.value)?.[1];
      let inner = args.slice(execAt + 1);
      const stop = inner.findIndex((w) => w.value === ';');
      if (stop >= 0) inner = inner.slice(0, stop);
      if (attached) inner = [{ ...flag, value: attached }, ...inner];
      sink.notUnderstood(`${ctx.name} ${flag.raw} runs a command for every file it finds`);
      // {}, {/}, {//}, {.}, {/.} stand for the file found; without one, it is appended.
      const placeholder = /\{(\/|\/\/|\.|\/\.)?\}/;
      const fills = inner.some((w) => placeholder.test(w.value));
      if (inner.length > 0)
        sink.run(fills ? filledIn(inner, placeholder) : inner, `${ctx.name} -x`, {
          extraArgs: !fills,
          repeated: true,
        });
    }
  },
};

export const SEARCH: CommandTable = {
  grep,
  egrep: grep,
  fgrep: grep,
  zgrep: grep,
  rg,
  ag,
  ack: ag,
  find,
  fd,
  fdfind: fd,
};
