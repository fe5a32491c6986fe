import type { CatalogueEntry } from '../entry.js';
import { printer, reader } from '../forms.js';

/** Text filters: they read files and print. The exceptions are the options that write or run. */

export const SORT: CatalogueEntry = reader(
  'sort',
  'sorts its files; -o writes the result, --compress-program runs a program',
  [
    'b|ignore-leading-blanks',
    'c|check?',
    'C',
    'debug',
    'd|dictionary-order',
    'f|ignore-case',
    'g|general-numeric-sort',
    'h|human-numeric-sort',
    'i|ignore-nonprinting',
    'k|key=',
    'm|merge',
    'M|month-sort',
    'n|numeric-sort',
    'parallel=',
    'R|random-sort',
    'r|reverse',
    's|stable',
    'S|buffer-size=',
    'sort=',
    't|field-separator=',
    'u|unique',
    'V|version-sort',
    'z|zero-terminated',
    'batch-size=',
  ],
  {
    readOnly: ['sort -u names.txt', 'sort -k2,2n -t, data.csv', 'sort --files0-from=list'],
    notReadOnly: ['sort -S 64k -T . big.txt'],
    destructive: ['sort -o names.txt names.txt', 'sort --compress-program=./zip big.txt'],
  },
  {
    'o|output=': 'writes',
    // An input that does not fit in the buffer is spilled into temporary files made (and
    // removed) in DIR: the oracle saw 300 such writes into the project for `-S 64k -T .`.
    'T|temporary-directory=': 'unmodelled',
    'compress-program=': 'runs-program',
    'files0-from=': 'reads-list',
    'random-source=': 'reads',
  },
);

export const UNIQ: CatalogueEntry = {
  name: 'uniq',
  summary: 'uniq [INPUT [OUTPUT]]: reads INPUT, and writes OUTPUT when it is given',
  options: {
    'c|count': 'harmless',
    'd|repeated': 'harmless',
    D: 'harmless',
    'all-repeated?': 'harmless',
    'f|skip-fields=': 'harmless',
    'group?': 'harmless',
    'i|ignore-case': 'harmless',
    's|skip-chars=': 'harmless',
    'u|unique': 'harmless',
    'w|check-chars=': 'harmless',
    'z|zero-terminated': 'harmless',
  },
  unknownOptions: 'harmless',
  parse: { numericOption: 'skip-fields' },
  shape: {
    kind: 'escape',
    why: 'its second operand is a file it writes: operands have positions, not one role',
    analyze(ctx, sink, parsed) {
      const [input, output, ...extra] = parsed!.operands;
      if (input && input.value !== '-') sink.read(input);
      if (output) sink.write(output, 'overwrite', `uniq writes its output to ${output.raw}`);
      if (extra.length > 0) sink.notUnderstood('uniq: extra operands');
      if (ctx.extraArgs) sink.notUnderstood('uniq: arguments appended at run time could name an output file');
    },
  },
  examples: {
    readOnly: ['uniq -c sorted.txt', 'sort f | uniq -d'],
    notReadOnly: ['find . -name x | xargs uniq'],
    destructive: ['uniq in.txt out.txt', 'uniq a b c'],
  },
};

export const TEE: CatalogueEntry = {
  name: 'tee',
  summary: 'copies its stdin to stdout and to the files it names (-a appends)',
  options: {
    'a|append': 'appends',
    'i|ignore-interrupts': 'harmless',
    p: 'harmless',
    'output-error?': 'harmless',
  },
  unknownOptions: 'harmless',
  traits: ['edit'],
  shape: { kind: 'writer', append: 'append' },
  examples: {
    readOnly: ['echo x | tee /dev/null', 'ls | tee >(wc -l)'],
    notReadOnly: ['echo x | tee -a log.txt'],
    destructive: ['echo x | tee out.txt'],
  },
};

