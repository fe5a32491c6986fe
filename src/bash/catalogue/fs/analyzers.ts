import path from 'node:path';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
  reader,
} from '../../commands/spec.js';
import type { Word } from '../../word.js';

/** Files and directories: the commands that list, read, copy, move, delete and change them. */

const anyReader = (
  options: readonly string[] = [],
  effects?: OptionRules['effects'],
  coded?: OptionRules['coded'],
): CommandSpec => reader({ options, anyOption: true, effects, coded });

/** Rules compile once per object (spec.ts), so they are constants, not made per call. */
const TAIL_RULES: OptionRules = {
  options: [
    'c|bytes=',
    'n|lines=',
    'q|quiet|silent',
    'v|verbose',
    'z|zero-terminated',
    'f|follow?',
    'F',
    'pid=',
    's|sleep-interval=',
    'retry',
    'max-unchanged-stats=',
  ],
  anyOption: true,
  parse: { numericOption: 'lines' },
};

const tail: CommandSpec = {
  rules: TAIL_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, TAIL_RULES);
    for (const w of parsed.operands) sink.read(w);
    if (parsed.options.some((o) => o.id === 'follow' || o.id === 'F')) {
      sink.lingers('tail -f keeps following the file until stopped');
    }
  },
};

const fileCmd = anyReader(
  [
    'C|compile',
    'm|magic-file=',
    'f|files-from=',
    'e|exclude=',
    'exclude-quiet=',
    'F|separator=',
    'P|parameter=',
    'mime-type',
    'mime-encoding',
  ],
  {
    compile: (_v, sink) =>
      sink.write(
        { value: 'magic.mgc', raw: '-C', expansions: [], dynamicStart: false },
        'overwrite',
        'file -C writes a compiled magic file',
      ),
    'magic-file': 'read',
    'files-from': 'read-list',
  },
  { compile: 'writes' },
);

const LESS_RULES: OptionRules = {
  options: [
    'o|log-file=',
    'O|LOG-FILE=',
    'k|lesskey-file=',
    'lesskey-src=',
    'p|pattern=',
    't|tag=',
    'T|tag-file=',
    'x|tabs=',
    'y|max-forw-scroll=',
    'b|buffers=',
    'h|max-back-scroll=',
    'j|jump-target=',
    'z|window=',
    'P|prompt=',
  ],
  anyOption: true,
  effects: { 'log-file': 'write', 'LOG-FILE': 'write', 'lesskey-file': 'read', 'lesskey-src': 'read' },
};

const less: CommandSpec = {
  rules: LESS_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, LESS_RULES);
    for (const w of parsed.operands) {
      if (w.value.startsWith('+'))
        sink.notUnderstood(`less ${w.raw} runs less commands at start-up, which can run shell commands`);
      else sink.read(w);
    }
  },
};

/** xxd IN [OUT]: a second operand is a file it writes. */
const XXD_RULES: OptionRules = {
  options: [
    'a',
    'b',
    'C',
    'c=',
    'E',
    'e',
    'g=',
    'h',
    'i',
    'l=',
    'n=',
    'o=',
    'p',
    'ps',
    'r',
    'd',
    's=',
    'u',
    'v',
    'R=',
  ],
  anyOption: true,
  parse: { singleDashLong: true },
};

const xxd: CommandSpec = {
  rules: XXD_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, XXD_RULES);
    const [input, output] = parsed.operands;
    if (input && input.value !== '-') sink.read(input);
    if (output && output.value !== '-') sink.write(output, 'overwrite', `xxd writes ${output.raw}`);
  },
};

/** cp/mv/install/ln: the last operand (or -t DIR) is written; the others are read (mv: removed). */
const COPY_LIKE_RULES: OptionRules = {
  options: [
    'a|archive',
    'b',
    'backup?',
    'd',
    'D',
    'f|force',
    'i|interactive',
    'H',
    'l|link',
    'L|dereference',
    'n|no-clobber',
    'P|no-dereference',
    'p',
    'preserve?',
    'no-preserve=',
    'parents',
    'R|r|recursive',
    'reflink?',
    'remove-destination',
    'sparse=',
    'strip-trailing-slashes',
    's|symbolic-link|symbolic',
    'S|suffix=',
    't|target-directory=',
    'T|no-target-directory',
    'u|update?',
    'v|verbose',
    'x|one-file-system',
    'Z',
    'context?',
    'g|group=',
    'm|mode=',
    'o|owner=',
    'C|compare',
    'attributes-only',
    'copy-contents',
    'keep-directory-symlink',
    'debug',
    'exchange',
    'logical',
    'physical',
    'relative',
    'F',
    'no-copy',
  ],
  anyOption: true,
};

/** ln -f removes a file already at the link's name (cp and mv replace one with or without -f). */
const LN_RULES: OptionRules = { ...COPY_LIKE_RULES, coded: { force: 'removes' } };

