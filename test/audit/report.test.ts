import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { esc } from '../../src/audit/html.js';
import { type AuditReport, buildAuditReport, ReportError } from '../../src/audit/report.js';
import { renderReportHtml } from '../../src/audit/report-html.js';
import { BUCKET_SIZES, TimelineCounter } from '../../src/audit/timeline.js';
import { decidedLog, POLICY_RM_ASKS, policy, REQUESTS } from './fixtures/decided.js';
import { htmlProblems, textOf } from './fixtures/html.js';
import { readLines, tempDir, writeLines } from './fixtures/sample.js';

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

const XSS = '</script><img src=x onerror=alert(1)>';
const NOW = new Date('2026-11-29T12:00:00Z');

describe('buildAuditReport', () => {
  it('counts the decisions of an intact log by behavior, tool, rule, step, mode and session', async () => {
    const { records } = await decidedLog(log, await policy(), 36);
    const r = await buildAuditReport(log, { now: NOW });
    expect(r.verify).toEqual({ ok: true, count: 36, head: records[35]!.hash });
    expect(r.records).toBe(36);
    const by = (b: string) => records.filter((x) => x.decision.behavior === b).length;
    expect(r.byBehavior).toEqual({ allow: by('allow'), ask: by('ask'), deny: by('deny') });
    expect(r.byTool.map((x) => x.key)).toEqual(['Bash', 'Read', 'WebFetch', 'Edit', 'TodoWrite']);
    expect(r.byTool[0]).toMatchObject({ key: 'Bash', total: 18 });
    expect(r.byRule.find((x) => x.key.startsWith('Bash(rm -rf *)'))).toMatchObject({ total: 6, deny: 6 });
    expect(r.byDecidedBy.reduce((s, x) => s + x.total, 0)).toBe(36);
    expect(r.sessions.count).toBe(3);
    expect(r.sessions.rows.map((s) => s.key)).toEqual(['session-0', 'session-1', 'session-2']);
    // Equal counts are ordered by the command or target.
    expect(r.topDenied.map((e) => [e.tool, e.subject, e.count])).toEqual([
      ['Read', '.env', 3],
      ['Bash', 'rm -rf build', 3],
      ['Bash', 'rm -rf node_modules && npm ci', 3],
    ]);
    expect(r.topDenied[1]!.decidedBy).toBe('Bash(rm -rf *) (/work/project/.toolgate/policy.yaml:4)');
    expect(r.topAsked.map((e) => e.subject)).toContain('git push origin main');
    const buckets = r.timeline!.buckets;
    expect(buckets.reduce((s, b) => s + b.allow + b.ask + b.deny, 0)).toBe(36);
    expect(r.span).toEqual({ first: records[0]!.ts, last: records[35]!.ts });
    expect(r.generatedAt).toBe(NOW.toISOString());
    expect(r.replay).toBeUndefined();
  });

  it('adds what a candidate policy would change', async () => {
    await decidedLog(log, await policy(), 12);
    const r = await buildAuditReport(log, { policy: await policy(POLICY_RM_ASKS) });
    expect(r.replay).toMatchObject({ flipped: 2, loosened: 2, byKind: [{ key: 'deny->ask' }] });
  });

  it('refuses a log that is not intact, unless asked to report it anyway', async () => {
    await decidedLog(log, await policy(), 6);
    const lines = readLines(log);
    lines[2] = lines[2]!.replace('"cwd":"/work/project"', '"cwd":"/work/elsewhere"');
    writeLines(log, lines);
    await expect(buildAuditReport(log)).rejects.toMatchObject({
      kind: 'not-intact',
      message: expect.stringMatching(/is not intact: edited at line 3 \(seq 3\)/),
    });
    const r = await buildAuditReport(log, { allowBroken: true });
    expect(r.verify).toMatchObject({ ok: false, kind: 'edited', line: 3 });
    expect(r.records).toBe(6);
    const html = renderReportHtml(r);
    expect(textOf(html)).toMatch(/NOT INTACT: edited at line 3 \(seq 3\)/);
    expect(textOf(html)).toMatch(/they cannot be trusted/);
  });

  it.each([
    ['missing', () => {}],
    ['empty', (f: string) => writeFileSync(f, '')],
    ['newer-version', (f: string) => writeFileSync(f, '{"v":2,"seq":1}\n')],
  ])('refuses a %s log, even when asked to report a broken one', async (kind, prepare) => {
    prepare(log);
    const err = await buildAuditReport(log, { allowBroken: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReportError);
    expect(err).toMatchObject({ kind });
  });
});

describe('renderReportHtml', () => {
  async function report(): Promise<AuditReport> {
    await decidedLog(log, await policy(), 24, {
      requests: [...REQUESTS, { tool: 'Bash', input: { command: XSS } }],
    });
    return buildAuditReport(log, { now: NOW, policy: await policy(POLICY_RM_ASKS) });
  }

  it('is one well-formed, self-contained page with every section', async () => {
    const html = renderReportHtml(await report());
    expect(htmlProblems(html)).toEqual([]);
    expect(html).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">`,
    );
    const text = textOf(html);
    for (const heading of [
      'Decision log audit report',
      '✓ Hash chain intact',
      'Decisions over time',
      'By tool',
      'By deciding step',
      'By rule',
      'Most denied commands and targets',
      'Most asked commands and targets',
      'Sessions',
      'Replay under a candidate policy',
      'Policies and versions',
    ])
      expect(text).toContain(heading);
    expect(html).toMatch(/<svg class="timeline" viewBox="0 0 1000 240"/);
  });

  it('has a structure check that finds what escaping must prevent', () => {
    const page = (body: string) => `<!DOCTYPE html>\n<html><body>${body}</body></html>`;
    expect(htmlProblems(page('<p>ok &lt;b&gt;</p>'))).toEqual([]);
    expect(htmlProblems(page(XSS))).not.toEqual([]);
    expect(htmlProblems(page('<p title="x" onclick="y">z</p>'))).toEqual(['attribute onclick on <p>']);
    expect(htmlProblems(page('<p><code>x</p>'))).not.toEqual([]);
    expect(htmlProblems(page('<p>a < b</p>'))).not.toEqual([]);
    expect(htmlProblems(page('<p title="a"b">c</p>'))).not.toEqual([]);
  });

  it('renders a command holding markup as text', async () => {
    const html = renderReportHtml(await report());
    expect(html).not.toContain('<img');
    expect(html).not.toContain('</script>');
    expect(html).toContain('&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(textOf(html)).toContain(XSS);
  });

  it('shows invisible and control characters instead of letting them reorder or hide text', () => {
    expect(esc('a\u202Eb\u0007c\nd')).toBe('a\\u{202e}b\\u{7}c\\u{a}d');
  });

  // Whatever strings the log holds, the page keeps its structure and shows them as text.
  it('escapes arbitrary strings from the log everywhere they appear (property)', async () => {
    const base = await report();
    const tricky = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 40 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.constantFrom(
        XSS,
        '"><svg onload=alert(1)>',
        "' onmouseover='x",
        '<!--',
        ']]>',
        '&amp;',
        '<style>',
        '\u202Eevil',
      ),
    );
    fc.assert(
      fc.property(tricky, tricky, tricky, (a, b, c) => {
        const r: AuditReport = {
          ...base,
          log: a,
          byTool: [{ key: b, total: 1, allow: 1, ask: 0, deny: 0 }],
          byRule: [{ key: c, total: 1, allow: 0, ask: 0, deny: 1 }],
          topDenied: [{ tool: b, subject: a, count: 1, decidedBy: c, lastSeq: 1, lastTs: base.span!.first }],
          sessions: {
            count: 1,
            rows: [{ key: c, total: 1, allow: 1, ask: 0, deny: 0, first: a, last: b, agents: 0 }],
          },
          policies: [{ key: a, count: 1 }],
          versions: [{ key: b, count: 1 }],
          verify: { ok: false, kind: 'edited', message: c, line: 1, verified: 0 },
        };
        const html = renderReportHtml(r);
        expect(htmlProblems(html)).toEqual([]);
        expect(html).toContain(esc(b));
      }),
      { numRuns: 200 },
    );
  });
});

