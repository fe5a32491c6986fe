/**
 * Why the decision log refused to write. The edge (hook, CLI, pipeline) turns a kind into an
 * exit code or a blocked tool call; nothing inside src/audit decides what a failure means.
 */
export type AuditErrorKind =
  /** The request or decision cannot be recorded exactly (not JSON data, unknown behavior, ...). */
  | 'invalid-record'
  /** The log does not end in a newline: a writer crashed mid-line. Appending would hide it. */
  | 'torn-tail'
  /** The last record is not a self-consistent record; extending the chain would bless it. */
  | 'corrupt-tail'
  /** The last record was written by a newer format than this engine writes. */
  | 'newer-version'
  /** Another process held the lock for longer than the timeout. */
  | 'lock-timeout'
  /** Our lock was broken as stale while we held it; we stopped before writing. */
  | 'lock-lost'
  /** The record was appended but the checkpoint could not be updated. */
  | 'checkpoint'
  /** The signing key cannot sign checkpoints (not an Ed25519 private key). */
  | 'bad-key'
  /** Options that cannot work together (a signing key without a checkpoint, an empty path). */
  | 'config'
  | 'io'
  | 'closed';

export class AuditError extends Error {
  override name = 'AuditError';
  constructor(
    readonly kind: AuditErrorKind,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The message of whatever was thrown, for error texts written to people. */
export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
