import { scanAwkProgram } from '../../../../src/bash/commands/awk-program.js';
import { scanSedScript } from '../../../../src/bash/commands/sed-script.js';
import {
  applyOptions,
  type CommandSpec,
  type CommandTable,
  type EffectSink,
  type OptionRules,
  printer,
  reader,
} from '../../../../src/bash/commands/spec.js';
import { wordMayBeOption } from '../../../../src/bash/option-risk.js';
import type { Word } from '../../../../src/bash/word.js';

/** Text filters: they read files and print. The exceptions are the options and scripts that write or run. */

const anyReader = (options: readonly string[] = [], effects?: OptionRules['effects']): CommandSpec =>
  reader({ options, anyOption: true, effects });

function literalWord(value: string): Word {
  return { value, raw: value, expansions: [], dynamicStart: false };
}

// ---------------------------------------------------------------- sed

const SED_RULES: OptionRules = {
  options: [
    'n|quiet|silent',
    'e|expression=',
    'f|file=',
    'i|in-place?',
    'I',
    'E|r|regexp-extended',
    's|separate',
    'u|unbuffered',
    'z|null-data',
    'l|line-length=',
    'posix',
    'sandbox',
    'debug',
    'follow-symlinks',
    'b|binary',
    'help',
    'version',
  ],
  // -i takes its suffix attached only (`-i.bak`); `-i -e` must not eat -e as the suffix.
  effects: {},
};

const sed: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SED_RULES);
    const ids = parsed.options.map((o) => o.id);
    const inPlace = ids.includes('in-place') || ids.includes('I');
    const sandboxed = ids.includes('sandbox');
    const scripts: Word[] = parsed.options.filter((o) => o.id === 'expression').map((o) => o.value!);
    const operands = [...parsed.operands];
    if (ids.includes('file')) {
      for (const o of parsed.options)
        if (o.id === 'file')
          sink.opaque(`sed -f runs the script in ${o.value?.raw ?? 'a file'}, which the line does not show`);
    } else if (scripts.length === 0) {
      const script = operands.shift();
      if (script === undefined) {
        sink.notUnderstood('sed without a script');
        return;
      }
      scripts.push(script);
    }
    for (const script of scripts) {
      if (script.expansions.length > 0) {
        sink.notUnderstood(`sed: the script "${script.raw}" is only known at run time`);
        continue;
      }
      const found = scanSedScript(script.value);
      if (found.problem) sink.notUnderstood(`sed: ${found.problem}`);
      if (sandboxed) continue;
      for (const cmd of found.runs) {
        if (cmd === '') sink.opaque('sed s///e runs the pattern space as a shell command');
        else sink.runScript(literalWord(cmd), 'sed e');
      }
      for (const file of found.writes) {
        if (file !== '/dev/stdout' && file !== '/dev/stderr')
          sink.write(literalWord(file), 'overwrite', `sed w writes ${file}`);
      }
      for (const file of found.reads) sink.read(literalWord(file));
    }
    for (const w of operands) {
      if (inPlace) sink.write(w, 'modify', `sed -i edits ${w.raw} in place`);
      else sink.read(w);
    }
  },
};

// ---------------------------------------------------------------- awk

const AWK_RULES: OptionRules = {
  options: [
    'F|field-separator=',
    'v|assign=',
    'f|file=',
    'e|source=',
    'E|exec=',
    'i|include=',
    'l|load=',
    'b|characters-as-bytes',
    'c|traditional',
    'C|copyright',
    'd|dump-variables?',
    'D|debug?',
    'g|gen-pot',
    'h|help',
    'L|lint?',
    'M|bignum',
    'N|use-lc-numeric',
    'n|non-decimal-data',
    'o|pretty-print?',
    'O|optimize',
    'p|profile?',
    'P|posix',
    'r|re-interval',
    's|no-optimize',
    'S|sandbox',
    't|lint-old',
    'V|version',
    'W=',
  ],
  effects: {
    file: (v, s) => s.opaque(`awk -f runs the program in ${v?.raw ?? 'a file'}`),
    exec: (v, s) => s.opaque(`awk -E runs the program in ${v?.raw ?? 'a file'}`),
    include: (v, s) => s.opaque(`awk -i loads ${v?.raw ?? 'a library'}`),
    load: (v, s) => s.opaque(`awk -l loads the extension ${v?.raw ?? ''}`),
    'dump-variables': (v, s) => v && s.write(v, 'overwrite', `awk -d writes ${v.raw}`),
    'pretty-print': (v, s) => v && s.write(v, 'overwrite', `awk -o writes ${v.raw}`),
    profile: (v, s) => s.write(v ?? literalWord('awkprof.out'), 'overwrite', 'awk -p writes a profile'),
    debug: (_v, s) => s.notUnderstood('awk -D starts the interactive debugger'),
    W: (_v, s) => s.notUnderstood('awk -W options are not modelled'),
  },
};

