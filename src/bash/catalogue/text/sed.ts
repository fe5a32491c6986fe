import { HELP_OR_VERSION, onlyAsks } from '../../commands/only-asks.js';
import { scanSedScript } from '../../commands/sed-script.js';
import { staticWord, type Word } from '../../word.js';
import type { CatalogueEntry } from '../entry.js';

/** sed: its script is a language of its own (`w file`, `e cmd`, `s///e`), read by scanSedScript. */
export const SED: CatalogueEntry = {
  name: 'sed',
  aliases: ['gsed'],
  summary: 'stream editor: prints its files edited by a script; -i edits them in place',
  options: {
    'n|quiet|silent': 'harmless',
    'e|expression=': 'harmless',
    'f|file=': 'runs-code',
    // -i takes its suffix attached only (`-i.bak`); `-i -e` must not eat -e as the suffix.
    'i|in-place?': 'writes',
    I: 'writes',
    'E|r|regexp-extended': 'harmless',
    's|separate': 'harmless',
    'u|unbuffered': 'harmless',
    'z|null-data': 'harmless',
    'l|line-length=': 'harmless',
    posix: 'harmless',
    sandbox: 'harmless',
    debug: 'harmless',
    'follow-symlinks': 'harmless',
    'b|binary': 'harmless',
    help: 'harmless',
    version: 'harmless',
  },
  unknownOptions: 'fail',
  traits: ['edit'],
  shape: {
    kind: 'escape',
    why: 'the script writes (w), reads (r) and runs commands (e, s///e) by its own syntax',
    handles: ['file', 'in-place', 'I'],
    analyze(ctx, sink, parsed) {
      // Only then: sed compiles each -e and -f as getopt meets it, opening `w` files, before a later --version.
      if (onlyAsks(ctx.args, HELP_OR_VERSION)) return;
      const p = parsed!;
      const ids = p.options.map((o) => o.id);
      const inPlace = ids.includes('in-place') || ids.includes('I');
      const sandboxed = ids.includes('sandbox');
      const scripts: Word[] = p.options.filter((o) => o.id === 'expression').map((o) => o.value!);
      const operands = [...p.operands];
      if (ids.includes('file')) {
        for (const o of p.options)
          if (o.id === 'file')
            sink.opaque(
              `sed -f runs the script in ${o.value?.raw ?? 'a file'}, which the line does not show`,
            );
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
          else sink.runScript(staticWord(cmd), 'sed e');
        }
        for (const file of found.writes) {
          if (file !== '/dev/stdout' && file !== '/dev/stderr')
            sink.write(staticWord(file), 'overwrite', `sed w writes ${file}`);
        }
        for (const file of found.reads) sink.read(staticWord(file));
      }
      for (const w of operands) {
        if (inPlace) sink.write(w, 'modify', `sed -i edits ${w.raw} in place`);
        else sink.read(w);
      }
    },
  },
  examples: {
    readOnly: ["sed -n '1,20p' README.md", "sed 's/a/b/g' src/app.ts", "sed --sandbox 's/x/y/w out' f"],
    notReadOnly: ['sed "$SCRIPT" f'],
    destructive: [
      "sed -n '/x/w out.txt' log",
      "sed -i 's/a/b/' src/app.ts",
      "sed 's/.*/rm -rf ~/e' f",
      'sed -f script.sed f',
    ],
  },
};
