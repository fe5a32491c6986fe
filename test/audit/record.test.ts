import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DecisionLog } from '../../src/audit/log.js';
import { RecordSchema, requestOf } from '../../src/audit/record.js';
import { readLines, sampleEntry, tempDir, writeLog } from './fixtures/sample.js';

describe('the record', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  it('is what the schema describes, field for field', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const [record] = await writeLog(join(t.dir, 'log.jsonl'), 1);
    const line = readLines(join(t.dir, 'log.jsonl'))[0]!;
    expect(RecordSchema.parse(JSON.parse(line))).toEqual(record);
    expect(record).toMatchObject({
      v: 1,
      seq: 1,
      sessionId: 'session-0',
      agentId: 'agent-0',
      request: { tool: 'Bash', cwd: '/w', mode: 'default' },
      decision: { behavior: 'deny', decidedBy: 'rule', mode: 'default', rule: { id: 'no-rm', line: 7 } },
      policyDigest: 'ab'.repeat(32),
      grammar: '0.25.1',
      prev: '0'.repeat(64),
    });
    expect(record!.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses members format v1 does not have', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const [record] = await writeLog(join(t.dir, 'log.jsonl'), 1);
    expect(RecordSchema.safeParse({ ...record, extra: 1 }).success).toBe(false);
    expect(
      RecordSchema.safeParse({ ...record, decision: { ...record!.decision, sandbox: {} } }).success,
    ).toBe(false);
  });

  it("records a mode alias in the mode's one spelling", async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const log = await DecisionLog.open(join(t.dir, 'log.jsonl'));
    const entry = sampleEntry(1);
    const r = await log.append({ ...entry, request: { ...entry.request, mode: 'bypass' as never } });
    await log.close();
    expect(r.request.mode).toBe('bypassPermissions');
  });

  it('gives back the exact request it answered, for replay', async () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const log = await DecisionLog.open(join(t.dir, 'log.jsonl'));
    const entry = sampleEntry(4);
    const withIds = await log.append(entry);
    const { mode: _m, sessionId: _s, ...bare } = entry.request;
    const plain = await log.append({ request: bare, decision: entry.decision });
    await log.close();
    expect(requestOf(withIds)).toEqual({ ...entry.request, agentId: 'agent-0' });
    expect(requestOf(plain)).toEqual(bare);
    expect('mode' in requestOf(plain)).toBe(false);
  });
});
