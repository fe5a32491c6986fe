import {
  applyOptions,
  type CommandContext,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
} from '../../commands/spec.js';
import { dynamicWord, type Word } from '../../word.js';

/**
 * Archives and compression. Listing and printing to stdout read; extracting overwrites files;
 * compressing in place replaces the original. tar's options include several that run programs
 * (--to-command, --checkpoint-action=exec, -I, --info-script, --rsh-command).
 */

const literal = (value: string): Word => ({ value, raw: value, expansions: [], dynamicStart: false });

/** A path operand taken relative to a directory option (`tar -C dir member`). */
function under(dir: Word, member: Word): Word {
  if (member.expansions.length === 0 && member.value.startsWith('/')) return member;
  if (dir.expansions.length > 0 || member.expansions.length > 0)
    return dynamicWord(`${dir.raw}/${member.raw}`);
  return literal(dir.value.endsWith('/') ? `${dir.value}${member.value}` : `${dir.value}/${member.value}`);
}

const TAR_OPTIONS = [
  'A|catenate|concatenate',
  'c|create',
  'd|diff|compare',
  'delete',
  'r|append',
  't|list',
  'test-label',
  'u|update',
  'x|extract|get',
  'f|file=',
  'C|directory=',
  'T|files-from=',
  'X|exclude-from=',
  'exclude=',
  'I|use-compress-program=',
  'to-command=',
  'checkpoint?',
  'checkpoint-action=',
  'F|info-script|new-volume-script=',
  'rmt-command=',
  'rsh-command=',
  'g|listed-incremental=',
  'index-file=',
  'remove-files',
  'O|to-stdout',
  'k|keep-old-files',
  'skip-old-files',
  'keep-newer-files',
  'overwrite',
  'overwrite-dir',
  'force-local',
  'z|gzip|gunzip|ungzip',
  'j|bzip2',
  'J|xz',
  'Z|compress|uncompress',
  'zstd',
  'lzip',
  'lzma',
  'lzop',
  'a|auto-compress',
  'v|verbose',
  'w|interactive|confirmation',
  'p|preserve-permissions|same-permissions',
  'P|absolute-names',
  'h|dereference',
  'strip-components=',
  'transform|xform=',
  'b|blocking-factor=',
  'L|tape-length=',
  'N|newer|after-date=',
  'V|label=',
  'K|starting-file=',
  'H|format=',
  'owner=',
  'group=',
  'mode=',
  'mtime=',
  'sort=',
  'wildcards',
  'no-same-owner',
  'no-same-permissions',
  'numeric-owner',
  'totals?',
  'warning=',
  'one-file-system',
  'anchored',
  'exclude-vcs',
  'exclude-vcs-ignores',
  'ignore-failed-read',
  'sparse|S',
  'null',
  'verify|W',
  'B|read-full-records',
  'i|ignore-zeros',
  'm|touch',
  's|preserve-order|same-order',
  'U|unlink-first',
  'recursive-unlink',
  'l|check-links',
  'R|block-number',
  'q|quiet',
  'show-transformed-names',
  'show-stored-names',
  'utc',
  'full-time',
  'no-recursion',
  'recursion',
  'acls',
  'xattrs',
  'selinux',
  'help',
  'version',
];

/** `tar xzf a.tar` (no dash): old-style bundled letters take their values from the following words. */
function normalizeTarArgs(args: readonly Word[]): Word[] {
  const first = args[0];
  if (first === undefined || first.value.startsWith('-') || first.expansions.length > 0) return [...args];
  return [{ ...first, value: `-${first.value}` }, ...args.slice(1)];
}

