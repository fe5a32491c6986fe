import { type About, handWritten } from '../hand-written.js';
import { EDITORS } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  vim: [
    "Vi IMproved, a programmer's text editor",
    {
      destructive: [
        'vim notes.txt',
        'vi notes.txt',
        'nvim notes.txt',
        'vimdiff a b',
        'view notes.txt',
        'ex notes.txt',
        'rvim notes.txt',
        'gvim notes.txt',
      ],
    },
  ],
  emacs: ['the Emacs editor', { destructive: ['emacs notes.txt'] }],
  nano: ['the nano editor', { destructive: ['nano notes.txt', 'pico notes.txt'] }],
};

export const EDITORS_ENTRIES = handWritten(
  EDITORS,
  'editors: interactive, they can write any file and run commands; read-only forms only',
  ABOUT,
);