const awk: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, AWK_RULES);
    const ids = parsed.options.map((o) => o.id);
    const sandboxed = ids.includes('sandbox');
    const programs = parsed.options.filter((o) => o.id === 'source').map((o) => o.value!);
    const operands = [...parsed.operands];
    if (!ids.some((id) => id === 'file' || id === 'exec') && programs.length === 0) {
      const program = operands.shift();
      if (program === undefined) return;
      programs.push(program);
    }
    for (const program of programs) {
      if (program.expansions.length > 0) {
        sink.notUnderstood(`awk: the program "${program.raw}" is only known at run time`);
        continue;
      }
      const found = scanAwkProgram(program.value);
      if (found.problem) sink.notUnderstood(`awk: ${found.problem}`);
      if (sandboxed) continue;
      for (const cmd of found.runs) {
        if (cmd === '') sink.opaque('awk runs a shell command built at run time');
        else sink.runScript(literalWord(cmd), 'awk');
      }
      for (const file of found.writes) {
        sink.write(
          file === ''
            ? { ...literalWord('(a file named at run time)'), expansions: ['variable'] }
            : literalWord(file),
          'overwrite',
          `awk print > writes ${file || 'a file named at run time'}`,
        );
      }
      for (const file of found.reads) {
        if (file === '') sink.notUnderstood('awk reads a file named at run time');
        else sink.read(literalWord(file));
      }
    }
    for (const w of operands) {
      // `var=value` operands are assignments, not files.
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)) continue;
      sink.read(w);
    }
  },
};

// ---------------------------------------------------------------- sort, uniq and other filters

const sort = anyReader(
  [
    'b|ignore-leading-blanks',
    'c|check?',
    'C',
    'compress-program=',
    'debug',
    'd|dictionary-order',
    'files0-from=',
    'f|ignore-case',
    'g|general-numeric-sort',
    'h|human-numeric-sort',
    'i|ignore-nonprinting',
    'k|key=',
    'm|merge',
    'M|month-sort',
    'n|numeric-sort',
    'o|output=',
    'parallel=',
    'random-source=',
    'R|random-sort',
    'r|reverse',
    's|stable',
    'S|buffer-size=',
    'sort=',
    't|field-separator=',
    'T|temporary-directory=',
    'u|unique',
    'V|version-sort',
    'z|zero-terminated',
    'batch-size=',
  ],
  { output: 'write', 'compress-program': 'exec', 'files0-from': 'read', 'random-source': 'read' },
);

/** uniq [INPUT [OUTPUT]]: the second operand is a file it writes. */
const UNIQ_RULES: OptionRules = {
  options: [
    'c|count',
    'd|repeated',
    'D',
    'all-repeated?',
    'f|skip-fields=',
    'group?',
    'i|ignore-case',
    's|skip-chars=',
    'u|unique',
    'w|check-chars=',
    'z|zero-terminated',
  ],
  anyOption: true,
  parse: { numericOption: 'skip-fields' },
};

const uniq: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, UNIQ_RULES);
    const [input, output, ...extra] = parsed.operands;
    if (input && input.value !== '-') sink.read(input);
    if (output) sink.write(output, 'overwrite', `uniq writes its output to ${output.raw}`);
    if (extra.length > 0) sink.notUnderstood('uniq: extra operands');
    if (ctx.extraArgs) sink.notUnderstood('uniq: arguments appended at run time could name an output file');
  },
};

const TEE_RULES: OptionRules = {
  options: ['a|append', 'i|ignore-interrupts', 'p', 'output-error?'],
  anyOption: true,
};

const tee: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, TEE_RULES);
    const append = parsed.options.some((o) => o.id === 'append');
    for (const w of parsed.operands) {
      if (w.expansions.length === 1 && w.expansions[0] === 'process') continue; // >(cmd): a pipe
      if (w.value === '/dev/null' || w.value === '/dev/stderr' || w.value === '/dev/stdout') continue;
      sink.write(w, append ? 'append' : 'overwrite', `tee ${append ? 'appends to' : 'writes'} ${w.raw}`);
    }
  },
};

const SHUF_RULES: OptionRules = {
  options: [
    'e|echo',
    'i|input-range=',
    'n|head-count=',
    'o|output=',
    'random-source=',
    'r|repeat',
    'z|zero-terminated',
  ],
  anyOption: true,
  effects: { output: 'write', 'random-source': 'read' },
};

const shuf: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, SHUF_RULES);
    if (parsed.options.some((o) => o.id === 'echo' || o.id === 'input-range')) return;
    for (const w of parsed.operands) sink.read(w);
  },
};

const iconv = anyReader(['f|from-code=', 't|to-code=', 'o|output='], { output: 'write' });

