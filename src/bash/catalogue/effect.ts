/**
 * The closed vocabularies of the catalogue: what an option (or a command) does, and the typed
 * traits the policy reads instead of command names. The registry refuses anything else at load,
 * so a typo in an entry is a start-up error, not a silently harmless option.
 */

export const EFFECTS = [
  /** Reads the file its value names. */
  'reads',
  /** Reads the file its value names (stdin without one) as a list of files, and then each of them (`--files0-from`). */
  'reads-list',
  /** Writes (creates or overwrites) the file its value names. */
  'writes',
  /** Adds to the end of the file its value names. */
  'appends',
  /** Deletes what it names. */
  'removes',
  /** Runs the value as shell code (`--filter='sh ...'`). */
  'runs-code',
  /** Runs the value as a program, with arguments the command adds (`sort --compress-program=gzip`). */
  'runs-program',
  /** Opens a network connection. */
  'network',
  /** Sends data off the machine. */
  'sends-data',
  /** Sends signals to processes. */
  'kills',
  /** Changes state other than files: processes, permissions, the clock, refs, packages. */
  'changes-system',
  /** Keeps running until stopped (`journalctl -f`): read-only, never safe to run beside others. */
  'lingers',
  /** Does something this knowledge does not model: never read-only (fail closed). */
  'unmodelled',
  /** Changes nothing the policy cares about. */
  'harmless',
] as const;

export type Effect = (typeof EFFECTS)[number];

/** Effects `toolgate catalogue --effect` groups under one word a reviewer asks about. */
export const EFFECT_GROUPS: Readonly<Record<string, readonly Effect[]>> = {
  reads: ['reads', 'reads-list'],
  writes: ['writes', 'appends', 'removes'],
  runs: ['runs-code', 'runs-program'],
  network: ['network', 'sends-data'],
  kills: ['kills'],
  system: ['changes-system'],
  unmodelled: ['unmodelled'],
};

export const TRAITS = [
  /** Its writes and deletions are file edits acceptEdits may approve inside the workspace (Claude Code's mkdir, touch, rm, rmdir, mv, cp, sed). */
  'edit',
  /**
   * An allow rule's prefix never approves it: what it runs is not what the rule names (Claude
   * Code's exec wrappers watch, setsid, ionice, flock; find with -exec or -delete).
   */
  'no-prefix-allow',
  /** A wrapper that only adjusts how its inner command runs (timeout, nice, env): rules look through it. */
  'transparent',
] as const;

export type Trait = (typeof TRAITS)[number];

const effectSet: ReadonlySet<string> = new Set(EFFECTS);
const traitSet: ReadonlySet<string> = new Set(TRAITS);

export const isEffect = (s: unknown): s is Effect => typeof s === 'string' && effectSet.has(s);
export const isTrait = (s: unknown): s is Trait => typeof s === 'string' && traitSet.has(s);
