import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/audit/canonical.js';
import { readLines, tempDir, writeLines, writeLog } from '../audit/fixtures/sample.js';
import { runMain } from '../helpers/main-in-process.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let dir = '';

beforeEach(async () => {
  dir = join(t.dir, String(++n));
  const { mkdirSync } = await import('node:fs');
  mkdirSync(dir);
});

const toolgate = (...argv: string[]) => runMain(['verify', ...argv], { cwd: dir });

/** The directory's files and their bytes, to prove verify wrote, moved and locked nothing. */
function snapshot(): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f)).toString('base64')]));
}

describe('toolgate verify', () => {
  it('exits 0 and prints the count and head of an intact log', async () => {
    const records = await writeLog(join(dir, 'log.jsonl'), 5, { checkpointPath: join(dir, 'log.cp') });
    const r = await toolgate('log.jsonl', '--checkpoint', 'log.cp');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(`log.jsonl: intact, 5 record(s), head ${records[4]!.hash}`);
    expect(r.stdout).toContain('checkpoint: 5 record(s) at');
  });

  it('notes that without a checkpoint a cut-off tail would go unnoticed', async () => {
    await writeLog(join(dir, 'log.jsonl'), 2);
    const r = await toolgate('log.jsonl');
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/no --checkpoint/);
  });

  it('prints JSON with --json', async () => {
    const records = await writeLog(join(dir, 'log.jsonl'), 3);
    const r = await toolgate('log.jsonl', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      log: join(dir, 'log.jsonl'),
      ok: true,
      count: 3,
      head: records[2]!.hash,
    });
  });

  it('exits 1 naming the first bad record and what is wrong', async () => {
    const log = join(dir, 'log.jsonl');
    await writeLog(log, 6);
    const lines = readLines(log);
    lines.splice(3, 1);
    writeLines(log, lines);
    const r = await toolgate('log.jsonl');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/log\.jsonl: removed at line 4 \(seq 5\): record seq 4 is missing/);
    expect(r.stderr).toMatch(/3 record\(s\) before it verified/);
    const json = await toolgate('log.jsonl', '--json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      kind: 'removed',
      line: 4,
      seq: 5,
      verified: 3,
    });
  });

  it('finds a cut-off tail through the checkpoint', async () => {
    const log = join(dir, 'log.jsonl');
    await writeLog(log, 6, { checkpointPath: join(dir, 'log.cp') });
    writeLines(log, readLines(log).slice(0, 4));
    const r = await toolgate('log.jsonl', '--checkpoint', 'log.cp');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /truncated at line 5: the checkpoint .* counts 6 records but the log ends after 4/,
    );
  });

  it('checks a signed checkpoint with --public-key, and rejects a forged one', async () => {
    const keys = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'key.pub'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
    await writeLog(join(dir, 'log.jsonl'), 4, {
      checkpointPath: join(dir, 'log.cp'),
      signingKey: keys.privateKey,
    });
    const good = await toolgate('log.jsonl', '--checkpoint', 'log.cp', '--public-key', 'key.pub');
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/signature verified/);

    const cp = JSON.parse(readFileSync(join(dir, 'log.cp'), 'utf8'));
    writeFileSync(join(dir, 'log.cp'), canonicalize({ ...cp, count: 3 }));
    const forged = await toolgate('log.jsonl', '--checkpoint', 'log.cp', '--public-key', 'key.pub');
    expect(forged.code).toBe(1);
    expect(forged.stderr).toMatch(/checkpoint: .*does not verify with the given public key/);
  });

  describe('on bad input: a clear message, exit 1, and nothing written', () => {
    it.each([
      ['a missing log', () => {}, /missing: .*nope\.jsonl does not exist/, 'nope.jsonl'],
      [
        'an empty log',
        () => writeFileSync(join(dir, 'log.jsonl'), ''),
        /empty: .*is empty: it holds no records/,
        'log.jsonl',
      ],
      [
        'a log from a newer version',
        () => writeFileSync(join(dir, 'log.jsonl'), '{"v":2,"seq":1,"anything":"new"}\n'),
        /newer-version at line 1 \(seq 1\): the record is format v2, written by a newer toolgate/,
        'log.jsonl',
      ],
      [
        'a corrupt line',
        () => writeFileSync(join(dir, 'log.jsonl'), '{"v":1,"seq":1,\n'),
        /not-json at line 1: the line is not JSON/,
        'log.jsonl',
      ],
    ])('%s', async (_what, prepare, message, file) => {
      prepare();
      const before = snapshot();
      const r = await toolgate(file);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(message);
      expect(snapshot()).toEqual(before);
    });

    it('a log with a torn last line (the bytes stay as they are)', async () => {
      const log = join(dir, 'log.jsonl');
      await writeLog(log, 3);
      writeFileSync(log, readFileSync(log).subarray(0, -10));
      const before = snapshot();
      const r = await toolgate('log.jsonl');
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/truncated at line 3: line 3 is incomplete/);
      expect(snapshot()).toEqual(before);
    });
  });

  describe('usage errors exit 2', () => {
    it.each([
      [[]],
      // Many logs are verified one by one now (a fleet's logs); one checkpoint cannot cover them.
      [['a.jsonl', 'b.jsonl', '--checkpoint', 'a.cp']],
      [['log.jsonl', '--public-key', 'key.pub']],
      [['log.jsonl', '--bogus']],
      [['log.jsonl', '--checkpoint']],
    ])('%j', async (argv) => {
      const r = await toolgate(...argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^toolgate verify: /);
    });

    it('an unreadable or unusable public key', async () => {
      await writeLog(join(dir, 'log.jsonl'), 1, { checkpointPath: join(dir, 'log.cp') });
      expect((await toolgate('log.jsonl', '--checkpoint', 'log.cp', '--public-key', 'none.pem')).code).toBe(
        2,
      );
      writeFileSync(
        join(dir, 'rsa.pem'),
        generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }),
      );
      const r = await toolgate('log.jsonl', '--checkpoint', 'log.cp', '--public-key', 'rsa.pem');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/Ed25519/);
    });
  });

  it('prints its help with --help', async () => {
    const r = await toolgate('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: toolgate verify LOG/);
  });

  it('sets the exit status of the real command', async () => {
    const log = join(dir, 'log.jsonl');
    await writeLog(log, 2);
    const entry = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
    const run = () =>
      spawnSync(process.execPath, ['--import', 'tsx', entry, 'verify', log], { encoding: 'utf8' });
    expect(run()).toMatchObject({ status: 0, stdout: expect.stringMatching(/intact, 2 record\(s\)/) });
    writeFileSync(log, readFileSync(log, 'utf8').replace('"cwd":"/w"', '"cwd":"/W"'));
    expect(run()).toMatchObject({ status: 1, stderr: expect.stringMatching(/edited at line 1/) });
  });

  it('holds the log against a witness from a file or a URL, and names what differs', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'key.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    const log = join(dir, 'log.jsonl');
    await writeLog(log, 4, { checkpointPath: `${log}.checkpoint`, signingKey: privateKey });
    const witness = [
      ...readLines(log),
      JSON.stringify({ checkpoint: JSON.parse(readFileSync(`${log}.checkpoint`, 'utf8')) }),
    ];
    writeLines(join(dir, 'witness.jsonl'), witness);
    const ok = await toolgate('log.jsonl', '--witness', 'witness.jsonl', '--public-key', 'key.pub');
    expect(ok).toMatchObject({ code: 0 });
    expect(ok.stdout).toMatch(
      /witness: every record matches \(4 record\(s\) and 1 checkpoint\(s\), up to seq 4\)/,
    );
    const server = createServer((_req, res) => res.end(witness.map((l) => `${l}\n`).join('')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/witness.jsonl`;
      writeLines(log, readLines(log).slice(0, 2));
      const cut = await toolgate('log.jsonl', '--witness', url, '--public-key', 'key.pub');
      expect(cut.code).toBe(1);
      expect(cut.stderr).toMatch(/truncated/);
    } finally {
      server.close();
    }
    const bad = await toolgate('log.jsonl', '--witness', 'no-such.jsonl');
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringMatching(/witness: cannot read witness/) });
  });

  it('verifies many logs, and every *.jsonl below a directory, each with its own checkpoint', async () => {
    const { mkdirSync } = await import('node:fs');
    for (const host of ['host-a', 'host-b', 'host-c'])
      mkdirSync(join(dir, 'fleet', host), { recursive: true });
    const at = (h: string) => join(dir, 'fleet', h, 'decisions.jsonl');
    await writeLog(at('host-a'), 3, { checkpointPath: `${at('host-a')}.checkpoint` });
    await writeLog(at('host-b'), 5, { checkpointPath: `${at('host-b')}.checkpoint` });
    await writeLog(at('host-c'), 2, { checkpointPath: `${at('host-c')}.checkpoint` });
    const all = await toolgate('fleet');
    expect(all).toMatchObject({ code: 0, stderr: '' });
    expect(all.stdout).toMatch(/fleet\/host-a\/decisions\.jsonl: intact, 3 record/);
    expect(all.stdout).toMatch(/fleet\/host-c\/decisions\.jsonl: intact, 2 record/);
    expect(all.stdout).toMatch(/3 log\(s\): 3 intact, 0 not intact/);
    // One host's tail cut: its own checkpoint finds it, the others still verify.
    writeLines(at('host-b'), readLines(at('host-b')).slice(0, 3));
    const cut = await toolgate('fleet/host-a/decisions.jsonl', 'fleet', '--json');
    expect(cut.code).toBe(1);
    const lines = cut.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => [l.log.slice(dir.length + 1), l.ok, l.kind])).toEqual([
      ['fleet/host-a/decisions.jsonl', true, undefined],
      ['fleet/host-b/decisions.jsonl', false, 'truncated'],
      ['fleet/host-c/decisions.jsonl', true, undefined],
    ]);
    expect(cut.stderr).toMatch(/3 log\(s\): 2 intact, 1 not intact/);
    mkdirSync(join(dir, 'empty'));
    expect(await toolgate('empty')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/holds no \*\.jsonl/),
    });
    expect(await toolgate('fleet', '--checkpoint', 'x')).toMatchObject({ code: 2 });
  });
});
