import type { CatalogueEntry } from '../entry.js';
import { reader } from '../forms.js';
import { type About, handWritten } from '../hand-written.js';
import { ARCHIVE } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  tar: [
    'an archiving utility',
    {
      readOnly: ['tar -tf a.tar', 'gtar -tf a.tar', 'bsdtar -tf a.tar'],
      notReadOnly: ["tar --checkpoint=100 --checkpoint-action=exec='touch /tmp/m' -tf a.tar"],
      destructive: [
        'tar -xf a.tar',
        'gtar -xf a.tar',
        'bsdtar -xf a.tar',
        'tar -xzf backup.tar.gz',
        "tar --use-compress-program='zstd -d' -xf release.tar.zst -C /opt/app",
      ],
    },
  ],
  gzip: [
    'compress or expand files',
    {
      readOnly: ['gzip -l a.gz', 'gunzip -c a.gz', 'bunzip2 -c a.bz2', 'unxz -c a.xz', 'unzstd -c a.zst'],
      destructive: [
        'gzip big.log',
        'gunzip a.gz',
        'bzip2 big.log',
        'bunzip2 a.bz2',
        'xz big.log',
        'unxz a.xz',
        'lzma big.log',
        'unlzma a.lzma',
        'unzstd a.zst',
        'lz4 big.log',
        'pigz big.log',
        'compress big.log',
        'uncompress a.Z',
        'gzip access.log',
      ],
    },
  ],
  zstd: ['zstd, zstdmt, unzstd, zstdcat - Compress or decompress...', { destructive: ['zstd big.log'] }],
  zip: ['package and compress (archive) files', { destructive: ['zip a.zip f.txt'] }],
  unzip: [
    'list, test and extract compressed files in a ZIP archive',
    {
      readOnly: [
        'unzip -l a.zip',
        'unzip -p app.jar META-INF/MANIFEST.MF',
        'unzip -c a.zip',
        'unzip -t a.zip',
      ],
      destructive: ['unzip a.zip'],
    },
  ],
  '7z': ['the 7-Zip archiver', { readOnly: ['7z l a.7z'], destructive: ['7z x a.7z'] }],
  '7za': ['the 7-Zip archiver', { readOnly: ['7za l a.7z'], destructive: ['7za x a.7z'] }],
  ar: [
    'create, modify, and extract from archives',
    { readOnly: ['ar t lib.a'], destructive: ['ar x lib.a'] },
  ],
  unrar: ['extracts RAR archives', { readOnly: ['unrar l a.rar'], destructive: ['unrar x a.rar'] }],
};

/** zipinfo only lists: every operand (the archive, the members to list or exclude) is read, no option writes. */
const ZIPINFO: CatalogueEntry = reader('zipinfo', 'list detailed information about a ZIP archive', [], {
  readOnly: ['zipinfo a.zip', 'zipinfo -1 a.zip "*.txt"'],
});

export const ARCHIVE_ENTRIES = [
  ...handWritten(
    ARCHIVE,
    'archivers and compressors: list and test modes read; create, extract and in-place compression write or delete',
    ABOUT,
  ),
  ZIPINFO,
];
