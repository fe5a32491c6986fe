import { scanAwkProgram } from '../../commands/awk-program.js';
import type { EffectSink } from '../../commands/spec.js';
import { parseOptions } from '../../options.js';
import { staticWord, type Word } from '../../word.js';
import type { CatalogueEntry } from '../entry.js';

/** The options whose effects have an optional value or name a file of code (not getopt's plain effects). */
const OPTION_EFFECTS: Readonly<Record<string, (v: Word | undefined, s: EffectSink) => void>> = {
  file: (v, s) => s.opaque(`awk -f runs the program in ${v?.raw ?? 'a file'}`),
  exec: (v, s) => s.opaque(`awk -E runs the program in ${v?.raw ?? 'a file'}`),
  include: (v, s) => s.opaque(`awk -i loads ${v?.raw ?? 'a library'}`),
  load: (v, s) => s.opaque(`awk -l loads the extension ${v?.raw ?? ''}`),
  // Given no file, gawk writes these to awkvars.out and awkprof.out (checked with gawk 5.2.1).
  'dump-variables': (v, s) =>
    s.write(v ?? staticWord('awkvars.out'), 'overwrite', `awk -d writes ${v?.raw ?? 'awkvars.out'}`),
  'pretty-print': (v, s) =>
    s.write(v ?? staticWord('awkprof.out'), 'overwrite', `awk -o writes ${v?.raw ?? 'awkprof.out'}`),
  profile: (v, s) => s.write(v ?? staticWord('awkprof.out'), 'overwrite', 'awk -p writes a profile'),
  debug: (_v, s) => s.notUnderstood('awk -D starts the interactive debugger'),
  W: (_v, s) => s.notUnderstood('awk -W options are not modelled'),
};

/** awk: its program writes (`print > f`), reads (`getline < f`) and runs (`system`, `|`) by its own syntax. */
export const AWK: CatalogueEntry = {
  name: 'awk',
  aliases: ['gawk', 'mawk', 'nawk'],
  summary:
    'pattern scanning language: reads its files and prints, unless its program writes or runs commands',
  options: {
    'F|field-separator=': 'harmless',
    'v|assign=': 'harmless',
    'f|file=': 'runs-code',
    'e|source=': 'harmless',
    'E|exec=': 'runs-code',
    'i|include=': 'runs-code',
    'l|load=': 'runs-code',
    'b|characters-as-bytes': 'harmless',
    'c|traditional': 'harmless',
    'C|copyright': 'harmless',
    'd|dump-variables?': 'writes',
    'D|debug?': 'unmodelled',
    'g|gen-pot': 'harmless',
    'h|help': 'harmless',
    'L|lint?': 'harmless',
    'M|bignum': 'harmless',
    'N|use-lc-numeric': 'harmless',
    'n|non-decimal-data': 'harmless',
    'o|pretty-print?': 'writes',
    'O|optimize': 'harmless',
    'p|profile?': 'writes',
    'P|posix': 'harmless',
    'r|re-interval': 'harmless',
    's|no-optimize': 'harmless',
    'S|sandbox': 'harmless',
    't|lint-old': 'harmless',
    'V|version': 'harmless',
    'W=': 'unmodelled',
  },
  unknownOptions: 'fail',
  shape: {
    kind: 'escape',
    why: 'the program writes, reads and runs commands by its own syntax; -f, -E, -i and -l load code from files',
    handles: Object.keys(OPTION_EFFECTS),
    analyze(ctx, sink, parsed) {
      const p = parsed!;
      for (const o of p.options) OPTION_EFFECTS[o.id]?.(o.value, sink);
      const ids = p.options.map((o) => o.id);
      const sandboxed = ids.includes('sandbox');
      const programs = p.options.filter((o) => o.id === 'source').map((o) => o.value!);
      const operands = [...p.operands];
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
          else sink.runScript(staticWord(cmd), 'awk');
        }
        for (const file of found.writes) {
          sink.write(
            file === ''
              ? { ...staticWord('(a file named at run time)'), expansions: ['variable'] }
              : staticWord(file),
            'overwrite',
            `awk print > writes ${file || 'a file named at run time'}`,
          );
        }
        for (const file of found.network) sink.network(`awk opens a connection through ${file}`, true);
        for (const file of found.reads) {
          if (file === '') sink.notUnderstood('awk reads a file named at run time');
          else sink.read(staticWord(file));
        }
      }
      // awk stops reading options at its program, where the parse above reads on as GNU getopt
      // does: `awk 1 -F .env` reads the files -F and .env (tried: gawk 5.2.1, mawk 1.3.4). What
      // those options would do stays reported (fail closed), and their words are read as files.
      const asAwk = parseOptions(ctx.args, p.table, { permute: false });
      const hasProgram = !asAwk.options.some((o) => o.id === 'file' || o.id === 'exec' || o.id === 'source');
      const files = new Set(operands);
      for (const w of asAwk.operands.slice(hasProgram ? 1 : 0)) files.add(w);
      for (const w of files) {
        // `var=value` operands are assignments, not files.
        if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w.value)) continue;
        sink.read(w);
      }
    },
  },
  examples: {
    readOnly: ["awk '{print $1}' access.log", "awk -F: '{print $1}' /etc/passwd", "awk 'NR==1' x=1 f"],
    notReadOnly: ['awk "$PROG" f', "awk -W sandbox '{print}' f"],
    destructive: [
      'awk \'BEGIN{system("rm -rf /")}\'',
      'awk \'{print > "out.txt"}\' f',
      'awk -f prog.awk data',
      'awk -p /dev/null f',
      "awk -d '{print}' f",
      "gawk --pretty-print '{print}' f",
    ],
  },
};
