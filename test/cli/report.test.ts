import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { decidedLog, POLICY, POLICY_RM_ASKS, policy, REQUESTS, snapshot } from '../audit/fixtures/decided.js';
import { htmlProblems, textOf } from '../audit/fixtures/html.js';
import { readLines, tempDir, writeLines } from '../audit/fixtures/sample.js';
import { runMain } from '../helpers/main-in-process.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let dir = '';
const XSS = '</script><img src=x onerror=alert(1)>';

beforeEach(async () => {
  dir = join(t.dir, String(++n));
  mkdirSync(dir);
  writeFileSync(join(dir, 'candidate.yaml'), POLICY_RM_ASKS);
  await decidedLog(join(dir, 'log.jsonl'), await policy(), 26, {
    requests: [...REQUESTS, { tool: 'Bash', input: { command: XSS } }],
  });
});

const toolgate = (argv: string[]) =>
  runMain(['report', ...argv], { cwd: dir, env: { TOOLGATE_MANAGED_POLICY: join(dir, 'no-managed.yaml') } });

const page = () => readFileSync(join(dir, 'report.html'), 'utf8');

describe('toolgate report', () => {
  it('writes one well-formed page about an intact log and exits 0', async () => {
    const r = await toolgate(['log.jsonl', '--html', 'report.html']);
    expect(r).toMatchObject({
      code: 0,
      stdout: 'report.html: 26 record(s), log intact; by agent: (not named) 26\n',
      stderr: '',
    });
    const html = page();
    expect(htmlProblems(html)).toEqual([]);
    expect(textOf(html)).toMatch(/✓ Hash chain intact\s+26 record\(s\) verified; head\s+[0-9a-f]{64}/);
  });

  it('shows a command holding markup as text, never as markup', async () => {
    await toolgate(['log.jsonl', '--html', 'report.html']);
    const html = page();
    expect(html).not.toMatch(/<img|<\/script>|<script/i);
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(textOf(html)).toContain(XSS);
  });

  it('lists the rules of a policy that never decided anything (by text), on the page and on stdout', async () => {
    writeFileSync(
      join(dir, 'with-unused.yaml'),
      `${POLICY}  - deny: "Bash(terraform destroy *)"\n  - ask: "mcp__prod__*"\n`,
    );
    const r = await toolgate([
      'log.jsonl',
      '--html',
      'report.html',
      '--policy',
      'with-unused.yaml',
      '--json',
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(
      report.rules.neverDecided.map((u: { kind: string; text: string }) => `${u.kind} ${u.text}`).sort(),
    ).toEqual(['ask mcp__prod__*', 'deny Bash(terraform destroy *)']);
    expect(
      report.rules.used.find((u: { text: string }) => u.text === 'Bash(rm -rf *)').decided,
    ).toBeGreaterThan(0);
    expect(textOf(page())).toMatch(
      /Rules that never decided anything\s+2 of the policy's \d+ rule\(s\) decided none/,
    );
    const text = await toolgate(['log.jsonl', '--html', 'report.html', '--policy', 'with-unused.yaml']);
    expect(text.stdout).toMatch(/2 of \d+ rule\(s\) never decided anything:\n/);
    expect(text.stdout).toMatch(/\n {2}deny {2}Bash\(terraform destroy \*\) \(.*with-unused\.yaml:10\)\n/);
  });

  it('one report over a fleet of logs (a directory), split by log', async () => {
    mkdirSync(join(dir, 'fleet', 'a'), { recursive: true });
    mkdirSync(join(dir, 'fleet', 'b'), { recursive: true });
    await decidedLog(join(dir, 'fleet', 'a', 'd.jsonl'), await policy(), 10);
    await decidedLog(join(dir, 'fleet', 'b', 'd.jsonl'), await policy(), 4);
    const r = await toolgate(['fleet', '--html', 'report.html']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/report\.html: 14 record\(s\), log intact/);
    expect(r.stdout).toMatch(/by log: fleet\/a\/d\.jsonl 10, fleet\/b\/d\.jsonl 4/);
    expect(htmlProblems(page())).toEqual([]);
    expect(textOf(page())).toMatch(/By log \(machine\)/);
    const lines = readLines(join(dir, 'fleet', 'b', 'd.jsonl'));
    lines.splice(1, 1);
    writeLines(join(dir, 'fleet', 'b', 'd.jsonl'), lines);
    const broken = await toolgate(['fleet', '--html', 'report.html']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/fleet\/b\/d\.jsonl is not intact/);
  });

  it('adds the replay under --policy', async () => {
    const r = await toolgate(['log.jsonl', '--html', 'report.html', '--policy', 'candidate.yaml']);
    expect(r.code).toBe(0);
    expect(textOf(page())).toMatch(
      /Replay under a candidate policy[\s\S]*4\s+of 26 decision\(s\) would change,\s+4 loosen\s+and\s+0 tighten/,
    );
  });

  it('prints the figures as JSON with --json', async () => {
    const r = await toolgate(['log.jsonl', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ records: 26, verify: { ok: true, count: 26 } });
  });

  it('replaces an existing page whole', async () => {
    writeFileSync(join(dir, 'report.html'), 'old');
    expect((await toolgate(['log.jsonl', '--html', 'report.html'])).code).toBe(0);
    expect(page()).toMatch(/^<!DOCTYPE html>/);
    expect(Object.keys(snapshot(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  describe('a log that is not intact', () => {
    beforeEach(() => {
      const lines = readLines(join(dir, 'log.jsonl'));
      lines[4] = lines[4]!.replace('"cwd":"/work/project"', '"cwd":"/work/elsewhere"');
      writeLines(join(dir, 'log.jsonl'), lines);
      writeFileSync(join(dir, 'report.html'), 'the last good report');
    });

    it('is refused: exit 1, a clear message, and the old page stays', async () => {
      const before = snapshot(dir);
      const r = await toolgate(['log.jsonl', '--html', 'report.html']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /is not intact: edited at line 5 \(seq 5\): the content does not match its hash\n {2}no report was written/,
      );
      expect(snapshot(dir)).toEqual(before);
    });

    it('is reported with --allow-broken, the problem first and prominent, and exit 1', async () => {
      const r = await toolgate(['log.jsonl', '--html', 'report.html', '--allow-broken']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('report.html: 26 record(s), log NOT INTACT (edited); by agent: (not named) 26\n');
      const html = page();
      expect(htmlProblems(html)).toEqual([]);
      expect(html).toMatch(
        /<section class="banner broken" role="alert"><h2>✗ NOT INTACT: edited at line 5 \(seq 5\)<\/h2>/,
      );
      expect(html.indexOf('banner broken')).toBeLessThan(html.indexOf('Decisions over time'));
    });
  });

  describe('bad input: a clear message, non-zero exit, nothing written or overwritten', () => {
    it.each([
      ['a missing log', () => {}, ['nope.jsonl'], 2, /nope\.jsonl does not exist/],
      ['an empty log', () => writeFileSync(join(dir, 'e.jsonl'), ''), ['e.jsonl'], 2, /e\.jsonl is empty/],
      [
        'a log from a newer version',
        () => writeFileSync(join(dir, 'v.jsonl'), '{"v":2,"seq":1}\n'),
        ['v.jsonl'],
        2,
        /format v2, written by a newer toolgate/,
      ],
      [
        'a corrupt line',
        () => {
          const lines = readLines(join(dir, 'log.jsonl'));
          lines[3] = '{"v":1,';
          writeLines(join(dir, 'log.jsonl'), lines);
        },
        ['log.jsonl'],
        1,
        /not-json at line 4: the line is not JSON/,
      ],
      [
        'a broken policy',
        () => writeFileSync(join(dir, 'bad.yaml'), 'version: 1\nrules:\n  - deny: "Bash("\n'),
        ['log.jsonl', '--policy', 'bad.yaml'],
        2,
        /the policy was refused[\s\S]*bad\.yaml:3:\d+: bad deny rule/,
      ],
      [
        'the log as the output',
        () => {},
        ['log.jsonl', '--html', 'log.jsonl'],
        2,
        /is one of the inputs: it would be overwritten/,
      ],
      [
        'a link to the log as the output',
        () => symlinkSync(join(dir, 'log.jsonl'), join(dir, 'link.html')),
        ['log.jsonl', '--html', 'link.html'],
        2,
        /is one of the inputs/,
      ],
      [
        'a policy file as the output',
        () => {},
        ['log.jsonl', '--policy', 'candidate.yaml', '--html', 'candidate.yaml'],
        2,
        /is one of the inputs/,
      ],
      [
        'an output directory that does not exist',
        () => {},
        ['log.jsonl', '--html', 'no/such/dir/r.html'],
        2,
        /cannot write no\/such\/dir\/r\.html/,
      ],
      [
        'a directory as the output',
        () => mkdirSync(join(dir, 'out.html')),
        ['log.jsonl', '--html', 'out.html'],
        2,
        /cannot write out\.html: it is a directory/,
      ],
    ])('%s', async (_what, prepare, argv, code, message) => {
      prepare();
      writeFileSync(join(dir, 'report.html'), 'the last good report');
      const before = snapshot(dir);
      const r = await toolgate(argv.includes('--html') ? argv : [...argv, '--html', 'report.html']);
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^toolgate report: /);
      expect(r.stderr).toMatch(message);
      expect(snapshot(dir)).toEqual(before);
    });
  });

  describe('usage errors exit 2', () => {
    it.each([
      [[]],
      [['log.jsonl']],
      [['a.jsonl', 'b.jsonl', '--html', 'r.html']],
      [['log.jsonl', '--html', 'r.html', '--mode', 'plan']],
      [['log.jsonl', '--html', 'r.html', '--public-key', 'k.pem']],
      [['log.jsonl', '--html', 'r.html', '--policy', 'candidate.yaml', '--mode', 'yolo']],
    ])('%j', async (argv) => {
      const r = await toolgate(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^toolgate report: /);
    });
  });

  it('prints its help with --help', async () => {
    expect(await toolgate(['--help'])).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^usage: toolgate report LOG\.\.\. --html OUT/),
    });
  });

  it('takes the log written under the policy it replays against as unchanged', async () => {
    writeFileSync(join(dir, 'same.yaml'), POLICY);
    const r = await toolgate(['log.jsonl', '--json', '--policy', 'same.yaml']);
    expect(JSON.parse(r.stdout).replay).toMatchObject({ flipped: 0 });
  });
});
