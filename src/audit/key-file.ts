import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { verifyingKeyOf } from './checkpoint.js';
import { describe } from './error.js';

/** An Ed25519 public key from a PEM file; the error says which file and what is wrong with it. */
export async function readPublicKeyFile(path: string): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${describe(err)}`);
  }
  try {
    return verifyingKeyOf(pem);
  } catch (err) {
    throw new Error(`${path}: ${describe(err)}`);
  }
}
