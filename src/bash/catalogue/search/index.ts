import type { CatalogueEntry } from '../entry.js';
import { printer } from '../forms.js';
import { type About, handWritten } from '../hand-written.js';
import { SEARCH } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  grep: [
    'print lines that match patterns',
    {
      readOnly: [
        'egrep -r TODO src',
        'fgrep -n x f.txt',
        'zgrep x log.gz',
        'grep -rn "TODO" src/',
        "grep -rl --include='*.ts' 'useEffect' .",
        'grep -r "rm -rf" scripts/',
      ],
    },
  ],
  rg: [
    'recursively search the current directory for lines mat...',
    {
      readOnly: ["rg -n --hidden 'api_key' -g '!*.lock'"],
      notReadOnly: ["rg --pre-glob '*.gz' --pre zcat ERROR logs/"],
    },
  ],
  ag: ['the silver searcher: searches file trees', { readOnly: ['ag TODO', 'ack TODO'] }],
  find: [
    'search for files in a directory hierarchy',
    {
      readOnly: [
        "find . -name '*.go' -type f",
        "find . -maxdepth 2 -name node_modules -prune -o -name '*.json' -print",
        "find . -type f -newer package.json -not -path './node_modules/*'",
      ],
    },
  ],
  fd: [
    'finds files by name (fd and fdfind)',
    { readOnly: ['fdfind -e ts'], destructive: ['fd -e orig -x rm {}'] },
  ],
};

/** locate and its kin: its operands are patterns, matched against a database of names (-d reads another). */
const LOCATE: CatalogueEntry = printer(
  'locate',
  'finds files by name in a database; -d reads another database',
  { readOnly: ['locate libc.so', 'plocate libc.so', 'mlocate libc.so', 'locate -l 5 -n 3 x'] },
  ['l|limit=', 'n='],
  { 'd|database=': 'reads' },
  { aliases: ['plocate', 'mlocate'] },
);

export const SEARCH_ENTRIES = [
  ...handWritten(
    SEARCH,
    'search tools: read files and trees; options that run programs (find -exec, rg --pre, fd -x) or write',
    ABOUT,
  ),
  LOCATE,
];
