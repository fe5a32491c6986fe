import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/audit/canonical.js';
import { AuditError } from '../../src/audit/error.js';
import { DecisionLog } from '../../src/audit/log.js';
import { verifyLog } from '../../src/audit/verify.js';
import { readLines, sampleEntry, tempDir, writeLog } from './fixtures/sample.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let path = '';
beforeEach(() => {
  path = join(t.dir, `log-${++n}.jsonl`);
});

async function rejection(p: Promise<unknown>): Promise<AuditError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AuditError);
  return err as AuditError;
}

describe('DecisionLog.append', () => {
  it('writes one canonical line per decision, chained from the genesis value', async () => {
    const log = await DecisionLog.open(path);
    const a = await log.append(sampleEntry(0));
    const b = await log.append(sampleEntry(1));
    await log.close();
    const lines = readLines(path);
    expect(lines).toEqual([canonicalize(a), canonicalize(b)]);
    expect([a.seq, b.seq]).toEqual([1, 2]);
    expect(a.prev).toBe('0'.repeat(64));
    expect(b.prev).toBe(a.hash);
    expect(await verifyLog(path)).toEqual({ ok: true, count: 2, head: b.hash });
  });

  it('keeps call order and count for many concurrent appends', async () => {
    const log = await DecisionLog.open(path);
    const records = await Promise.all(Array.from({ length: 2000 }, (_, i) => log.append(sampleEntry(i))));
    await log.close();
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 2000 }, (_, i) => i + 1));
    const lines = readLines(path);
    expect(lines).toHaveLength(2000);
    lines.forEach((line, i) => {
      expect(JSON.parse(line).request.input.command).toMatch(new RegExp(`# 0:${i}$`));
    });
    expect(await verifyLog(path)).toMatchObject({ ok: true, count: 2000 });
  });

  it('continues the chain another writer extended in the meantime', async () => {
    const a = await DecisionLog.open(path);
    const b = await DecisionLog.open(path);
    await a.append(sampleEntry(0));
    await b.append(sampleEntry(1));
    const third = await a.append(sampleEntry(2));
    await Promise.all([a.close(), b.close()]);
    expect(third.seq).toBe(3);
    expect(await verifyLog(path)).toMatchObject({ ok: true, count: 3 });
  });

  it('interleaves two writers in one process without breaking the chain', async () => {
    const a = await DecisionLog.open(path);
    const b = await DecisionLog.open(path);
    await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).append(sampleEntry(i))));
    await Promise.all([a.close(), b.close()]);
    expect(await verifyLog(path)).toMatchObject({ ok: true, count: 300 });
  });

  it('starts a new chain when the file was removed while open', async () => {
    const log = await DecisionLog.open(path);
    await log.append(sampleEntry(0));
    rmSync(path);
    const again = await log.append(sampleEntry(1));
    await log.close();
    expect(again.seq).toBe(1);
    expect(readLines(path)).toHaveLength(1);
  });

  it('records the versions it is given, and the installed grammar by default', async () => {
    const given = await DecisionLog.open(path, { engineVersion: '9.9.9', grammarVersion: '1.2.3' });
    const r = await given.append(sampleEntry(0));
    await given.close();
    expect([r.engine, r.grammar]).toEqual(['9.9.9', '1.2.3']);
    const installed = JSON.parse(readFileSync('node_modules/tree-sitter-bash/package.json', 'utf8')).version;
    const byDefault = await DecisionLog.open(path);
    expect((await byDefault.append(sampleEntry(1))).grammar).toBe(installed);
    await byDefault.close();
  });

  it('updates the checkpoint after every append', async () => {
    const cp = `${path}.checkpoint`;
    const log = await DecisionLog.open(path, { checkpointPath: cp });
    for (let i = 0; i < 3; i++) {
      const r = await log.append(sampleEntry(i));
      expect(JSON.parse(readFileSync(cp, 'utf8'))).toMatchObject({ v: 1, count: r.seq, head: r.hash });
    }
    await log.close();
  });

  it('signs the checkpoint when given a key, and refuses keys it cannot use', async () => {
    const keys = generateKeyPairSync('ed25519');
    const cp = `${path}.checkpoint`;
    await writeLog(path, 2, {
      checkpointPath: cp,
      signingKey: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }),
    });
    expect(await verifyLog(path, { checkpointPath: cp, publicKey: keys.publicKey })).toMatchObject({
      ok: true,
      checkpoint: { verified: true },
    });
    expect((await rejection(DecisionLog.open(path, { signingKey: keys.privateKey }))).kind).toBe('config');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect((await rejection(DecisionLog.open(path, { checkpointPath: cp, signingKey: rsa }))).kind).toBe(
      'bad-key',
    );
  });

  it('redacts secrets when asked, and says where', async () => {
    const log = await DecisionLog.open(path, { redact: true });
    const entry = sampleEntry(1);
    entry.request.input = {
      command: 'curl -H "Authorization: Bearer s3cr3t-T0ken-value" https://api.example.com',
    };
    const r = await log.append(entry);
    await log.close();
    expect(readFileSync(path, 'utf8')).not.toContain('s3cr3t-T0ken-value');
    expect(r.redacted).toEqual(['/request/input/command']);
    expect(await verifyLog(path)).toMatchObject({ ok: true });
  });

  it('copies the input when appended: a later mutation does not reach the log', async () => {
    const log = await DecisionLog.open(path);
    const entry = sampleEntry(0);
    const input = { command: 'ls' };
    entry.request.input = input;
    const pending = log.append(entry);
    input.command = 'rm -rf /';
    await pending;
    await log.close();
    expect(JSON.parse(readLines(path)[0]!).request.input).toEqual({ command: 'ls' });
  });
});

