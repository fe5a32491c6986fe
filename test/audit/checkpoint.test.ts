import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/audit/canonical.js';
import {
  makeCheckpoint,
  readCheckpoint,
  signingKeyOf,
  verifyingKeyOf,
  writeCheckpoint,
} from '../../src/audit/checkpoint.js';
import { AuditError } from '../../src/audit/error.js';
import { tempDir } from './fixtures/sample.js';

const t = tempDir();
afterAll(() => t.cleanup());
const keys = generateKeyPairSync('ed25519');
const head = 'a'.repeat(64);

describe('checkpoints', () => {
  it('round-trip unsigned, and leave no temporary files behind', async () => {
    const path = join(t.dir, 'plain');
    writeCheckpoint(path, makeCheckpoint(5, head));
    writeCheckpoint(path, makeCheckpoint(6, head));
    expect(await readCheckpoint(path)).toMatchObject({
      ok: true,
      checkpoint: { v: 1, count: 6, head },
      signed: false,
    });
    expect(readdirSync(t.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('remove their temporary file when the rename fails', () => {
    const into = join(t.dir, 'a-directory');
    mkdirSync(join(into, 'busy'), { recursive: true });
    expect(() => writeCheckpoint(into, makeCheckpoint(1, head))).toThrow();
    expect(readdirSync(t.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('verify when signed, and report a signature they could not check without a key', async () => {
    const path = join(t.dir, 'signed');
    writeCheckpoint(path, makeCheckpoint(5, head, keys.privateKey));
    expect(await readCheckpoint(path, keys.publicKey)).toMatchObject({
      ok: true,
      signed: true,
      verified: true,
    });
    expect(await readCheckpoint(path)).toMatchObject({ ok: true, signed: true, verified: false });
  });

  it.each([
    ['count', { count: 4 }],
    ['head', { head: 'b'.repeat(64) }],
    ['ts', { ts: '2000-01-01T00:00:00.000Z' }],
  ])('reject a signed checkpoint whose %s was changed', async (_what, change) => {
    const path = join(t.dir, 'forged');
    const c = makeCheckpoint(5, head, keys.privateKey);
    writeFileSync(path, canonicalize({ ...c, ...change }));
    expect(await readCheckpoint(path, keys.publicKey)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/does not verify/),
    });
  });

  it.each([
    ['not JSON', 'nope', /not JSON/],
    ['not a checkpoint', '{"v":1,"count":"5"}', /not a checkpoint/],
    ['newer', '{"v":2}', /newer toolgate/],
  ])('reject a file that is %s', async (_what, text, message) => {
    const path = join(t.dir, 'bad');
    writeFileSync(path, text);
    expect(await readCheckpoint(path)).toMatchObject({ ok: false, message: expect.stringMatching(message) });
  });

  it('reject a missing file', async () => {
    expect(await readCheckpoint(join(t.dir, 'none'))).toMatchObject({
      ok: false,
      message: expect.stringMatching(/does not exist/),
    });
  });

  it('take keys as KeyObjects or PEM, and refuse anything but Ed25519 of the right kind', () => {
    const pem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' });
    expect(signingKeyOf(pem).asymmetricKeyType).toBe('ed25519');
    expect(verifyingKeyOf(keys.privateKey).type).toBe('public');
    expect(() => signingKeyOf(keys.publicKey)).toThrow(AuditError);
    expect(() => verifyingKeyOf('not a key')).toThrow(/PEM/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(() => signingKeyOf(ec.privateKey)).toThrow(/Ed25519/);
  });

  it('write the exact bytes that are signed, in canonical form', () => {
    const path = join(t.dir, 'canon');
    const c = makeCheckpoint(5, head, keys.privateKey, '2025-01-01T00:00:00.000Z');
    writeCheckpoint(path, c);
    expect(readFileSync(path, 'utf8')).toBe(`${canonicalize(c)}\n`);
  });
});
