/**
 * toolgate's own files, wherever this run keeps them: the decision log with its lock and
 * checkpoint, the log's signing key, the trust store, the policy files it read, its caches, and
 * the program itself. An agent that could rewrite one of them would switch the guard off or
 * rewrite its record (issue 14 item 7), so a write or a deletion there is a protected write:
 * it asks in every mode, bypassPermissions included, and denies where no person can answer.
 * Unlike the protected names (protected.ts), these are absolute paths only the running command
 * knows (its --log, $XDG_CONFIG_HOME, its install directory): the edge that knows them (the CLI)
 * lists them, and the decision order checks them beside the protected names (guards.ts).
 */
export interface OwnFile {
  /** Absolute and normalized; a directory covers everything below it. */
  readonly path: string;
  /** What it is, for the reason a person reads: "the decision log", "the trust store". */
  readonly what: string;
  /**
   * toolgate writes it by renaming a new file onto it, or creates and removes it, while
   * commands run (the log's checkpoint and lock, the trust store). A mount on the file itself
   * would not hold it: the kernel detaches a mount in every other namespace when its mount
   * point is renamed over on the host. So the jail holds the directory it lives in instead.
   */
  readonly replaced?: true;
}

/** The own file `absolutePath` is, or lies inside; undefined when none. */
export function ownFileAt(absolutePath: string, own: readonly OwnFile[]): OwnFile | undefined {
  for (const f of own) if (isInside(absolutePath, f.path)) return f;
  return undefined;
}

/**
 * The own file below the directory `absolutePath` (or at it): deleting or moving away a
 * directory takes everything in it along (`rm -r logs`, `mv .cache elsewhere`).
 */
export function ownFileWithin(absolutePath: string, own: readonly OwnFile[]): OwnFile | undefined {
  for (const f of own) if (isInside(f.path, absolutePath)) return f;
  return undefined;
}

function isInside(candidate: string, dir: string): boolean {
  if (dir === '/') return true;
  return candidate === dir || candidate.startsWith(`${dir}/`);
}