describe('DecisionLog refuses', () => {
  it.each([
    ['a function in the input', { f: () => 1 }],
    ['a bigint in the input', { n: 1n }],
    ['a NaN in the input', { n: Number.NaN }],
    ['no input at all', undefined],
  ])('%s, and writes nothing', async (_what, input) => {
    const log = await DecisionLog.open(path);
    const entry = sampleEntry(0);
    entry.request.input = input;
    expect((await rejection(log.append(entry))).kind).toBe('invalid-record');
    await log.append(sampleEntry(1));
    await log.close();
    expect(readLines(path)).toHaveLength(1);
  });

  it('a decision that is not a decision', async () => {
    const log = await DecisionLog.open(path);
    const entry = sampleEntry(0);
    (entry.decision as { behavior: string }).behavior = 'maybe';
    expect((await rejection(log.append(entry))).kind).toBe('invalid-record');
    await log.close();
  });

  it('two different session ids for one request', async () => {
    const log = await DecisionLog.open(path);
    expect((await rejection(log.append({ ...sampleEntry(0), sessionId: 'other' }))).kind).toBe(
      'invalid-record',
    );
    await log.close();
  });

  it('appends after close', async () => {
    const log = await DecisionLog.open(path);
    await log.close();
    expect((await rejection(log.append(sampleEntry(0)))).kind).toBe('closed');
  });

  it('an empty checkpoint path, at open', async () => {
    expect((await rejection(DecisionLog.open(path, { checkpointPath: '' }))).kind).toBe('config');
  });

  it('a directory that does not exist, at open', async () => {
    expect((await rejection(DecisionLog.open(join(t.dir, 'no', 'such', 'dir.jsonl')))).kind).toBe('io');
  });

  describe('to extend a log it cannot vouch for, leaving the file as it was', () => {
    async function refused(prepare: () => void, kind: string) {
      await writeLog(path, 3);
      prepare();
      const before = readFileSync(path);
      const log = await DecisionLog.open(path);
      const err = await rejection(log.append(sampleEntry(9)));
      await log.close();
      expect(err.kind).toBe(kind);
      expect(readFileSync(path).equals(before)).toBe(true);
      return err;
    }

    it('a torn last line', async () => {
      const err = await refused(() => appendFileSync(path, '{"decision":{"behav'), 'torn-tail');
      expect(err.message).toMatch(/does not end in a newline/);
    });

    it('a last record that was edited', async () => {
      await refused(() => {
        const lines = readLines(path);
        lines[2] = lines[2]!.replace('"cwd":"/w"', '"cwd":"/x"');
        writeFileSync(path, `${lines.join('\n')}\n`);
      }, 'corrupt-tail');
    });

    it('a last line that is not JSON', async () => {
      await refused(() => appendFileSync(path, 'garbage\n'), 'corrupt-tail');
    });

    it('a last record from a newer format', async () => {
      await refused(() => {
        const last = JSON.parse(readLines(path)[2]!);
        appendFileSync(path, `${canonicalize({ ...last, v: 2, seq: 4 })}\n`);
      }, 'newer-version');
    });
  });

  it('to wait forever for a lock a live process holds', async () => {
    await writeLog(path, 1);
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      const owner = { pid: holder.pid, host: hostname(), nonce: 'held', since: Date.now() };
      writeFileSync(`${path}.lock`, JSON.stringify(owner));
      const before = readFileSync(path);
      const log = await DecisionLog.open(path, { lock: { timeoutMs: 300 } });
      const err = await rejection(log.append(sampleEntry(1)));
      await log.close();
      expect(err.kind).toBe('lock-timeout');
      expect(err.message).toContain(`pid ${holder.pid}`);
      expect(readFileSync(path).equals(before)).toBe(true);
    } finally {
      holder.kill();
    }
  });
});
