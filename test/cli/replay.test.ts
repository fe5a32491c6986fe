import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { progressBar } from '../../src/cli/replay.js';
import { decidedLog, POLICY, POLICY_RM_ASKS, policy, snapshot } from '../audit/fixtures/decided.js';
import { readLines, tempDir, writeLines } from '../audit/fixtures/sample.js';
import { runMain } from '../helpers/main-in-process.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let dir = '';

beforeEach(async () => {
  dir = join(t.dir, String(++n));
  mkdirSync(dir);
  writeFileSync(join(dir, 'old.yaml'), POLICY);
  writeFileSync(join(dir, 'loosen.yaml'), POLICY_RM_ASKS);
  writeFileSync(
    join(dir, 'tighten.yaml'),
    POLICY.replace('ask: "Bash(git push *)"', 'deny: "Bash(git push *)"'),
  );
  await decidedLog(join(dir, 'log.jsonl'), await policy(), 24);
});

const toolgate = (argv: string[], stderrIsTTY = false) =>
  runMain(['replay', ...argv], {
    cwd: dir,
    env: { TOOLGATE_MANAGED_POLICY: join(dir, 'no-managed.yaml') },
    stderrIsTTY,
  });

describe('toolgate replay', () => {
  it('exits 0 and says so when no decision changes', async () => {
    const r = await toolgate(['log.jsonl', '--policy', 'old.yaml', '--fail-on', 'any']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(
      /^Replayed 24 record\(s\) of log\.jsonl under policy [0-9a-f]{12}… \(.*old\.yaml\)/,
    );
    expect(r.stdout).toMatch(/Log: intact, 24 record\(s\), head [0-9a-f]{64}/);
    expect(r.stdout).toMatch(/No decision would change \(24 compared\)\./);
  });

  it('summarizes flips by kind, tool and rule, with sample records', async () => {
    const r = await toolgate(['log.jsonl', '--policy', 'loosen.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/4 of 24 decision\(s\) would change: 4 loosen, 0 tighten\./);
    expect(r.stdout).toMatch(/By kind:\n {2}deny -> ask +4 {2}loosen +seq 2, 10, 14, 22\n/);
    expect(r.stdout).toMatch(/By tool:\n {2}Bash +4 {2}4 loosen\n/);
    expect(r.stdout).toMatch(
      /Bash\(rm -rf \*\) \(\/work\/project\/\.toolgate\/policy\.yaml:4\)\n +-> Bash\(rm -rf \*\) \(.*loosen\.yaml:4\)/,
    );
    expect(r.stdout).toMatch(/seq 2 +Bash +deny -> ask {2}rm -rf build\n/);
  });

  it('--fail-on loosen fails on a loosening policy only; --fail-on any on every flip', async () => {
    expect((await toolgate(['log.jsonl', '--policy', 'loosen.yaml', '--fail-on', 'loosen'])).code).toBe(1);
    expect((await toolgate(['log.jsonl', '--policy', 'tighten.yaml', '--fail-on', 'loosen'])).code).toBe(0);
    expect((await toolgate(['log.jsonl', '--policy', 'tighten.yaml', '--fail-on', 'any'])).code).toBe(1);
    expect((await toolgate(['log.jsonl', '--policy', 'old.yaml', '--fail-on', 'loosen'])).code).toBe(0);
  });

  it('prints the whole report as JSON with --json', async () => {
    const r = await toolgate(['log.jsonl', '--policy', 'tighten.yaml', '--json']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      log: join(dir, 'log.jsonl'),
      records: 24,
      flipped: 2,
      tightened: 2,
      byKind: [{ key: 'ask->deny', count: 2, samples: [{ seq: 4 }, { seq: 16 }] }],
    });
  });

  it('overrides the recorded mode with --mode', async () => {
    const r = await toolgate(['log.jsonl', '--policy', 'old.yaml', '--mode', 'dontAsk', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'dontAsk', byKind: [{ key: 'ask->deny' }] });
  });

  it('never draws a progress bar when stderr is not a terminal, nor leaves one behind', async () => {
    expect((await toolgate(['log.jsonl', '--policy', 'old.yaml'])).stderr).toBe('');
    // A short replay on a terminal finishes before the bar would be worth drawing.
    expect((await toolgate(['log.jsonl', '--policy', 'old.yaml'], true)).stderr).toBe('');
  });

  it('draws a throttled progress bar on a terminal once a replay runs long, and erases it', () => {
    let now = 1_000;
    const out: string[] = [];
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    tty.on('data', (d) => out.push(String(d)));
    const bar = progressBar(tty, () => now)!;
    const at = (ms: number, records: number) => {
      now = 1_000 + ms;
      bar.update({ records, bytes: records * 10, totalBytes: 100_000 });
    };
    at(100, 1_000); // too early to bother
    at(400, 4_000);
    at(450, 4_500); // throttled
    at(600, 6_000);
    bar.done();
    expect(out).toEqual([
      '\rreplaying [############..................]  40%  4,000 records',
      '\rreplaying [##################............]  60%  6,000 records',
      '\r\u001b[K',
    ]);
    expect(progressBar(new PassThrough())).toBeUndefined();
  });

  it('verifies against a signed checkpoint with --checkpoint and --public-key', async () => {
    const keys = generateKeyPairSync('ed25519');
    writeFileSync(join(dir, 'key.pub'), keys.publicKey.export({ type: 'spki', format: 'pem' }));
    await decidedLog(join(dir, 'cp.jsonl'), await policy(), 6, {
      checkpointPath: join(dir, 'cp.jsonl.cp'),
      signingKey: keys.privateKey,
    });
    const ok = await toolgate([
      'cp.jsonl',
      '--policy',
      'old.yaml',
      '--checkpoint',
      'cp.jsonl.cp',
      '--public-key',
      'key.pub',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      /Log: intact, 6 record\(s\), head [0-9a-f]{64}, checkpoint of 6 record\(s\), signature verified/,
    );
    writeLines(join(dir, 'cp.jsonl'), readLines(join(dir, 'cp.jsonl')).slice(0, 4));
    const cut = await toolgate([
      'cp.jsonl',
      '--policy',
      'old.yaml',
      '--checkpoint',
      'cp.jsonl.cp',
      '--public-key',
      'key.pub',
    ]);
    expect(cut.code).toBe(2);
    expect(cut.stderr).toMatch(/truncated.*counts 6 records but the log ends after 4/);
  });

  it('escapes control characters of the log in its summary', async () => {
    const log = join(dir, 'evil.jsonl');
    const p = await policy();
    await decidedLog(log, p, 1, {
      requests: [{ tool: 'Bash', input: { command: 'rm -rf x\u001b[2J\nseq 9 fake' } }],
    });
    const r = await toolgate(['evil.jsonl', '--policy', 'loosen.yaml']);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('rm -rf x\\u{1b}[2J\\u{a}seq 9 fake');
  });

  describe('on bad input: a clear message, exit 2, and nothing written', () => {
    it.each([
      ['a missing log', () => {}, 'nope.jsonl', /nope\.jsonl does not exist/],
      ['an empty log', () => writeFileSync(join(dir, 'e.jsonl'), ''), 'e.jsonl', /e\.jsonl is empty/],
      [
        'a log from a newer version',
        () => writeFileSync(join(dir, 'v.jsonl'), '{"v":2,"seq":1}\n'),
        'v.jsonl',
        /line 1: the record is format v2, written by a newer toolgate/,
      ],
      [
        'a corrupt line',
        () => {
          const lines = readLines(join(dir, 'log.jsonl'));
          lines[5] = lines[5]!.slice(0, 40);
          writeLines(join(dir, 'log.jsonl'), lines);
        },
        'log.jsonl',
        /not-json at line 6: the line is not JSON/,
      ],
      [
        'an edited record',
        () =>
          writeFileSync(
            join(dir, 'log.jsonl'),
            readFileSync(join(dir, 'log.jsonl'), 'utf8').replace('"behavior":"deny"', '"behavior":"allow"'),
          ),
        'log.jsonl',
        /edited at line 2 \(seq 2\)/,
      ],
    ])('%s', async (_what, prepare, file, message) => {
      prepare();
      const before = snapshot(dir);
      const r = await toolgate([file, '--policy', 'old.yaml', '--fail-on', 'any']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^toolgate replay: /);
      expect(r.stderr).toMatch(message);
      expect(snapshot(dir)).toEqual(before);
    });

    it('a broken policy', async () => {
      writeFileSync(join(dir, 'broken.yaml'), 'version: 1\nrules:\n  - allow: "Bash("\n');
      const before = snapshot(dir);
      const r = await toolgate(['log.jsonl', '--policy', 'broken.yaml']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/the policy was refused[\s\S]*broken\.yaml:3:\d+: bad allow rule/);
      expect(snapshot(dir)).toEqual(before);
    });

    it('replays a broken log with --no-verify, saying it was not verified', async () => {
      const lines = readLines(join(dir, 'log.jsonl'));
      lines[5] = 'garbage';
      writeLines(join(dir, 'log.jsonl'), lines);
      const r = await toolgate(['log.jsonl', '--policy', 'old.yaml', '--no-verify']);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(
        /Log: NOT VERIFIED \(--no-verify\); 1 line\(s\) skipped\n {2}line 6: not JSON/,
      );
      expect(r.stdout).toMatch(/Replayed 23 record\(s\)/);
    });
  });

  it('replays many logs and every *.jsonl below a directory, with totals; a broken one is not a pass', async () => {
    mkdirSync(join(dir, 'fleet', 'a'), { recursive: true });
    mkdirSync(join(dir, 'fleet', 'b'), { recursive: true });
    await decidedLog(join(dir, 'fleet', 'a', 'd.jsonl'), await policy(), 24);
    await decidedLog(join(dir, 'fleet', 'b', 'd.jsonl'), await policy(), 12);
    const r = await toolgate(['fleet', '--policy', 'loosen.yaml', '--fail-on', 'loosen']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/Replayed 24 record\(s\) of fleet\/a\/d\.jsonl/);
    expect(r.stdout).toMatch(/Replayed 12 record\(s\) of fleet\/b\/d\.jsonl/);
    expect(r.stdout).toMatch(
      /2 log\(s\): 36 record\(s\), 6 of 36 decision\(s\) would change \(6 loosen, 0 tighten\)/,
    );
    const json = await toolgate(['log.jsonl', 'fleet', '--policy', 'old.yaml', '--json']);
    expect(json.code).toBe(0);
    expect(
      json.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).records),
    ).toEqual([24, 24, 12]);
    const lines = readLines(join(dir, 'fleet', 'b', 'd.jsonl'));
    lines.splice(2, 1);
    writeLines(join(dir, 'fleet', 'b', 'd.jsonl'), lines);
    const broken = await toolgate(['fleet', '--policy', 'old.yaml', '--fail-on', 'any']);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/fleet\/b\/d\.jsonl: removed/);
    expect(broken.stdout).toMatch(/1 log\(s\) could not be replayed/);
  });

  describe('usage errors exit 2', () => {
    it.each([
      [[]],
      [['a.jsonl', 'b.jsonl']],
      [['log.jsonl', '--fail-on', 'sometimes']],
      [['log.jsonl', '--mode', 'yolo']],
      [['log.jsonl', '--bogus']],
      [['log.jsonl', '--public-key', 'k.pem']],
      [['log.jsonl', '--no-verify', '--checkpoint', 'log.cp']],
    ])('%j', async (argv) => {
      const r = await toolgate(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^toolgate replay: /);
    });
  });

  it('prints its help with --help', async () => {
    const r = await toolgate(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^usage: toolgate replay LOG/);
  });
});
