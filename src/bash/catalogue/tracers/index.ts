import { type About, handWritten } from '../hand-written.js';
import { TRACERS } from './analyzers.js';

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  strace: ['trace system calls and signals', { destructive: ['strace -f ./tool'] }],
  ltrace: ['traces library calls of a command', { destructive: ['ltrace ./tool'] }],
  valgrind: ['a suite of tools for debugging and profiling programs', { destructive: ['valgrind ./tool'] }],
  gdb: ['the GNU debugger', { destructive: ['gdb -batch -ex run ./tool'] }],
  catchsegv: ['runs a command and prints a backtrace on a crash', { destructive: ['catchsegv ./tool'] }],
};

export const TRACERS_ENTRIES = handWritten(
  TRACERS,
  'tracers and debuggers: run the inner command, and can change the processes they attach to',
  ABOUT,
);