function copyLike(kind: 'cp' | 'mv' | 'install' | 'ln'): CommandSpec {
  const rules = kind === 'ln' ? LN_RULES : COPY_LIKE_RULES;
  return {
    rules,
    analyze(ctx, sink) {
      const parsed = applyOptions(ctx, sink, rules);
      const ids = new Set(parsed.options.map((o) => o.id));
      const targetDir = parsed.options.find((o) => o.id === 'target-directory')?.value;
      const operands = [...parsed.operands];
      if (kind === 'install' && ids.has('d')) {
        for (const w of operands) sink.write(w, 'create', `install -d creates ${w.raw}`);
        return;
      }
      const target = targetDir ?? (operands.length >= 2 || kind === 'ln' ? operands.pop() : undefined);
      if (target === undefined) {
        sink.notUnderstood(`${kind} without a target`);
        return;
      }
      const noClobber =
        ids.has('no-clobber') || parsed.options.some((o) => o.id === 'update' && o.value?.value === 'none');
      const overwrites = kind === 'mv' || !(noClobber || (kind === 'ln' && !ids.has('force')));
      const how = overwrites ? 'overwrite' : 'create';
      const verb = { cp: 'copies onto', mv: 'moves onto', install: 'installs onto', ln: 'links at' }[kind];
      sink.write(
        target,
        how,
        `${kind} ${verb} ${target.raw}${overwrites ? ', which may already exist' : ''}`,
      );
      for (const w of operands) {
        if (kind === 'mv') sink.remove(w, `mv removes ${w.raw} from where it was`);
        else if (kind === 'ln') linkTargets(w, target, targetDir !== undefined, ids, sink);
        else if (kind === 'cp' && (ids.has('link') || ids.has('symbolic-link'))) sink.alias(w);
        else sink.read(w);
      }
    },
  };
}

/**
 * What a link leads to is a read: the link is a way to read it later under a name no rule
 * names. A hard link's target and a `-r` symlink's are relative to the working directory; a
 * plain symlink's to the directory the link is in (the link's own, or the target directory).
 */
function linkTargets(w: Word, at: Word, atIsDirectory: boolean, ids: Set<string>, sink: EffectSink): void {
  sink.alias(w);
  if (!ids.has('symbolic-link') || ids.has('relative') || w.value.startsWith('/')) return;
  if (w.expansions.length > 0 || at.expansions.length > 0) return;
  const dirs = atIsDirectory ? [at.value] : [path.posix.dirname(at.value), at.value];
  for (const dir of dirs) {
    if (dir === '.' || dir === '') continue;
    const joined = path.posix.join(dir, w.value);
    sink.alias({ ...w, value: joined, raw: joined });
  }
}

const SHRED_RULES: OptionRules = {
  options: [
    'f|force',
    'n|iterations=',
    'random-source=',
    's|size=',
    'u',
    'remove?',
    'v|verbose',
    'x|exact',
    'z|zero',
  ],
  anyOption: true,
  effects: { 'random-source': 'read' },
  coded: { remove: 'removes' },
};

const shred: CommandSpec = {
  rules: SHRED_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SHRED_RULES);
    const removes = parsed.options.some((o) => o.id === 'u' || o.id === 'remove');
    for (const w of parsed.operands) {
      if (removes) sink.remove(w, `shred -u overwrites and deletes ${w.raw}`);
      else sink.write(w, 'modify', `shred overwrites the contents of ${w.raw}`);
    }
  },
};

/** chmod/chown/chgrp: a change of metadata; recursive ones are destructive (they cannot be undone). */
function permissions(options: readonly string[], leadingOperands: number): CommandSpec {
  const rules: OptionRules = {
    options,
    anyOption: true,
    effects: { reference: 'read' },
    coded: { recursive: 'changes-system' },
  };
  return {
    rules: rules,
    analyze(ctx, sink) {
      const parsed = applyOptions(ctx, sink, rules);
      const recursive = parsed.options.some((o) => o.id === 'recursive');
      const hasReference = parsed.options.some((o) => o.id === 'reference');
      // chmod modes like -x look like options; GNU accepts them as the mode.
      const modeAsOption = ctx.name === 'chmod' && parsed.unknown.length > 0 && !hasReference;
      const skip = hasReference || modeAsOption ? 0 : leadingOperands;
      const targets = parsed.operands.slice(skip);
      for (const w of targets)
        sink.write(w, 'attributes', `${ctx.name} changes the permissions or owner of ${w.raw}`);
      if (recursive)
        sink.change(`${ctx.name} -R changes every file below ${targets.map((t) => t.raw).join(' ')}`, true);
      else if (ctx.repeated) sink.change(`${ctx.name} runs for every file found, across a whole tree`, true);
    },
  };
}

const PERMISSION_OPTIONS = [
  'c|changes',
  'f|silent|quiet',
  'v|verbose',
  'R|recursive',
  'reference=',
  'preserve-root',
  'no-preserve-root',
  'dereference',
  'h|no-dereference',
  'from=',
  'H',
  'L',
  'P',
];
const chmod = permissions(PERMISSION_OPTIONS, 1);
const chown = permissions(PERMISSION_OPTIONS, 1);
const chgrp = permissions(PERMISSION_OPTIONS, 1);

