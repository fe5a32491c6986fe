/**
 * toolgate diff-policy OLD NEW: every request of the logs and corpora decided under both
 * policies, through the CLI. The recorded decisions play no part.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { decidedLog, POLICY, POLICY_RM_ASKS, policy } from '../audit/fixtures/decided.js';
import { readLines, tempDir, writeLines } from '../audit/fixtures/sample.js';
import { runMain } from '../helpers/main-in-process.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let dir = '';

const STRICT = POLICY.replace('ask: "Bash(git push *)"', 'deny: "Bash(git push *)"');

beforeEach(async () => {
  dir = join(t.dir, String(++n));
  mkdirSync(join(dir, 'fleet', 'a'), { recursive: true });
  mkdirSync(join(dir, 'fleet', 'b'), { recursive: true });
  writeFileSync(join(dir, 'old.yaml'), POLICY);
  writeFileSync(join(dir, 'loosen.yaml'), POLICY_RM_ASKS);
  writeFileSync(join(dir, 'strict.yaml'), STRICT);
  // Logs decided under yet another policy: diff-policy does not look at their decisions.
  const other = await policy('version: 1\nmode: bypassPermissions\n');
  await decidedLog(join(dir, 'fleet', 'a', 'd.jsonl'), other, 24);
  await decidedLog(join(dir, 'fleet', 'b', 'd.jsonl'), other, 12);
});

const toolgate = (...argv: string[]) =>
  runMain(['diff-policy', ...argv], {
    cwd: dir,
    env: { TOOLGATE_MANAGED_POLICY: join(dir, 'no-managed.yaml') },
  });

describe('toolgate diff-policy', () => {
  it('lists what loosens over a fleet of logs, by kind, tool and rule, with samples and their log', async () => {
    const r = await toolgate('old.yaml', 'loosen.yaml', '--logs', 'fleet', '--fail-on', 'loosen');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^36 request\(s\) from 2 log\(s\), decided under old\.yaml .* and loosen\.yaml/);
    expect(r.stdout).toMatch(/6 of 36 decision\(s\) would change: 6 loosen, 0 tighten\./);
    expect(r.stdout).toMatch(/By kind:\n {2}deny -> ask +6 {2}loosen/);
    expect(r.stdout).toMatch(
      /Bash\(rm -rf \*\) \(.*old\.yaml:4\)\n +-> Bash\(rm -rf \*\) \(.*loosen\.yaml:4\)/,
    );
    expect(r.stdout).toMatch(/seq 2 +Bash +deny -> ask {2}rm -rf build {2}\(fleet\/a\/d\.jsonl\)/);
    // The same policy twice: nothing changes, whatever the logs recorded.
    const same = await toolgate('old.yaml', 'old.yaml', '--logs', 'fleet', '--fail-on', 'any');
    expect(same).toMatchObject({ code: 0 });
    expect(same.stdout).toMatch(/No decision would change\./);
  });

  it('tightening and a corpus of requests; --json', async () => {
    writeFileSync(
      join(dir, 'corpus.jsonl'),
      [
        { tool: 'Bash', input: { command: 'git push origin main' }, cwd: '/work/project' },
        { tool: 'Bash', input: { command: 'git status' } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n'),
    );
    const r = await toolgate(
      'old.yaml',
      'strict.yaml',
      '--corpus',
      'corpus.jsonl',
      '--fail-on',
      'loosen',
      '--json',
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({ requests: 2, flipped: 1, loosened: 0, tightened: 1 });
    expect(report.byKind[0]).toMatchObject({ key: 'ask->deny', count: 1 });
    expect(report.byKind[0].samples[0]).toMatchObject({ seq: 1, subject: 'git push origin main' });
    expect(
      (await toolgate('old.yaml', 'strict.yaml', '--corpus', 'corpus.jsonl', '--fail-on', 'any')).code,
    ).toBe(1);
  });

  it('a log that does not verify stops the run (2); a bad corpus line too; nothing to decide is a usage error', async () => {
    const lines = readLines(join(dir, 'fleet', 'b', 'd.jsonl'));
    lines.splice(3, 1);
    writeLines(join(dir, 'fleet', 'b', 'd.jsonl'), lines);
    const broken = await toolgate('old.yaml', 'loosen.yaml', '--logs', 'fleet');
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/fleet\/b\/d\.jsonl: not-intact/);
    expect((await toolgate('old.yaml', 'loosen.yaml', '--logs', 'fleet', '--no-verify')).code).toBe(0);
    writeFileSync(join(dir, 'bad.jsonl'), 'not json\n');
    expect(await toolgate('old.yaml', 'loosen.yaml', '--corpus', 'bad.jsonl')).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/bad\.jsonl:1: not JSON/),
    });
    expect((await toolgate('old.yaml', 'loosen.yaml')).code).toBe(2);
    expect((await toolgate('old.yaml', '--logs', 'fleet')).code).toBe(2);
  });
});