const TAR_RULES: OptionRules = {
  options: TAR_OPTIONS,
  effects: {
    'use-compress-program': 'exec',
    'to-command': 'script',
    // One action a word; without --checkpoint, tar checks every 10 records (GNU tar 1.34, tried).
    'checkpoint-action': (v, s) => {
      const m = v ? /^(exec|ttyout)=(.*)$/s.exec(v.value) : null;
      if (m?.[1] === 'exec') s.runScript({ ...v!, value: m[2]! }, 'tar --checkpoint-action=exec');
      // wait=SIG stops tar at the first checkpoint until something sends it the signal.
      else if (v && /^wait=/.test(v.value)) s.lingers(`tar --checkpoint-action=${v.raw} waits for a signal`);
      else if (v === undefined || !/^(bell|dot|echo|\.|sleep=\d+|totals|echo=.*|ttyout=.*)$/s.test(v.value)) {
        s.notUnderstood(`tar --checkpoint-action=${v?.raw ?? ''} is not modelled`);
      }
    },
    'info-script': 'exec',
    'rmt-command': 'exec',
    'rsh-command': 'exec',
    'files-from': 'read-list',
    'exclude-from': 'read',
    'listed-incremental': 'write',
    'index-file': 'write',
  },
  coded: { 'checkpoint-action': 'runs-code' },
};

const tar: CommandSpec = {
  rules: TAR_RULES,
  analyze(ctx, sink) {
    const args = normalizeTarArgs(ctx.args);
    const parsed = applyOptions({ ...ctx, args }, sink, TAR_RULES);
    const ids = new Set(parsed.options.map((o) => o.id));
    const archive = parsed.options.find((o) => o.id === 'file')?.value;
    if (archive && /^[^/]+:/.test(archive.value) && !ids.has('force-local')) {
      sink.network(`tar -f ${archive.raw} uses an archive on another machine`, true);
    }
    const members = parsed.operands;
    if (ids.has('list') || ids.has('diff') || ids.has('test-label')) {
      if (archive) sink.read(archive);
      return;
    }
    if (ids.has('extract')) {
      if (archive) sink.read(archive);
      if (ids.has('to-stdout')) return;
      const dir = parsed.options.find((o) => o.id === 'directory')?.value ?? literal('.');
      const keep = ids.has('keep-old-files') || ids.has('skip-old-files');
      sink.write(
        dir,
        keep ? 'create' : 'overwrite',
        `tar -x extracts files into ${dir.raw}${keep ? '' : ', overwriting what is there'}`,
      );
      return;
    }
    if (ids.has('create')) {
      // Members are read all the way down (unless --no-recursion), relative to -C's directory.
      const dir = parsed.options.find((o) => o.id === 'directory')?.value;
      const how = { skipsHidden: false, followsLinks: ids.has('dereference') };
      for (const m of members) {
        const member = dir === undefined ? m : under(dir, m);
        if (ids.has('no-recursion')) sink.read(member);
        else sink.readTree(member, how);
      }
      if (archive && archive.value !== '-')
        sink.write(archive, 'overwrite', `tar -c writes the archive ${archive.raw}`);
      if (ids.has('remove-files'))
        for (const m of members) sink.remove(m, `tar --remove-files deletes ${m.raw}`);
      return;
    }
    if (ids.has('append') || ids.has('update') || ids.has('catenate') || ids.has('delete')) {
      sink.write(archive ?? literal('(archive)'), 'modify', `tar changes the archive ${archive?.raw ?? ''}`);
      return;
    }
    if (ids.has('help') || ids.has('version')) return;
    sink.notUnderstood('tar without -c, -x or -t');
  },
};

/** gzip and friends compress in place (replacing the original) unless writing to stdout. */
function compressor(stdoutFlags: RegExp, readOnlyFlags: RegExp): CommandSpec {
  return {
    analyze(ctx, sink) {
      const flags = ctx.args.filter((w) => w.value.startsWith('-') && w.value !== '-').map((w) => w.value);
      const files = ctx.args.filter((w) => !w.value.startsWith('-') || w.value === '-');
      const toStdout = flags.some((f) => stdoutFlags.test(f) || (/^-[a-zA-Z0-9]+$/.test(f) && /c/.test(f)));
      const checks = flags.some(
        (f) => readOnlyFlags.test(f) || (/^-[a-zA-Z0-9]+$/.test(f) && /[lt]/.test(f)),
      );
      for (const f of files) if (f.value !== '-') sink.read(f);
      if (toStdout || checks || files.length === 0) return;
      const keep = flags.some((f) => /^(-k|--keep)$/.test(f) || (/^-[a-zA-Z0-9]+$/.test(f) && /k/.test(f)));
      for (const f of files) {
        if (keep)
          sink.write(
            { ...f, value: `${f.value}(.out)` },
            'create',
            `${ctx.name} writes a (de)compressed copy of ${f.raw}`,
          );
        else sink.remove(f, `${ctx.name} replaces ${f.raw} with a (de)compressed file`);
      }
    },
  };
}

