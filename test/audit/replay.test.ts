import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { DecisionLog } from '../../src/audit/log.js';
import { ReplayError, type ReplayReport, replayLog } from '../../src/audit/replay.js';
import { decideWithClassifier } from '../../src/policy/auto.js';
import { decide } from '../../src/policy/decide.js';
import { CWD, decidedLog, POLICY, POLICY_RM_ASKS, policy, REQUESTS, snapshot } from './fixtures/decided.js';
import { forge, readLines, tempDir, writeLines } from './fixtures/sample.js';

const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let dir = '';
let log = '';
beforeEach(() => {
  dir = join(t.dir, String(++n));
  mkdirSync(dir);
  log = join(dir, 'log.jsonl');
});

const ALL = { samples: 1000 };

describe('replayLog', () => {
  it('reports zero flips when a log is replayed under its own policy', async () => {
    const p = await policy();
    const { records } = await decidedLog(log, p, 60);
    const report = await replayLog(log, p, ALL);
    expect(report).toMatchObject({
      records: 60,
      compared: 60,
      unchanged: 60,
      flipped: 0,
      loosened: 0,
      tightened: 0,
      reattributed: 0,
      byKind: [],
      byTool: [],
      byRule: [],
      sameDigest: { records: 60, flipped: 0 },
      recordedUnder: [{ key: p.digest, count: 60 }],
      verification: { verified: true, count: 60, head: records[59]!.hash },
    });
    // The log holds every kind of decision, so zero flips is not for lack of variety.
    expect(new Set(records.map((r) => r.decision.behavior))).toEqual(new Set(['allow', 'ask', 'deny']));
  });

  it('reports exactly the records one changed rule affects, and nothing else', async () => {
    const { records } = await decidedLog(log, await policy(), 48);
    const candidate = await policy(POLICY_RM_ASKS);
    const report = await replayLog(log, candidate, ALL);

    const affected = records
      .filter((r) => /^rm -rf /.test((r.request.input as { command?: string }).command ?? ''))
      .map((r) => r.seq);
    expect(affected.length).toBeGreaterThan(0);
    expect(report.flipped).toBe(affected.length);
    expect(report.loosened).toBe(affected.length);
    expect(report.tightened).toBe(0);
    expect(report.byKind.map((g) => [g.key, g.count])).toEqual([['deny->ask', affected.length]]);
    expect(report.byTool.map((g) => [g.key, g.count])).toEqual([['Bash', affected.length]]);
    expect(report.byRule).toHaveLength(1);
    const [group] = report.byRule;
    expect(group!.from).toBe('Bash(rm -rf *) (/work/project/.toolgate/policy.yaml:4)');
    expect(group!.to).toBe('Bash(rm -rf *) (/work/project/.toolgate/policy.yaml:4)');
    expect(group!.samples.map((s) => s.seq)).toEqual(affected);
    expect(group!.samples[0]).toMatchObject({
      tool: 'Bash',
      subject: 'rm -rf build',
      from: { behavior: 'deny', decidedBy: 'rule', rule: { id: 'no-rm', text: 'Bash(rm -rf *)' } },
      to: { behavior: 'ask', decidedBy: 'rule', rule: { text: 'Bash(rm -rf *)' } },
      direction: 'loosen',
      redacted: false,
    });
    expect(report.unchanged).toBe(48 - affected.length);
    expect(report.sameDigest).toEqual({ records: 0, flipped: 0 });
  });

  it('matches an independent re-decision record by record', async () => {
    const { decided } = await decidedLog(log, await policy(), 24);
    const candidate = await policy(
      POLICY.replace('allow: "WebFetch(domain:*.github.com)"', 'deny: "WebFetch(domain:*.com)"'),
    );
    const report = await replayLog(log, candidate, ALL);
    const expected = decided
      .map((d, i) => ({ seq: i + 1, from: d.decision.behavior, to: decide(d.request, candidate).behavior }))
      .filter((d) => d.from !== d.to);
    const got = report.byKind.flatMap((g) =>
      g.samples.map((s) => ({ seq: s.seq, from: s.from.behavior, to: s.to.behavior })),
    );
    expect(got.sort((a, b) => a.seq - b.seq)).toEqual(expected);
    expect(report.byKind.map((g) => g.key)).toEqual(['allow->deny', 'ask->deny']);
  });

  it('decides remembered (Bash) and re-decided (other) records as decide() does, reason and rule too', async () => {
    // Three rounds of every request: Bash lines come from the memo the second time, the others
    // are decided again; either way the new side is exactly an independent decision.
    const { decided } = await decidedLog(log, await policy(), 36);
    const candidate = await policy(
      POLICY_RM_ASKS.replace('deny: "Read(**/.env)"', 'ask: "Read(**/.env)"').replace(
        'allow: "WebFetch(domain:*.github.com)"',
        'deny: "WebFetch(domain:*.com)"',
      ),
    );
    const report = await replayLog(log, candidate, ALL);
    const side = (d: ReturnType<typeof decide>) => ({
      behavior: d.behavior,
      decidedBy: d.decidedBy,
      ...(d.rule !== undefined && { rule: d.rule }),
      reason: d.reason,
    });
    const expected = decided
      .map((d, i) => ({ seq: i + 1, from: d.decision.behavior, to: side(decide(d.request, candidate)) }))
      .filter((d) => d.from !== d.to.behavior);
    const got = report.byKind.flatMap((g) =>
      g.samples.map((s) => ({ seq: s.seq, from: s.from.behavior, to: s.to })),
    );
    expect(got.sort((a, b) => a.seq - b.seq)).toEqual(expected);
    expect(
      new Set(got.map((g) => report.byTool.find((t) => t.samples.some((s) => s.seq === g.seq))?.key)),
    ).toEqual(new Set(['Bash', 'Read', 'WebFetch']));
  });

  it('is deterministic: the same log and policy give the same report', async () => {
    await decidedLog(log, await policy(), 36);
    const candidate = await policy(
      POLICY_RM_ASKS.replace('ask: "Bash(git push *)"', 'allow: "Bash(git push *)"'),
    );
    const a = await replayLog(log, candidate);
    const b = await replayLog(
      log,
      await policy(POLICY_RM_ASKS.replace('ask: "Bash(git push *)"', 'allow: "Bash(git push *)"')),
    );
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(a.byKind.map((g) => [g.key, g.count])).toEqual([
      ['deny->ask', 6],
      ['ask->allow', 3],
    ]);
    // Samples are capped per group and come first in log order.
    expect(a.byKind.every((g) => g.samples.length <= 5)).toBe(true);
  });

  it('decides every record in the given mode when one is given', async () => {
    await decidedLog(log, await policy(), 12);
    const report = await replayLog(log, await policy(), { mode: 'dontAsk', ...ALL });
    expect(report.mode).toBe('dontAsk');
    expect(report.byKind.map((g) => g.key)).toEqual(['ask->deny']);
    expect(report.tightened).toBe(report.flipped);
  });

  it('flags redacted records: replayed on the redacted text, never a silent flip', async () => {
    const text = `version: 1\nrules:\n  - deny: "Bash(deploy --token=hunter2*)"\n`;
    const live = await policy(text);
    await decidedLog(log, live, 4, {
      redact: true,
      requests: [
        { tool: 'Bash', input: { command: 'deploy --token=hunter2secret' } },
        { tool: 'Bash', input: { command: 'git status' } },
      ],
    });
    const first = JSON.parse(readLines(log)[0]!) as { request: { input: { command: string } } };
    expect(first.request.input.command).toMatch(/^deploy --token=\[redacted sha256:[0-9a-f]{16}\]$/);
    const report = await replayLog(log, live, ALL);
    expect(report.redacted).toEqual({ records: 2, flipped: 2, samples: [1, 3] });
    expect(report.byKind[0]).toMatchObject({ key: 'deny->ask', count: 2, redacted: 2 });
    expect(report.byKind[0]!.samples.every((s) => s.redacted)).toBe(true);
    // They were decided under this very digest: the flip is not the policy's doing.
    expect(report.sameDigest).toEqual({ records: 4, flipped: 2 });
  });

  it('does not compare classifier verdicts the policy would hand to the classifier again', async () => {
    const p = await policy();
    const dl = await DecisionLog.open(log, { grammarVersion: '0.25.1' });
    for (const r of REQUESTS) {
      const request = { ...r, cwd: CWD, mode: 'auto' as const };
      await dl.append({ request, decision: await decideWithClassifier(request, p) });
    }
    const hook = { ...REQUESTS[0]!, cwd: CWD };
    await dl.append({ request: hook, decision: { ...decide(hook, p), behavior: 'deny', decidedBy: 'hook' } });
    await dl.close();
    const report = await replayLog(log, p);
    expect(report.notCompared.hook).toBe(1);
    expect(report.notCompared.classifier).toBeGreaterThan(0);
    expect(report.flipped).toBe(0);
    expect(report.compared + report.notCompared.classifier + report.notCompared.hook).toBe(
      REQUESTS.length + 1,
    );
    // Outside auto mode the policy decides those records itself, and they are compared.
    const manual = await replayLog(log, p, { mode: 'default' });
    expect(manual.notCompared.classifier).toBe(0);
    expect(manual.flipped).toBeGreaterThan(0);
  });

  it("keeps a person's answer when the candidate would ask again, and compares it when the policy now decides", async () => {
    const p = await policy();
    const dl = await DecisionLog.open(log, { grammarVersion: '0.25.1' });
    const push = { tool: 'Bash', input: { command: 'git push origin main' }, cwd: CWD };
    const asked = decide(push, p);
    expect(asked.behavior).toBe('ask');
    await dl.append({ request: push, decision: { ...asked, behavior: 'allow', decidedBy: 'user' } });
    await dl.close();

    const again = await replayLog(log, p);
    expect(again).toMatchObject({ compared: 0, flipped: 0, notCompared: { user: 1 } });
    // Once a rule denies it, the approval no longer stands: that is a flip an auditor must see.
    const denied = await replayLog(
      log,
      await policy(POLICY.replace('ask: "Bash(git push *)"', 'deny: "Bash(git push *)"')),
    );
    expect(denied).toMatchObject({ compared: 1, flipped: 1, tightened: 1, notCompared: { user: 0 } });
  });

  it('reports progress, ending with the whole file', async () => {
    await decidedLog(log, await policy(), 10);
    const seen: number[] = [];
    await replayLog(log, await policy(), { onProgress: (p) => seen.push(p.records) });
    expect(seen.at(-1)).toBe(10);
  });

  describe('refuses a log it cannot vouch for, and changes nothing', () => {
    let p: Awaited<ReturnType<typeof policy>>;
    beforeEach(async () => {
      p = await policy();
    });

    async function refused(kind: string, message: RegExp, file = log): Promise<ReplayError> {
      const before = snapshot(dir);
      const err = await replayLog(file, p).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ReplayError);
      expect((err as ReplayError).kind).toBe(kind);
      expect((err as ReplayError).message).toMatch(message);
      expect(snapshot(dir)).toEqual(before);
      return err as ReplayError;
    }

    it('a missing log', async () => {
      await refused('missing', /nope\.jsonl does not exist/, join(dir, 'nope.jsonl'));
    });

    it('an empty log', async () => {
      writeFileSync(log, '');
      await refused('empty', /is empty: it holds no records/);
    });

    it('a log from a newer version', async () => {
      await decidedLog(log, p, 2);
      writeFileSync(log, `${readFileSync(log, 'utf8')}{"v":2,"seq":3,"anything":"new"}\n`);
      await refused('newer-version', /line 3: the record is format v2, written by a newer toolgate/);
    });

    it('a corrupt line', async () => {
      await decidedLog(log, p, 3);
      const lines = readLines(log);
      lines[1] = '{"v":1,"seq":2,';
      writeLines(log, lines);
      const err = await refused('not-intact', /not-json at line 2: the line is not JSON.*not replayed/);
      expect(err.verify).toMatchObject({ ok: false, kind: 'not-json', line: 2 });
    });

    it('an edited record', async () => {
      await decidedLog(log, p, 5);
      writeFileSync(log, readFileSync(log, 'utf8').replace('"behavior":"deny"', '"behavior":"allow"'));
      await refused('not-intact', /edited at line \d+/);
    });

    it('a forged record with a recomputed hash (the chain breaks)', async () => {
      await decidedLog(log, p, 5);
      const lines = readLines(log);
      lines[2] = forge(lines[2]!, (r) => {
        (r.decision as { behavior: string }).behavior = 'deny';
      });
      writeLines(log, lines);
      await refused('not-intact', /at line [34]/);
    });

    it('a torn last line', async () => {
      await decidedLog(log, p, 3);
      writeFileSync(log, readFileSync(log).subarray(0, -10));
      await refused('not-intact', /truncated at line 3/);
    });

    it('a cut-off tail, when given the checkpoint', async () => {
      await decidedLog(log, p, 6, { checkpointPath: join(dir, 'log.cp') });
      writeLines(log, readLines(log).slice(0, 4));
      const before = snapshot(dir);
      await expect(replayLog(log, p, { checkpointPath: join(dir, 'log.cp') })).rejects.toMatchObject({
        kind: 'not-intact',
        message: expect.stringMatching(/truncated.*counts 6 records but the log ends after 4/),
      });
      expect(snapshot(dir)).toEqual(before);
    });

    it('a line that hashes correctly but is not a record', async () => {
      await decidedLog(log, p, 2);
      const lines = readLines(log);
      lines[1] = forge(lines[1]!, (r) => {
        delete (r as { request?: unknown }).request;
      });
      writeLines(log, lines);
      await refused('not-a-record', /line 2: not a v1 decision record: request/);
    });
  });

  describe('without verification', () => {
    it('replays the records that parse and lists the lines it skipped', async () => {
      const p = await policy();
      await decidedLog(log, p, 4);
      const lines = readLines(log);
      lines.splice(2, 0, 'garbage');
      writeLines(log, [...lines.slice(0, 4), lines[4]!.replace('"deny"', '"allow"')]);
      const report: ReplayReport = await replayLog(log, p, { verify: false });
      expect(report.verification).toEqual({
        verified: false,
        skipped: [{ line: 3, message: expect.stringMatching(/^not JSON/) }],
        skippedCount: 1,
        tornBytes: 0,
      });
      expect(report.records).toBe(4);
    });

    it('still refuses a newer format and a log with nothing readable', async () => {
      const p = await policy();
      writeFileSync(log, '{"v":2}\n');
      await expect(replayLog(log, p, { verify: false })).rejects.toMatchObject({ kind: 'newer-version' });
      writeFileSync(log, 'nothing\nhere\n');
      await expect(replayLog(log, p, { verify: false })).rejects.toMatchObject({
        kind: 'empty',
        message: expect.stringMatching(/no readable records \(2 line\(s\) skipped/),
      });
    });
  });
});
