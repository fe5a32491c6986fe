import { wordMayBeOption } from '../../option-risk.js';
import type { CatalogueEntry } from '../entry.js';

/**
 * jq FILTER [FILES]. Its arguments are not getopt's (`--arg NAME VALUE` takes two words, `-f`
 * makes the filter a file), so it reads them itself.
 */
export const JQ: CatalogueEntry = {
  name: 'jq',
  aliases: ['gojq'],
  summary: 'JSON processor: prints its files filtered; --slurpfile, --rawfile and -f read files',
  unknownOptions: 'harmless',
  shape: {
    kind: 'escape',
    why: 'options take two values (--arg NAME VALUE) and -f turns the filter into a file',
    analyze(ctx, sink) {
      const args = ctx.args;
      let filterSeen = false;
      for (let i = 0; i < args.length; i++) {
        const w = args[i]!;
        const v = w.value;
        if (v === '--args' || v === '--jsonargs') break;
        if (wordMayBeOption(w, ctx.line) && !filterSeen) {
          sink.notUnderstood(`jq: "${w.raw}" is only known at run time`);
          continue;
        }
        if (v === '--arg' || v === '--argjson') {
          i += 2;
          continue;
        }
        if (v === '--slurpfile' || v === '--rawfile') {
          if (args[i + 2]) sink.read(args[i + 2]!);
          i += 2;
          continue;
        }
        if (v === '-f' || v === '--from-file') {
          if (args[i + 1]) sink.read(args[i + 1]!);
          filterSeen = true;
          i += 1;
          continue;
        }
        if (v === '--indent' || v === '-L' || v === '--library-path') {
          i += 1;
          continue;
        }
        if (v === '--seq' || v === '--tab') continue;
        if (v.startsWith('-') && v.length > 1) continue;
        if (!filterSeen) {
          filterSeen = true;
          continue;
        }
        sink.read(w);
      }
    },
  },
  examples: {
    readOnly: ["jq '.name' package.json", 'jq -r --arg k v .x a.json', 'jq --slurpfile s b.json . a.json'],
    notReadOnly: ['jq $(cat opts) . a.json'],
  },
};