const gzipLike = compressor(/^(--stdout|--to-stdout)$/, /^(--list|--test)$/);

const unzip: CommandSpec = {
  analyze(ctx, sink) {
    const flags = ctx.args.filter((w) => w.value.startsWith('-')).map((w) => w.value);
    const archive = ctx.args.find((w) => !w.value.startsWith('-'));
    if (archive) sink.read(archive);
    // List, test, show the comment, or extract to stdout (-p, -c): no file is written.
    if (flags.some((f) => /^-[a-zA-Z]*[lvtzpcZ]/.test(f))) return;
    const dirIndex = ctx.args.findIndex((w) => w.value === '-d');
    const dir = dirIndex >= 0 ? ctx.args[dirIndex + 1] : undefined;
    const keep = flags.some((f) => /^-[a-zA-Z]*n/.test(f));
    sink.write(
      dir ?? literal('.'),
      keep ? 'create' : 'overwrite',
      `unzip extracts files${keep ? '' : ', overwriting what is there'}`,
    );
  },
};

const zip: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (v === '-TT' || v === '--unzip-command') {
        if (args[i + 1]) sink.runScript(args[i + 1]!, 'zip -TT');
      } else if (v.startsWith('--unzip-command='))
        sink.runScript({ ...args[i]!, value: v.slice(16) }, 'zip -TT');
    }
    const flags = args.filter((w) => w.value.startsWith('-')).map((w) => w.value);
    const operands = args.filter((w) => !w.value.startsWith('-'));
    const archive = operands[0];
    if (flags.some((f) => /^(-m|--move)$/.test(f) || /^-[a-zA-Z]*m/.test(f))) {
      for (const w of operands.slice(1)) sink.remove(w, `zip -m deletes ${w.raw} after adding it`);
    }
    const recursive = flags.some(
      (f) => /^(-r|--recurse-paths|-R|--recurse-patterns)$/.test(f) || /^-[a-zA-Z]*[rR]/.test(f),
    );
    const how = { skipsHidden: false, followsLinks: true };
    for (const w of operands.slice(1)) {
      if (recursive) sink.readTree(w, how);
      else sink.read(w);
    }
    if (archive) sink.write(archive, 'modify', `zip writes the archive ${archive.raw}`);
  },
};

function archiver(readVerbs: RegExp): (ctx: CommandContext, sink: EffectSink) => void {
  return (ctx, sink) => {
    const verb = ctx.args[0]?.value.replace(/^-/, '');
    const archive = ctx.args.find((w, i) => i > 0 && !w.value.startsWith('-'));
    if (archive) sink.read(archive);
    if (verb !== undefined && readVerbs.test(verb)) return;
    sink.write(archive ?? literal('(archive)'), 'overwrite', `${ctx.name} ${verb ?? ''} writes files`);
  };
}

export const ARCHIVE: CommandTable = {
  tar,
  gtar: tar,
  bsdtar: tar,
  gzip: gzipLike,
  gunzip: gzipLike,
  bzip2: gzipLike,
  bunzip2: gzipLike,
  xz: gzipLike,
  unxz: gzipLike,
  lzma: gzipLike,
  unlzma: gzipLike,
  zstd: compressor(/^(--stdout)$/, /^(--list|--test|-l|-t)$/),
  unzstd: gzipLike,
  lz4: gzipLike,
  pigz: gzipLike,
  compress: gzipLike,
  uncompress: gzipLike,
  zip,
  unzip,
  '7z': { analyze: archiver(/^[lt]$/) },
  '7za': { analyze: archiver(/^[lt]$/) },
  ar: { analyze: archiver(/^[tp]/) },
  unrar: { analyze: archiver(/^[lt]/) },
};
