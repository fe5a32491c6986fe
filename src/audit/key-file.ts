import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { signingKeyOf, verifyingKeyOf } from './checkpoint.js';
import { describe } from './error.js';

/** An Ed25519 public key from a PEM file; the error says which file and what is wrong with it. */
export function readPublicKeyFile(path: string): Promise<KeyObject> {
  return readKeyFile(path, verifyingKeyOf);
}

/**
 * An Ed25519 private key from a PEM file (the key that signs checkpoints). Keep it where the
 * agent cannot write it, and better cannot read it: whoever reads it can sign a forged log.
 */
export function readPrivateKeyFile(path: string): Promise<KeyObject> {
  return readKeyFile(path, signingKeyOf);
}

async function readKeyFile(path: string, asKey: (pem: string) => KeyObject): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${describe(err)}`);
  }
  try {
    return asKey(pem);
  } catch (err) {
    throw new Error(`${path}: ${describe(err)}`);
  }
}