/** moreutils' sponge: reads all of stdin first, so `sort f | sponge f` rewrites f. */
export const SPONGE: CatalogueEntry = {
  name: 'sponge',
  summary: 'soaks up stdin, then writes it to the file it names (-a appends)',
  shape: { kind: 'writer', append: 'append' },
  options: { 'a|append': 'appends' },
  unknownOptions: 'fail',
  examples: {
    readOnly: ['sort f | sponge /dev/null'],
    notReadOnly: ['sort f | sponge -a log.txt'],
    destructive: ['sort f | sponge f'],
  },
};

export const SHUF: CatalogueEntry = {
  name: 'shuf',
  summary: 'prints its file (or, with -e or -i, its operands) in random order; -o writes',
  options: {
    'e|echo': 'harmless',
    'i|input-range=': 'harmless',
    'n|head-count=': 'harmless',
    'o|output=': 'writes',
    'random-source=': 'reads',
    'r|repeat': 'harmless',
    'z|zero-terminated': 'harmless',
  },
  unknownOptions: 'harmless',
  shape: { kind: 'reader', dataWith: ['echo', 'input-range'] },
  examples: {
    readOnly: ['shuf -n 3 words.txt', 'shuf -e a b c', 'shuf -i 1-10'],
    destructive: ['shuf -o out.txt words.txt'],
  },
};

export const YQ: CatalogueEntry = {
  name: 'yq',
  summary: 'yq EXPRESSION [FILES] (Go and Python): prints, or with -i edits the files in place',
  options: {
    'i|inplace|in-place': 'writes',
    'e|exit-status': 'harmless',
    'o|output-format=': 'harmless',
    'p|input-format=': 'harmless',
    'I|indent=': 'harmless',
    'P|prettyPrint': 'harmless',
    'r|raw-output': 'harmless',
    'y|yaml-output': 'harmless',
    'front-matter=': 'harmless',
    'expression=': 'harmless',
    'from-file=': 'reads',
    'arg=': 'harmless',
    'argjson=': 'harmless',
  },
  unknownOptions: 'harmless',
  shape: { kind: 'reader', skipFirst: true, inPlace: { option: 'inplace', written: '-i' } },
  examples: {
    readOnly: ["yq '.a' config.yaml", 'yq -o json . a.yaml'],
    destructive: ["yq -i '.a = 1' config.yaml"],
  },
};

const BASE64_OPTIONS = ['d|decode', 'D', 'i|ignore-garbage', 'w|wrap=', 'b|break='];
const BASE64_EFFECTS = { 'o|output=': 'writes', 'input=': 'reads' } as const;

export const BASE64: CatalogueEntry = reader(
  'base64',
  'encodes or decodes its file; -o writes the result',
  BASE64_OPTIONS,
  { readOnly: ['base64 -d blob.txt', 'base32 f', 'basenc --base64 f'], destructive: ['base64 -o out.b64 f'] },
  BASE64_EFFECTS,
  { aliases: ['base32', 'basenc'] },
);

const ICONV = reader(
  'iconv',
  'converts the encoding of its files; -o writes the result',
  ['f|from-code=', 't|to-code='],
  { readOnly: ['iconv -f latin1 -t utf-8 a.txt'], destructive: ['iconv -f latin1 -t utf-8 -o b.txt a.txt'] },
  { 'o|output=': 'writes' },
);

