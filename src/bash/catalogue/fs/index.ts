import { type About, handWritten } from '../hand-written.js';
import { FILESYSTEM } from './analyzers.js';
import { CREATE_DELETE } from './create-delete.js';
import { CHECKSUMMERS, FILE_PRINTERS, FILE_READERS } from './readers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  tail: [
    'output the last part of files',
    { readOnly: ['tail -n 50 logs/app.log', 'tail -f logs/server.log'] },
  ],
  xxd: [
    'make a hexdump or do the reverse.',
    { destructive: ['xxd -r -p payload.hex firmware.bin', 'xxd dump.bin dump.hex'] },
  ],
  file: ['determine file type', { readOnly: ['file dist/app'], destructive: ['file -C -m custom.magic'] }],
  less: ['opposite of more', { readOnly: ['less README.md'] }],
  cp: [
    'copy files and directories',
    { notReadOnly: ['cp -n config.example.yml config.yml'], destructive: ['cp template.env .env'] },
  ],
  mv: ['move (rename) files', { destructive: ['mv config.yml config.yml.bak', 'mv build dist'] }],
  install: ['copy files and set attributes', { destructive: ['install -m 755 tool /usr/local/bin/tool'] }],
  ln: [
    'make links between files',
    { notReadOnly: ['ln -s target link'], destructive: ['ln -sf target link'] },
  ],
  shred: [
    'overwrite a file to hide its contents, and optionally ...',
    { destructive: ['shred -u secrets.txt'] },
  ],
  chmod: [
    'change file mode bits',
    {
      notReadOnly: ['chmod +x scripts/build.sh'],
      destructive: ['chmod -R 777 /var/www', 'chmod -R go-rwx ~/.ssh'],
    },
  ],
  chown: ['change file owner and group', { destructive: ['chown -R www-data:www-data /var/www/html'] }],
  chgrp: ['change group ownership', { notReadOnly: ['chgrp staff f.txt'] }],
  truncate: [
    'shrink or extend the size of a file to the specified size',
    { destructive: ['truncate -s 0 app.log'] },
  ],
  dd: [
    'convert and copy a file',
    { destructive: ['dd if=/dev/zero of=/dev/sdb bs=4M', 'dd if=backup.img of=disk.img conv=notrunc'] },
  ],
  split: ['split a file into pieces', { destructive: ['split -l 100 big.txt part-', 'csplit f.txt /x/'] }],
  patch: ['apply a diff file to an original', { destructive: ['patch -p1 < fix.patch'] }],
  mktemp: ['create a temporary file or directory', { notReadOnly: ['mktemp'] }],
  sync: ['Synchronize cached writes to persistent storage', { notReadOnly: ['sync'] }],
};

export const FILESYSTEM_ENTRIES = [
  ...FILE_READERS,
  ...CHECKSUMMERS,
  ...FILE_PRINTERS,
  ...CREATE_DELETE,
  ...handWritten(
    FILESYSTEM,
    'file tools: copy, move, link, delete, create and attribute changes by operand position and option',
    ABOUT,
  ),
];
