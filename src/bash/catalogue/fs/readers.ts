import type { CatalogueEntry } from '../entry.js';
import { printer, reader } from '../forms.js';

/**
 * The file tools that only read their operands (or print what they are told), as data: every
 * option listed with its effect, unknown options harmless (none of these programs has an
 * option that writes, runs code or reaches the network beyond those listed).
 */

const HEAD_TAIL = ['c|bytes=', 'n|lines=', 'q|quiet|silent', 'v|verbose', 'z|zero-terminated'];
const HEXDUMP = ['e=', 'n=', 's='];

export const FILE_READERS: readonly CatalogueEntry[] = [
  reader(
    'ls',
    'list directory contents',
    [
      'I|ignore=',
      'T|tabsize=',
      'w|width=',
      'block-size=',
      'format=',
      'hide=',
      'indicator-style=',
      'quoting-style=',
      'sort=',
      'time=',
      'time-style=',
      'color?',
      'hyperlink?',
    ],
    { readOnly: ['ls -la', 'ls -lhS src/', 'ls -la # list everything'] },
  ),
  reader('dir', 'list directory contents', [], { readOnly: ['dir'] }),
  reader('vdir', 'list directory contents', [], { readOnly: ['vdir'] }),
  reader('cat', 'concatenate files and print on the standard output', [], {
    readOnly: ['cat README.md', "cat -- '-weird name.txt'"],
  }),
  reader('tac', 'concatenate and print files in reverse', ['s|separator='], { readOnly: ['tac log.txt'] }),
  reader(
    'nl',
    'number lines of files',
    [
      'b|body-numbering=',
      'd|section-delimiter=',
      'f|footer-numbering=',
      'h|header-numbering=',
      'i|line-increment=',
      'l|join-blank-lines=',
      'n|number-format=',
      's|number-separator=',
      'v|starting-line-number=',
      'w|number-width=',
    ],
    { readOnly: ['nl f.txt'] },
  ),
  reader(
    'head',
    'output the first part of files',
    HEAD_TAIL,
    { readOnly: ['head -n 20 package.json', 'head -5 f'] },
    {},
    { parse: { numericOption: 'lines' } },
  ),
  reader(
    'wc',
    'print newline, word, and byte counts for each file; --files0-from reads a list of files',
    [],
    { readOnly: ['wc -l src/*.py'] },
    { 'files0-from=': 'reads-list' },
  ),
  reader(
    'od',
    'dump files in octal and other formats',
    ['A|address-radix=', 'j|skip-bytes=', 'N|read-bytes=', 'S|strings?', 't|format=', 'w|width?'],
    { readOnly: ['od -c f.bin'] },
  ),
  reader(
    'hexdump',
    'display file contents in hexadecimal, decimal, octal, ...; -f reads a format file',
    HEXDUMP,
    { readOnly: ['hexdump -C f.bin'] },
    { 'f=': 'reads' },
  ),
  reader(
    'hd',
    'display file contents in hexadecimal, decimal, octal, ...; -f reads a format file',
    HEXDUMP,
    { readOnly: ['hd f.bin'] },
    { 'f=': 'reads' },
  ),
  reader(
    'strings',
    'print the sequences of printable characters in files',
    ['n|bytes=', 't|radix=', 'e|encoding=', 'T|target=', 's|output-separator='],
    { readOnly: ['strings a.out'] },
  ),
  reader('stat', 'display file or file system status', ['c|format=', 'printf=', 't|terse'], {
    readOnly: ["stat -c '%s %n' dist/*.bin"],
  }),
  reader(
    'du',
    'estimate file space usage; -X and --files0-from read lists',
    ['B|block-size=', 'd|max-depth=', 't|threshold=', 'time?', 'time-style=', 'exclude='],
    { readOnly: ['du -sh node_modules'] },
    { 'X|exclude-from=': 'reads', 'files0-from=': 'reads-list' },
  ),
  reader(
    'df',
    'report file system space usage',
    ['B|block-size=', 't|type=', 'x|exclude-type=', 'F=', 'output?'],
    { readOnly: ['df -h /'] },
  ),
  reader(
    'tree',
    'lists a directory tree; -o writes the listing to a file',
    ['L=', 'P=', 'I=', 'filelimit=', 'timefmt=', 'charset=', 'sort=', 'fromfile', 'H='],
    { readOnly: ['tree -L 2 src'], destructive: ['tree -o tree.txt -L 3'] },
    { 'o=': 'writes' },
  ),
  reader('more', 'file perusal filter for crt viewing', ['n|lines='], { readOnly: ['more README.md'] }),
  reader('most', 'a pager', [], { readOnly: ['most README.md'] }),
  reader(
    'diff3',
    'compare three files line by line (sdiff: two, side by side); -o writes the merged file',
    [],
    { readOnly: ['diff3 a b c', 'sdiff a b'], destructive: ['sdiff -o merged a b'] },
    { 'o|output=': 'writes' },
    { aliases: ['sdiff'] },
  ),
  reader(
    'diff',
    'compare files line by line; a directory operand is compared file by file (-r all the way down)',
    [
      'C|context?',
      'U|unified?',
      'x|exclude=',
      'S|starting-file=',
      'I|ignore-matching-lines=',
      'F|show-function-line=',
      'W|width=',
      'tabsize=',
      'label=',
      'L=',
      'line-format=',
      'old-line-format=',
      'new-line-format=',
      'unchanged-line-format=',
      'old-group-format=',
      'new-group-format=',
      'changed-group-format=',
      'unchanged-group-format=',
      'horizon-lines=',
      'color?',
      'palette=',
      'D|ifdef=',
      'no-dereference',
    ],
    { readOnly: ['diff -u old.conf new.conf', 'diff -r a b'] },
    { 'X|exclude-from=': 'reads', 'from-file=': 'reads', 'to-file=': 'reads' },
    // Every operand is read as a tree: without -r that reaches deeper than diff does, which only
    // ever asks or denies more (`diff -r a b` read a/.env unseen).
    { reader: { trees: { noFollow: 'no-dereference' } } },
  ),
  reader('cmp', 'compare two files byte by byte', ['i|ignore-initial=', 'n|bytes='], {
    readOnly: ['cmp a b'],
  }),
  reader('comm', 'compare two sorted files line by line', ['output-delimiter='], { readOnly: ['comm a b'] }),
  reader('sum', 'checksum and count the blocks in a file', [], { readOnly: ['sum f'] }),
  reader('md5', 'prints MD5 digests (BSD)', [], { readOnly: ['md5 f'] }),
  reader('namei', 'follow a pathname until a terminal point is found', [], {
    readOnly: ['namei -l /usr/bin'],
  }),
  reader('getfacl', "prints files' access control lists", [], { readOnly: ['getfacl f.txt'] }),
  reader('lsattr', 'list file attributes on a Linux second extended file system', [], {
    readOnly: ['lsattr f.txt'],
  }),
];

