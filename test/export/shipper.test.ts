import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DecisionLog, type DecisionLogOptions } from '../../src/audit/log.js';
import { verifyLog } from '../../src/audit/verify.js';
import { CHECKPOINT_EVENT, RECORD_EVENT, readWitness } from '../../src/audit/witness.js';
import { otlpSender } from '../../src/export/otlp.js';
import { LogShipper } from '../../src/export/shipper.js';
import { readLines, sampleEntry, tempDir, writeLog } from '../audit/fixtures/sample.js';
import { runMain } from '../helpers/main-in-process.js';
import { type Receiver, receivedRecords, startReceiver } from '../helpers/otlp-receiver.js';

/**
 * OTLP export (#18 item 1) with the real OpenTelemetry SDK and its OTLP/HTTP exporter, sending
 * to a loopback receiver this test starts: what arrives, in what order, with what attributes;
 * a collector that is down, slow or refusing; a log that was tampered with after export.
 */
const t = tempDir();
afterAll(() => t.cleanup());
const keys = generateKeyPairSync('ed25519');
let receiver: Receiver;
let dir = '';
let n = 0;
let warnings: string[] = [];
/** Added to the clock the shipper sees: lets a test skip the backoff instead of sleeping through it. */
let skew = 0;

beforeEach(async () => {
  receiver = await startReceiver();
  dir = join(t.dir, String(++n));
  mkdirSync(dir);
  warnings = [];
  skew = 0;
});
afterEach(() => receiver.close());

function shipper(logPath: string, timeoutMillis = 2_000): LogShipper {
  const endpoint = `${receiver.url}/v1/logs`;
  return new LogShipper({
    logPath,
    logName: `testhost:${logPath}`,
    endpoint,
    sender: otlpSender(endpoint, `testhost:${logPath}`, { timeoutMillis }),
    warn: (m) => warnings.push(m),
    delayMs: 5,
    closeDeadlineMs: 5_000,
    now: () => Date.now() + skew,
  });
}

async function openLog(path: string, exporter?: LogShipper, options: DecisionLogOptions = {}) {
  return DecisionLog.open(path, {
    grammarVersion: '0.25.1',
    checkpointPath: `${path}.checkpoint`,
    signingKey: keys.privateKey,
    ...(exporter !== undefined && { export: exporter }),
    ...options,
  });
}