describe('TimelineCounter', () => {
  it('keeps every decision while it coarsens, and ends with at most the bars asked for', () => {
    const c = new TimelineCounter();
    const start = Date.parse('2026-01-01T00:00:00Z');
    let total = 0;
    for (let i = 0; i < 20_000; i++) {
      c.add(start + i * 7_919, i % 3 === 0 ? 'deny' : 'allow');
      total++;
    }
    const tl = c.result(60)!;
    expect(tl.buckets.length).toBeLessThanOrEqual(60);
    expect(BUCKET_SIZES).toContain(tl.bucketMs);
    expect(tl.buckets.reduce((s, b) => s + b.allow + b.ask + b.deny, 0)).toBe(total);
    expect(tl.buckets.every((b, i) => i === 0 || b.t - tl.buckets[i - 1]!.t === tl.bucketMs)).toBe(true);
  });

  it('has no timeline without decisions, and ignores times it cannot read', () => {
    const c = new TimelineCounter();
    expect(c.result()).toBeUndefined();
    c.add(Number.NaN, 'allow');
    expect(c.result()).toBeUndefined();
  });
});

it('keeps the page unchanged for a given report (deterministic)', async () => {
  await decidedLog(log, await policy(), 12);
  const a = renderReportHtml(await buildAuditReport(log, { now: NOW }));
  const b = renderReportHtml(await buildAuditReport(log, { now: NOW }));
  expect(b).toBe(a);
  expect(readFileSync(log, 'utf8')).toContain('"seq":12');
});