const TRUNCATE_RULES: OptionRules = {
  options: ['c|no-create', 'o|io-blocks', 'r|reference=', 's|size='],
  anyOption: true,
  effects: { reference: 'read' },
};

const truncate: CommandSpec = {
  rules: TRUNCATE_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, TRUNCATE_RULES);
    for (const w of parsed.operands) sink.write(w, 'modify', `truncate changes the size of ${w.raw}`);
  },
};

/** dd: if= is read, of= is written (and truncated unless conv=notrunc). */
const dd: CommandSpec = {
  analyze(ctx, sink) {
    for (const w of ctx.args) {
      const m = /^(if|of)=(.*)$/s.exec(w.value);
      if (m === null) {
        if (
          !/^(bs|ibs|obs|cbs|count|skip|seek|iseek|oseek|conv|iflag|oflag|status)=/.test(w.value) &&
          !/^--?(help|version)$/.test(w.value)
        ) {
          sink.notUnderstood(`dd: unknown operand ${w.raw}`);
        }
        continue;
      }
      const target = { ...w, value: m[2]! };
      if (m[1] === 'if') sink.read(target);
      else if (!['/dev/null', '/dev/stdout', '/dev/stderr'].includes(target.value))
        sink.write(target, 'overwrite', `dd of= writes ${target.raw}`);
    }
  },
};

/** split and csplit write numbered pieces next to a prefix. */
const SPLIT_RULES: OptionRules = {
  options: [
    'a|suffix-length=',
    'additional-suffix=',
    'b|bytes=',
    'C|line-bytes=',
    'd',
    'numeric-suffixes?',
    'x',
    'hex-suffixes?',
    'e|elide-empty-files',
    'filter=',
    'l|lines=',
    'n|number=',
    't|separator=',
    'u|unbuffered',
    'verbose',
    'f|prefix=',
    'k|keep-files',
    'z|elide-empty-files',
    's|quiet|silent',
    'b|suffix-format=',
    'suppress-matched',
  ],
  anyOption: true,
  effects: { filter: 'exec' },
};

const split: CommandSpec = {
  rules: SPLIT_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SPLIT_RULES);
    const [input, prefix] = parsed.operands;
    if (input && input.value !== '-') sink.read(input);
    const out = prefix ?? { value: 'x', raw: 'x', expansions: [], dynamicStart: false };
    sink.write(
      { ...out, value: `${out.value}*` },
      'overwrite',
      `${ctx.name} writes pieces named ${out.raw}...`,
    );
  },
};

const PATCH_RULES: OptionRules = {
  options: [
    'b|backup',
    'B|prefix=',
    'd|directory=',
    'D|ifdef=',
    'dry-run',
    'E|remove-empty-files',
    'f|force',
    'F|fuzz=',
    'i|input=',
    'l|ignore-whitespace',
    'N|forward',
    'o|output=',
    'p|strip=',
    'r|reject-file=',
    'R|reverse',
    's|silent|quiet',
    't|batch',
    'u|unified',
    'V|version-control=',
    'verbose',
    'z|suffix=',
    'c|context',
    'e|ed',
    'n|normal',
    'binary',
    'merge?',
    'posix',
    'Y|basename-prefix=',
    'backup-if-mismatch',
    'no-backup-if-mismatch',
    'follow-symlinks',
    'read-only=',
  ],
  anyOption: true,
  effects: { input: 'read', 'reject-file': 'write', output: 'write' },
};

const patch: CommandSpec = {
  rules: PATCH_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, PATCH_RULES);
    if (parsed.options.some((o) => o.id === 'dry-run')) return;
    const target = parsed.operands[0];
    sink.write(
      target ?? dynamic('(files named in the patch)'),
      'modify',
      `patch changes ${target ? target.raw : 'the files named in the patch'}`,
    );
  },
};

const MKTEMP_RULES: OptionRules = {
  options: ['d|directory', 'u|dry-run', 'q|quiet', 'p|tmpdir?', 't', 'suffix='],
  anyOption: true,
};

const mktemp: CommandSpec = {
  rules: MKTEMP_RULES,
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, MKTEMP_RULES);
    if (parsed.options.some((o) => o.id === 'dry-run')) return;
    sink.write(dynamic('(a new temporary file)'), 'create', 'mktemp creates a temporary file');
  },
};

function dynamic(text: string): Word {
  return { value: text, raw: text, expansions: ['variable'], dynamicStart: false };
}

export const FILESYSTEM: CommandTable = {
  tail,
  xxd,
  file: fileCmd,
  less,
  cp: { ...copyLike('cp'), traits: ['edit'] },
  mv: { ...copyLike('mv'), traits: ['edit'] },
  install: copyLike('install'),
  ln: copyLike('ln'),
  shred,
  chmod,
  chown,
  chgrp,
  truncate,
  dd,
  split,
  csplit: split,
  patch,
  mktemp,
  sync: { analyze: (_ctx, sink) => sink.change('sync flushes file system buffers', false) },
};