const records = () => receivedRecords(receiver).filter((r) => r.eventName === RECORD_EVENT);
const checkpoints = () => receivedRecords(receiver).filter((r) => r.eventName === CHECKPOINT_EVENT);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('OTLP export of the decision log', () => {
  it('sends every record once, in order, as the log holds it, with the attributes; the export is a witness', async () => {
    const path = join(dir, 'log.jsonl');
    const s = shipper(path);
    const log = await openLog(path, s);
    for (let wave = 0; wave < 6; wave++) {
      await Promise.all(
        Array.from({ length: 50 }, (_, i) => log.append(sampleEntry(wave * 50 + i, wave % 2))),
      );
      await sleep(wave % 2 === 0 ? 0 : 20); // some waves leave before the next, some after
    }
    await log.close();

    const lines = readLines(path);
    expect(lines).toHaveLength(300);
    const got = records();
    expect(got.map((r) => r.body)).toEqual(lines); // each once, in the log's order, byte for byte
    expect(s.stats).toMatchObject({ exported: 300, failedSends: 0 });
    expect(warnings).toEqual([]);

    const deny = got[0]!; // sampleEntry(0) is a deny by rule
    const record = JSON.parse(lines[0]!);
    expect(deny.attributes).toMatchObject({
      tool_name: 'Bash',
      decision: 'reject',
      source: 'config',
      'session.id': 'session-0',
      'toolgate.agent_id': 'agent-0',
      'toolgate.behavior': 'deny',
      'toolgate.decided_by': 'rule',
      'toolgate.rule': 'Bash(rm -rf *)',
      'toolgate.rule.id': 'no-rm',
      'toolgate.rule.source': '/w/.toolgate/policy.yaml:7',
      'toolgate.policy_digest': 'ab'.repeat(32),
      'toolgate.seq': 1,
      'toolgate.hash': record.hash,
      'toolgate.prev': record.prev,
      'toolgate.log': `testhost:${path}`,
    });
    expect(deny.severityText).toBe('WARN');
    expect(got[1]!.attributes).toMatchObject({ decision: 'accept', 'toolgate.decided_by': 'default' });
    expect(got[1]!.attributes['toolgate.rule']).toBeUndefined();
    expect(deny.resource).toMatchObject({ 'service.name': 'toolgate', 'toolgate.log': `testhost:${path}` });

    // The last checkpoint covers all 300 records, signed; checkpoints never run ahead of records.
    const cps = checkpoints().map((c) => JSON.parse(c.body).checkpoint);
    expect(cps.at(-1)).toMatchObject({ count: 300, head: JSON.parse(lines[299]!).hash });
    for (const c of cps) expect(c.sig).toEqual(expect.any(String));

    // What the collector received, as its file exporter would keep it, vouches for the log.
    const witnessPath = join(dir, 'witness.jsonl');
    writeFileSync(witnessPath, receiver.requests.map((r) => `${r}\n`).join(''));
    const witness = await readWitness(witnessPath, { publicKey: keys.publicKey });
    if (!witness.ok) throw new Error(witness.message);
    expect(await verifyLog(path, { witness: witness.witness })).toMatchObject({ ok: true, count: 300 });
  });

  it('a collector that does not answer holds up no append', async () => {
    receiver.mode = 'hold';
    const path = join(dir, 'log.jsonl');
    const log = await openLog(path, shipper(path));
    await log.append(sampleEntry(0));
    await sleep(50); // the first export is now in flight, unanswered
    const later = await Promise.all(Array.from({ length: 20 }, (_, i) => log.append(sampleEntry(i + 1))));
    expect(later.at(-1)!.seq).toBe(21);
    expect(receiver.requests).toHaveLength(0); // nothing has been acknowledged yet
    receiver.mode = 'ok';
    receiver.release();
    await log.close();
    expect(records().map((r) => r.body)).toEqual(readLines(path));
  });

  it('loses nothing that was logged while the collector was down, and says so once', async () => {
    const path = join(dir, 'log.jsonl');
    const s = shipper(path, 300);
    const log = await openLog(path, s);
    await Promise.all(Array.from({ length: 10 }, (_, i) => log.append(sampleEntry(i))));
    await sleep(100);
    expect(records()).toHaveLength(10);

    await receiver.stop(); // connections refused
    for (let i = 10; i < 60; i += 10) {
      // Every decision is still logged and answered while the collector is away.
      await Promise.all(Array.from({ length: 10 }, (_, j) => log.append(sampleEntry(i + j))));
      await sleep(30);
    }
    await sleep(400);
    expect(s.stats.failedSends).toBeGreaterThan(0);
    expect(warnings.filter((w) => /failed/.test(w))).toHaveLength(1);
    expect(warnings[0]).toMatch(/OTLP export to .* failed .* wait in .*log\.jsonl, retrying in 1 s/);

    await receiver.start();
    skew = 10 * 60_000; // past any backoff
    await log.close();
    expect(records().map((r) => r.body)).toEqual(readLines(path));
    expect(readLines(path)).toHaveLength(60);
    expect(warnings.at(-1)).toMatch(/works again/);
  });

  it('a collector that refuses backs off, and the next process sends the backlog', async () => {
    receiver.mode = 'fail';
    const path = join(dir, 'log.jsonl');
    const first = shipper(path);
    let log = await openLog(path, first);
    await Promise.all(Array.from({ length: 5 }, (_, i) => log.append(sampleEntry(i))));
    await log.close();
    expect(receiver.refused).toBe(1);
    expect(first.stats).toMatchObject({ exported: 0, failedSends: 1 });
    const cursor = JSON.parse(readFileSync(`${path}.exported`, 'utf8'));
    expect(cursor).toMatchObject({ seq: 0, failures: 1 });

    // A process during the backoff does not try (a hook must not pay for a collector that is down).
    log = await openLog(path, shipper(path));
    await log.append(sampleEntry(5));
    await log.close();
    expect(receiver.refused).toBe(1);

    receiver.mode = 'ok';
    skew = 10 * 60_000;
    log = await openLog(path, shipper(path));
    await log.append(sampleEntry(6));
    await log.close();
    expect(records().map((r) => r.body)).toEqual(readLines(path));
    expect(JSON.parse(readFileSync(`${path}.exported`, 'utf8'))).toMatchObject({ seq: 7 });
    expect(JSON.parse(readFileSync(`${path}.exported`, 'utf8')).failures).toBeUndefined();
  });

  it("ships other writers' records from the file, in the log's order", async () => {
    const path = join(dir, 'log.jsonl');
    await writeLog(path, 700, { checkpointPath: `${path}.checkpoint` }); // written before export was on
    const other = await openLog(path);
    const log = await openLog(path, shipper(path));
    for (let i = 0; i < 10; i++) {
      await Promise.all([log.append(sampleEntry(i, 1)), other.append(sampleEntry(i, 2))]);
    }
    await other.close();
    await log.close();
    const lines = readLines(path);
    expect(lines).toHaveLength(720);
    expect(records().map((r) => r.body)).toEqual(lines);
  });

  it('stops exporting a log that no longer continues what was exported, and says why', async () => {
    const path = join(dir, 'log.jsonl');
    let log = await openLog(path, shipper(path));
    await Promise.all(Array.from({ length: 5 }, (_, i) => log.append(sampleEntry(i))));
    await log.close();
    expect(records()).toHaveLength(5);

    // Replaced by another file (a forger's), then written to: none of it goes out.
    const forged = join(dir, 'forged.jsonl');
    await writeLog(forged, 7);
    renameSync(forged, path);
    log = await openLog(path, shipper(path));
    await log.append(sampleEntry(9));
    await log.close();
    expect(records()).toHaveLength(5);
    expect(warnings.at(-1)).toMatch(/export of .*log\.jsonl stopped: .* not the file that was exported/);

    // Cut below what was exported.
    const cut = join(dir, 'cut.jsonl');
    log = await openLog(cut, shipper(cut));
    await Promise.all(Array.from({ length: 5 }, (_, i) => log.append(sampleEntry(i))));
    await log.close();
    writeFileSync(cut, '');
    log = await openLog(cut, shipper(cut));
    await log.append(sampleEntry(9));
    await log.close();
    expect(warnings.at(-1)).toMatch(/stopped: .*shorter than what was exported/);
  });
});

