/**
 * The checkpoint: a small file beside the log saying how many records it had and the hash
 * of the last one, rewritten (atomically) after every append. A hash chain alone cannot
 * show that its tail was cut off; a checkpoint kept elsewhere, or signed with an Ed25519 key
 * the log's writer holds and its readers do not, can.
 *
 * What it does not prove: an attacker who can write both files can put back an older
 * checkpoint together with the log cut to that length (rollback). Ship checkpoints off the
 * machine (or to a witness) when that matters.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { closeSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { canonicalize } from './canonical.js';
import { AuditError, describe } from './error.js';
import { HEX64 } from './format.js';

export const CHECKPOINT_VERSION = 1;

/** Where every toolgate command that writes LOG keeps its checkpoint, and where verify looks for it. */
export function checkpointPathOf(logPath: string): string {
  return `${logPath}.checkpoint`;
}

export interface Checkpoint {
  v: 1;
  /** Records in the log when it was written (= the head record's seq). */
  count: number;
  /** The hash of record `count`. */
  head: string;
  ts: string;
  /** Ed25519 signature (base64) over SIGNED_PREFIX + canonical JSON of the other members. */
  sig?: string;
}

/** Domain separation: a checkpoint signature can never be taken for a signature over anything else. */
const SIGNED_PREFIX = 'toolgate checkpoint v1\n';

/** The schema, built when a checkpoint is read: writing one (the hook's case) needs no zod. */
async function checkpointSchema() {
  const { z } = await import('zod');
  return z.strictObject({
    v: z.literal(CHECKPOINT_VERSION),
    count: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    head: z.string().regex(HEX64),
    ts: z.iso.datetime(),
    sig: z
      .string()
      .regex(/^[A-Za-z0-9+/]+={0,2}$/)
      .optional(),
  });
}

export type KeyInput = KeyObject | string | Buffer;

export function signingKeyOf(key: KeyInput): KeyObject {
  return ed25519(key, 'private');
}

export function verifyingKeyOf(key: KeyInput): KeyObject {
  return ed25519(key, 'public');
}

function ed25519(key: KeyInput, type: 'private' | 'public'): KeyObject {
  let k: KeyObject;
  try {
    if (typeof key === 'string' || Buffer.isBuffer(key)) {
      k = type === 'private' ? createPrivateKey(key) : createPublicKey(key);
    } else {
      k = type === 'public' && key.type === 'private' ? createPublicKey(key) : key;
    }
  } catch (err) {
    throw new AuditError('bad-key', `not a ${type} key in PEM form: ${describe(err)}`, { cause: err });
  }
  if (k.type !== type || k.asymmetricKeyType !== 'ed25519') {
    throw new AuditError(
      'bad-key',
      `expected an Ed25519 ${type} key, got ${k.asymmetricKeyType ?? k.type} ${k.type}`,
    );
  }
  return k;
}

function signedBytes(c: Omit<Checkpoint, 'sig'>): Buffer {
  return Buffer.from(SIGNED_PREFIX + canonicalize({ v: c.v, count: c.count, head: c.head, ts: c.ts }));
}

export function makeCheckpoint(
  count: number,
  head: string,
  key?: KeyObject,
  ts = new Date().toISOString(),
): Checkpoint {
  const c: Checkpoint = { v: CHECKPOINT_VERSION, count, head, ts };
  if (key !== undefined) c.sig = sign(null, signedBytes(c), key).toString('base64');
  return c;
}

/**
 * Replaces the checkpoint atomically (temp file + rename): a reader sees the old one or the new
 * one. Not flushed: a durable log flushes its records before, so the checkpoint is never ahead.
 */
export function writeCheckpoint(path: string, checkpoint: Checkpoint): void {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const fd = openSync(tmp, 'wx', 0o644);
  try {
    writeSync(fd, `${canonicalize(checkpoint)}\n`);
  } catch (err) {
    closeSync(fd);
    unlinkSync(tmp);
    throw err;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (err) {
    unlinkSync(tmp);
    throw err;
  }
}

export type CheckpointRead =
  | { ok: true; checkpoint: Checkpoint; signed: boolean; verified: boolean }
  | { ok: false; message: string };

/**
 * With a public key, the checkpoint must carry a valid signature; without one, a signature
 * is reported as present but unchecked (`verified: false`).
 */
export async function readCheckpoint(path: string, publicKey?: KeyObject): Promise<CheckpointRead> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      message:
        code === 'ENOENT'
          ? `checkpoint ${path} does not exist`
          : `cannot read checkpoint ${path}: ${describe(err)}`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, message: `checkpoint ${path} is not JSON` };
  }
  return checkCheckpoint(parsed, `checkpoint ${path}`, publicKey);
}

/**
 * A checkpoint already parsed from JSON (from its file, or from a witness): its shape, and its
 * signature when a public key is given. `what` names it in the messages.
 */
export async function checkCheckpoint(
  parsed: unknown,
  what: string,
  publicKey?: KeyObject,
): Promise<CheckpointRead> {
  const v = (parsed as { v?: unknown } | null)?.v;
  if (typeof v === 'number' && v > CHECKPOINT_VERSION) {
    return { ok: false, message: `${what} is format v${v}, written by a newer toolgate` };
  }
  const shape = (await checkpointSchema()).safeParse(parsed);
  if (!shape.success) {
    const issue = shape.error.issues[0];
    return {
      ok: false,
      message: `${what} is not a checkpoint (${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'})`,
    };
  }
  const checkpoint = shape.data as Checkpoint;
  const signed = checkpoint.sig !== undefined;
  if (publicKey === undefined) return { ok: true, checkpoint, signed, verified: false };
  if (!signed) return { ok: false, message: `${what} is not signed, but a public key was given` };
  const good = verify(null, signedBytes(checkpoint), publicKey, Buffer.from(checkpoint.sig!, 'base64'));
  if (!good)
    return {
      ok: false,
      message: `${what} has a signature that does not verify with the given public key (forged or altered)`,
    };
  return { ok: true, checkpoint, signed, verified: true };
}