/** Plain readers: every option only changes how they print their files. */
const PLAIN: readonly CatalogueEntry[] = [
  reader(
    'cut',
    'prints fields of its files',
    ['b|bytes=', 'c|characters=', 'd|delimiter=', 'f|fields=', 'output-delimiter='],
    { readOnly: ['cut -d: -f1 /etc/passwd'] },
  ),
  reader('paste', 'joins lines of its files', ['d|delimiters='], { readOnly: ['paste -d, a b'] }),
  reader('join', 'joins two files on a field', ['a=', 'e=', 'j=', 'o=', 't=', 'v=', '1=', '2='], {
    readOnly: ['join -t, a.csv b.csv'],
  }),
  reader(
    'column',
    'prints its files as a table',
    [
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
    ],
    { readOnly: ['column -t -s, data.csv'] },
  ),
  reader('fold', 'wraps the lines of its files', ['w|width='], { readOnly: ['fold -w 80 notes.txt'] }),
  reader('fmt', 'reformats paragraphs of its files', ['p|prefix=', 'w|width=', 'g|goal='], {
    readOnly: ['fmt -w 72 notes.txt'],
  }),
  reader('expand', 'turns tabs into spaces', ['t|tabs='], { readOnly: ['expand -t 4 Makefile'] }),
  reader('unexpand', 'turns spaces into tabs', ['t|tabs='], { readOnly: ['unexpand -a f'] }),
  reader('rev', 'reverses the characters of each line', [], { readOnly: ['rev names.txt'] }),
  reader(
    'pr',
    'paginates its files for printing (to stdout)',
    [
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
    ],
    { readOnly: ['pr -2 -h title notes.txt'] },
  ),
  reader('tsort', 'sorts a graph topologically', [], { readOnly: ['tsort deps.txt'] }),
  reader('look', 'prints lines of a sorted file that begin with a string', ['t|terminate='], {
    readOnly: ['look abc words.txt'],
  }),
  reader('bc', 'calculator: reads its files as bc programs, which only print', [], {
    readOnly: ['bc -l calc.bc', 'echo 1+1 | bc'],
  }),
  reader('zcat', 'prints compressed files', [], { readOnly: ['zcat log.gz'] }),
  reader('bzcat', 'prints compressed files', [], { readOnly: ['bzcat log.bz2'] }),
  reader('xzcat', 'prints compressed files', [], { readOnly: ['xzcat log.xz'] }),
  reader('zstdcat', 'prints compressed files', [], { readOnly: ['zstdcat log.zst'] }),
  reader('lz4cat', 'prints compressed files', [], { readOnly: ['lz4cat log.lz4'] }),
  reader('zless', 'pages compressed files', [], { readOnly: ['zless log.gz'] }),
  reader('zmore', 'pages compressed files', [], { readOnly: ['zmore log.gz'] }),
  reader('zdiff', 'compares compressed files', [], { readOnly: ['zdiff a.gz b.gz'] }),
  reader('zcmp', 'compares compressed files', [], { readOnly: ['zcmp a.gz b.gz'] }),
  reader('csvlook', 'prints a CSV file as a table', [], { readOnly: ['csvlook data.csv'] }),
];

/** Printers: their operands are data (`echo 'rm -rf /'` prints text). */
const PRINTERS: readonly CatalogueEntry[] = [
  printer('echo', 'prints its operands', { readOnly: ["echo 'rm -rf /'", 'echo -n hi'] }),
  printer('tr', 'translates characters of stdin', { readOnly: ['tr a-z A-Z < f', "tr -d '\\n'"] }),
  printer('seq', 'prints a sequence of numbers', { readOnly: ['seq 1 10'] }),
  printer('expr', 'evaluates an expression', { readOnly: ['expr 1 + 2'] }),
  printer('factor', 'prints prime factors', { readOnly: ['factor 42'] }),
  printer('numfmt', 'formats numbers', { readOnly: ['numfmt --to=iec 2048'] }),
  printer('ts', 'prefixes stdin lines with a timestamp', { readOnly: ['date | ts'] }),
];

const YES: CatalogueEntry = {
  name: 'yes',
  summary: 'prints a line forever',
  shape: { kind: 'lingers', why: 'prints forever' },
  unknownOptions: 'harmless',
  examples: { readOnly: ['yes | head -3'] },
};

export const TEXT_FILTERS: readonly CatalogueEntry[] = [
  SORT,
  UNIQ,
  TEE,
  SPONGE,
  SHUF,
  ICONV,
  YQ,
  BASE64,
  ...PLAIN,
  ...PRINTERS,
  YES,
];