describe('toolgate check --log --otlp', () => {
  const env = () => ({
    HOME: dir,
    XDG_CONFIG_HOME: join(dir, '.config'),
    TOOLGATE_MANAGED_POLICY: join(dir, 'no-managed-policy.yaml'),
  });

  it('exports every decision it logs', async () => {
    const stdin = ['ls', 'rm -rf /tmp/x', 'cat README.md']
      .map((command) => JSON.stringify({ tool: 'Bash', input: { command } }))
      .join('\n');
    const r = await runMain(['check', '--stdin', '--log', 'log.jsonl', '--otlp', receiver.url], {
      cwd: dir,
      env: env(),
      stdin,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const got = records();
    expect(got.map((x) => x.body)).toEqual(readLines(join(dir, 'log.jsonl')));
    expect(got.map((x) => x.attributes['toolgate.seq'])).toEqual([1, 2, 3]);
    expect(checkpoints().map((c) => JSON.parse(c.body).checkpoint.count)).toEqual([3]);
  });

  it('TOOLGATE_OTLP_ENDPOINT turns it on too; --otlp without a log, or not a URL, is a usage error', async () => {
    const stdin = JSON.stringify({ tool: 'Read', input: { file_path: 'README.md' } });
    const r = await runMain(['check', '--stdin', '--log', 'log.jsonl'], {
      cwd: dir,
      env: { ...env(), TOOLGATE_OTLP_ENDPOINT: `${receiver.url}/v1/logs` },
      stdin,
    });
    expect(r.code).toBe(0);
    expect(records()).toHaveLength(1);
    const noLog = await runMain(['check', '--stdin', '--otlp', receiver.url], {
      cwd: dir,
      env: env(),
      stdin,
    });
    expect(noLog).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--otlp exports the decision log/),
    });
    const bad = await runMain(['check', '--stdin', '--log', 'l.jsonl', '--otlp', 'ftp://x'], {
      cwd: dir,
      env: env(),
      stdin,
    });
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringMatching(/--otlp: .*http: or https:/) });
  });
});
