import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * The HTML report shows asks a person answered as asked, with who answered and how (issue 19:
 * for the demo's log, where 12 calls went to a person and 2 were approved, the page said
 * "ASKED 0" and "Nothing was asked"). Through the real CLI, on the log `toolgate demo` writes.
 */
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-report-asks-')));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('toolgate report on asks a person answered', { timeout: 180_000 }, () => {
  it('counts them as asked, says who answered and how, and lists them among the asks', async () => {
    const demo = await runCli(['demo', '--wide'], { cwd: dir, env: { COLUMNS: '200' } });
    expect(demo.code, demo.stderr).toBe(0);
    const log = /^decision log: (\S+)$/m.exec(demo.stdout)![1]!;
    const html = path.join(dir, 'report.html');
    const json = await runCli(['report', log, '--html', html, '--json'], { cwd: dir });
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    expect(report.askedOfPerson).toEqual({ approved: 2, refused: 10 });
    const page = fs.readFileSync(html, 'utf8');
    expect(page).not.toContain('Nothing was asked');
    expect(page).toMatch(
      /<div class="label">Asked<\/div><div class="value">12<\/div><div class="note">12 answered by a person: 2 approved, 10 refused<\/div>/,
    );
    expect(page).toContain('a person: approved');
    expect(page).toContain('a person: refused');
    fs.rmSync(path.dirname(log), { recursive: true, force: true });
  });
});
