/**
 * What every tool that changes a file (Write, Edit, NotebookEdit) is, whatever its input: never
 * read-only, never run beside another call (two writers of one file would race), always counted
 * destructive, and answered in a short sentence. One place, so the three cannot drift apart.
 */
export const FILE_WRITER_TRAITS = {
  maxResultSizeChars: 10_000,
  isReadOnly: () => false,
  isConcurrencySafe: () => false,
  isDestructive: () => true,
} as const;
