/**
 * What the classifier concludes about one command line. Every `false` (and every `true` for
 * destructive) is explained by at least one entry of `reasons`, naming the command and the
 * flag or construct that decided it.
 */
export interface BashFacts {
  /** Only reads local state; writes nothing but stdout/stderr or /dev/null; runs no hidden code; no network. */
  readOnly: boolean;
  /** May run beside other concurrency-safe calls: read-only and not left running in the background. */
  concurrencySafe: boolean;
  /** Can delete, overwrite or truncate data, send data off the machine, kill processes, or chmod/chown recursively. */
  destructive: boolean;
  reasons: string[];
  /** The simple commands found, in source order, as normalized argv strings (for display and audit). */
  commands: string[];
  /** The files the line may write, as written in the line (redirect targets and known write operands). */
  writes: string[];
}