/** jq FILTER [FILES]; `--arg name value` and friends take two values. */
const jq: CommandSpec = {
  analyze(ctx, sink) {
    const args = ctx.args;
    let filterSeen = false;
    let fromFile = false;
    for (let i = 0; i < args.length; i++) {
      const w = args[i]!;
      const v = w.value;
      if (v === '--args' || v === '--jsonargs') break;
      if (wordMayBeOption(w, ctx.line) && !filterSeen) {
        sink.notUnderstood(`jq: "${w.raw}" is only known at run time`);
        continue;
      }
      if (['--arg', '--argjson'].includes(v)) {
        i += 2;
        continue;
      }
      if (['--slurpfile', '--rawfile'].includes(v)) {
        if (args[i + 2]) sink.read(args[i + 2]!);
        i += 2;
        continue;
      }
      if (['-f', '--from-file'].includes(v)) {
        if (args[i + 1]) sink.read(args[i + 1]!);
        fromFile = true;
        filterSeen = true;
        i += 1;
        continue;
      }
      if (['--indent', '-L', '--library-path'].includes(v) || v === '--seq' || v === '--tab') {
        if (v !== '--seq' && v !== '--tab') i += 1;
        continue;
      }
      if (v.startsWith('-') && v.length > 1) continue;
      if (!filterSeen) {
        filterSeen = true;
        continue;
      }
      sink.read(w);
    }
    void fromFile;
  },
};

/** yq (Go and Python): `-i` edits files in place. */
const YQ_RULES: OptionRules = {
  options: [
    'i|inplace|in-place',
    'e|exit-status',
    'o|output-format=',
    'p|input-format=',
    'I|indent=',
    'P|prettyPrint',
    'r|raw-output',
    'y|yaml-output',
    'front-matter=',
    'expression=',
    'from-file=',
    'arg=',
    'argjson=',
  ],
  anyOption: true,
  effects: { 'from-file': 'read' },
};

const yq: CommandSpec = {
  analyze(ctx, sink) {
    const parsed = applyOptions(ctx, sink, YQ_RULES);
    const inPlace = parsed.options.some((o) => o.id === 'inplace');
    const [, ...files] = parsed.operands;
    for (const w of files) {
      if (inPlace) sink.write(w, 'modify', `yq -i edits ${w.raw} in place`);
      else sink.read(w);
    }
  },
};

const base64 = anyReader(
  ['d|decode', 'D', 'i|ignore-garbage', 'w|wrap=', 'b|break=', 'o|output=', 'input='],
  { output: 'write', input: 'read' },
);

/** printf-like formatters whose operands are data. */
const echoLike = printer();

const column = anyReader([
  'c|output-width=',
  's|separator=',
  'o|output-separator=',
  'N|table-columns=',
  'E|table-noextreme=',
  'H|table-hide=',
  'R|table-right=',
  'T|table-truncate=',
  'W|table-wrap=',
  'O|table-order=',
  'n|table-name=',
  'd|table-noheadings',
  'l|table-columns-limit=',
  'r|tree=',
  'i|tree-id=',
  'p|tree-parent=',
]);

export const TEXT: CommandTable = {
  sed,
  gsed: sed,
  awk,
  gawk: awk,
  mawk: awk,
  nawk: awk,
  sort,
  uniq,
  tee,
  shuf,
  iconv,
  jq,
  gojq: jq,
  yq,
  base64,
  base32: base64,
  basenc: base64,
  cut: anyReader(['b|bytes=', 'c|characters=', 'd|delimiter=', 'f|fields=', 'output-delimiter=']),
  paste: anyReader(['d|delimiters=']),
  join: anyReader(['a=', 'e=', 'j=', 'o=', 't=', 'v=', '1=', '2=']),
  column,
  fold: anyReader(['w|width=']),
  fmt: anyReader(['p|prefix=', 'w|width=', 'g|goal=']),
  expand: anyReader(['t|tabs=']),
  unexpand: anyReader(['t|tabs=']),
  rev: anyReader(),
  pr: anyReader([
    'h|header=',
    'l|length=',
    'w|width=',
    'W|page-width=',
    'o|indent=',
    'N|first-line-number=',
    's|separator?',
    'S|sep-string?',
    'e|expand-tabs?',
    'i|output-tabs?',
    'n|number-lines?',
    'c|show-control-chars',
  ]),
  tsort: anyReader(),
  numfmt: printer(),
  tr: echoLike,
  echo: echoLike,
  seq: echoLike,
  expr: echoLike,
  factor: echoLike,
  yes: { analyze: (_ctx, sink) => sink.lingers('yes prints forever') },
  look: anyReader(['t|terminate=']),
  bc: anyReader(),
  zcat: anyReader(),
  bzcat: anyReader(),
  xzcat: anyReader(),
  zstdcat: anyReader(),
  lz4cat: anyReader(),
  zless: anyReader(),
  zmore: anyReader(),
  zdiff: anyReader(),
  zcmp: anyReader(),
  csvlook: anyReader(),
  ts: echoLike,
};

/** Helpers reused by other families. */
export function readAll(words: readonly Word[], sink: EffectSink): void {
  for (const w of words) sink.read(w);
}
