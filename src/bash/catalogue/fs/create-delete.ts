import type { CatalogueEntry } from '../entry.js';
import { optionsOf } from '../forms.js';

/**
 * What creates or deletes its operands, as data. `edit`: acceptEdits approves mkdir, touch, rm
 * and rmdir on paths inside the workspace, as Claude Code does.
 */
export const CREATE_DELETE: readonly CatalogueEntry[] = [
  {
    name: 'mkdir',
    summary: 'make directories',
    shape: { kind: 'creator', verb: 'creates' },
    options: optionsOf(['m|mode=', 'p|parents', 'v|verbose', 'Z', 'context?'], {}),
    unknownOptions: 'harmless',
    traits: ['edit'],
    examples: { notReadOnly: ['mkdir -p build/output'] },
  },
  {
    name: 'touch',
    summary: 'change file timestamps, creating the files that do not exist; -r reads another file’s',
    shape: { kind: 'creator', verb: 'creates or updates the timestamp of' },
    options: optionsOf(['a', 'c|no-create', 'd|date=', 'f', 'h|no-dereference', 'm', 't=', 'time='], {
      'r|reference=': 'reads',
    }),
    unknownOptions: 'harmless',
    traits: ['edit'],
    examples: { notReadOnly: ['touch .gitkeep', 'touch -r ref.txt out.txt'] },
  },
  {
    name: 'mkfifo',
    summary: 'make FIFOs (named pipes)',
    shape: { kind: 'creator', verb: 'creates' },
    options: optionsOf(['m|mode=', 'Z', 'context?'], {}),
    unknownOptions: 'harmless',
    examples: { notReadOnly: ['mkfifo pipe'] },
  },
  {
    name: 'mknod',
    summary: 'make block or character special files',
    shape: { kind: 'creator', verb: 'creates' },
    options: optionsOf(['m|mode=', 'Z', 'context?'], {}),
    unknownOptions: 'harmless',
    examples: { notReadOnly: ['mknod dev c 1 3'] },
  },
  {
    name: 'rm',
    summary: 'remove files or directories; -r each with everything below it',
    shape: { kind: 'remover', recursive: 'recursive' },
    options: optionsOf(
      [
        'f|force',
        'i',
        'I',
        'interactive?',
        'one-file-system',
        'no-preserve-root',
        'preserve-root?',
        'd|dir',
        'v|verbose',
      ],
      { 'r|R|recursive': 'removes' },
    ),
    unknownOptions: 'harmless',
    traits: ['edit'],
    examples: { destructive: ['rm -rf build/', 'rm -- -rf', 'rm f.txt'] },
  },
  {
    name: 'rmdir',
    summary: 'remove empty directories',
    shape: { kind: 'remover' },
    options: optionsOf(['ignore-fail-on-non-empty', 'p|parents', 'v|verbose'], {}),
    unknownOptions: 'harmless',
    traits: ['edit'],
    examples: { destructive: ['rmdir empty'] },
  },
  {
    name: 'unlink',
    summary: 'call the unlink function to remove the specified file',
    shape: { kind: 'remover' },
    unknownOptions: 'harmless',
    examples: { destructive: ['unlink f.txt'] },
  },
];