/** md5sum and its kin: with `-c` each operand (stdin without one) is a list of files and sums, and each file listed is read. */
const checksummer = (name: string, summary: string, examples: string[], options: string[] = []) =>
  reader(
    name,
    `${summary}; -c reads the files a list names`,
    options,
    { readOnly: examples },
    { 'c|check': 'reads-list' },
    { reader: { listsWith: 'check' } },
  );

export const CHECKSUMMERS: readonly CatalogueEntry[] = [
  checksummer('md5sum', 'compute and check MD5 message digest', ['md5sum -c checksums.md5 --quiet']),
  checksummer('sha1sum', 'compute and check SHA1 message digest', ['sha1sum f']),
  checksummer('sha224sum', 'compute and check SHA224 message digest', ['sha224sum f']),
  checksummer('sha256sum', 'compute and check SHA256 message digest', ['sha256sum dist/*.tar.gz']),
  checksummer('sha384sum', 'compute and check SHA384 message digest', ['sha384sum f']),
  checksummer('sha512sum', 'compute and check SHA512 message digest', ['sha512sum f']),
  checksummer('b2sum', 'compute and check BLAKE2 message digest', ['b2sum f'], ['l|length=']),
  checksummer('cksum', 'compute and verify file checksums', ['cksum f'], ['a|algorithm=', 'l|length=']),
  checksummer('shasum', 'Print or Check SHA Checksums', ['shasum -a 256 f'], ['a|algorithm=']),
];

/** Their operands are names or patterns, not files they read. */
export const FILE_PRINTERS: readonly CatalogueEntry[] = [
  printer('realpath', 'print the resolved path', { readOnly: ['realpath ../shared/config.yml'] }, [
    'relative-to=',
    'relative-base=',
  ]),
  printer('readlink', 'print resolved symbolic links or canonical file names', {
    readOnly: ['readlink -f x'],
  }),
  printer('basename', 'strip directory and suffix from filenames', { readOnly: ['basename /a/b.txt'] }),
  printer('dirname', 'strip last component from file name', { readOnly: ['dirname /a/b.txt'] }),
  printer('which', 'locate a command', { readOnly: ['which node', 'which python3'] }),
  printer('whereis', 'locate the binary, source, and manual page files for a command', {
    readOnly: ['whereis node'],
  }),
  printer('lsof', 'list open files', { readOnly: ['lsof -i :8080', 'lsof -nP -iTCP:3000 -sTCP:LISTEN'] }),
  printer('findmnt', 'find a filesystem', { readOnly: ['findmnt'] }),
  printer('lsblk', 'list block devices', { readOnly: ['lsblk'] }),
  printer(
    'man',
    'an interface to the system reference manuals; -P and -H run a pager or browser',
    { readOnly: ['man ls'], destructive: ["man -P 'rm -f ~/.lesshst' bash", 'man -Hfirefox ls'] },
    [
      'M|manpath=',
      'l|local-file',
      'L|locale=',
      'm|systems=',
      'S|s|sections=',
      'e|extension=',
      'E|encoding=',
      'r|prompt=',
    ],
    {
      'P|pager=': 'runs-program',
      'H|html?': 'runs-code',
      'C|config-file=': 'reads',
      'R|recode=': 'unmodelled',
      'T|troff-device?': 'unmodelled',
      'X|gxditview?': 'unmodelled',
      'p|preprocessor=': 'unmodelled',
    },
  ),
  printer(
    'info',
    'reads GNU Info documents; -o and --dribble write a file, --restore reads one',
    { readOnly: ['info ls'], destructive: ['info -o coreutils.txt coreutils'] },
    ['d|directory=', 'f|file=', 'n|node='],
    { 'o|output=': 'writes', 'dribble=': 'writes', 'restore=': 'reads' },
  ),
];
