import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/verify.js';
import { runCli } from '../helpers/cli.js';

/** The outcome column of the demo's table, by its "call" column. */
function outcomes(stdout: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const m = /^(\d+)\s+\S+\s+(.{44}) (.{18}) /.exec(line);
    if (m) rows.set(m[2]!.trim(), m[3]!.trim());
  }
  return rows;
}

/** The README's first command runs this; it must work on a fresh machine and tell the truth. */
describe('toolgate demo', () => {
  it('where bubblewrap cannot run: says so first, shows the allowed commands as decisions only, runs none unjailed (#13)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-demo-nobwrap-'));
    // A bwrap first on PATH that fails as one without user namespaces does.
    const bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: No permissions to create a new namespace" >&2\nexit 1\n',
    );
    fs.chmodSync(path.join(bin, 'bwrap'), 0o755);
    const run = await runCli(['demo', '--dir', dir, '--no-color'], {
      env: { PATH: `${bin}:${process.env.PATH}` },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const header = run.stdout.indexOf('#   tool');
    expect(run.stdout.slice(0, header)).toMatch(/no jail here: bubblewrap cannot run \(.*No permissions/);
    const rows = outcomes(run.stdout);
    expect(rows.size).toBe(32);
    // Before: "ran, exit≠0", as if the commands had run and failed.
    for (const call of ['ls -la', 'npm test', 'git diff --stat', 'tail -n 2 logs/app.log'])
      expect(rows.get(call)).toBe('allowed, no jail');
    expect([...rows.values()]).not.toContain('ran, exit≠0');
    // What does not need the jail is the same as anywhere.
    expect(rows.get('Read README.md')).toBe('ran');
    expect(rows.get('cat .env | grep TOKEN')).toBe('denied (rule)');
    expect(rows.get('rm -rf /')).toBe('denied (guard)');
    expect(rows.get('Edit src/app.js')).toBe('approved, ran');
    expect(run.stdout).toMatch(/\d+ allowed commands did not run: bubblewrap cannot run here/);
    expect(run.stdout).toContain('verify: intact, 32 records');
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it('runs every scripted call through the pipeline, stops the dangerous ones, and leaves a log that verifies', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-demo-test-'));
    const run = await runCli(['demo', '--dir', dir, '--no-color']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const rows = outcomes(run.stdout);
    expect(rows.size).toBe(32);
    const outcome = (call: string) => rows.get(call);
    expect(outcome('ls -la')).toBe('ran');
    // Read-only git in the jail: before, the workspace committed .env, which the jail masks with
    // /dev/null, and git diff failed on it ("unsupported file type"): the demo's last row.
    expect(outcome('git diff --stat')).toBe('ran');
    expect(outcome("awk '{print $1}' logs/app.log | sort | uniq…")).toBe('ran');
    expect(outcome('Read .env')).toBe('denied (rule)');
    expect(outcome('cat .env | grep TOKEN')).toBe('denied (rule)');
    // A recursive search would read .env too.
    expect(outcome('grep -rn TOKEN .')).toBe('denied (rule)');
    expect(outcome('Read .env.example')).toBe('ran');
    expect(outcome('git push --force origin main')).toBe('denied (rule)');
    expect(outcome('rm -rf /')).toBe('denied (guard)');
    expect(outcome('Edit src/app.js')).toBe('approved, ran');
    // Writes the policy does not allow are asked about, and the scripted user refuses them.
    for (const write of [
      'sort -o data.txt data.txt',
      'git diff --outp=/tmp/patch.txt',
      'echo ... >> ~/.bashrc',
      'python3 -c "os.remove(...)"',
      'Write .git/hooks/pre-commit',
    ])
      expect(outcome(write)).toBe('asked, refused');

    const ws = path.join(dir, 'workspace');
    expect(fs.existsSync(path.join(ws, 'README.md'))).toBe(true);
    expect(fs.existsSync(path.join(ws, '.git/hooks/pre-commit'))).toBe(false);
    expect(fs.existsSync('/tmp/pwned')).toBe(false);
    expect(fs.readFileSync(path.join(ws, 'src/app.js'), 'utf8')).not.toBe('');

    const verified = await verifyLog(path.join(dir, 'decisions.jsonl'));
    expect(verified.ok && verified.count).toBe(32);
    expect(run.stdout).toContain('verify: intact, 32 records');
    fs.rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  it('fits the table in the terminal, wrapping reasons whole; --wide prints each row on one line (#19)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-demo-width-'));
    const reason = 'Keys and .env files hold secrets (example files such as .env.example stay readable)';
    const narrow = await runCli(['demo', '--dir', path.join(dir, 'a'), '--no-color'], {
      env: { COLUMNS: '80' },
    });
    expect(narrow.code, narrow.stderr).toBe(0);
    const table = narrow.stdout.slice(narrow.stdout.indexOf('#   tool'), narrow.stdout.indexOf('\nsummary'));
    for (const line of table.split('\n')) expect([...line].length, line).toBeLessThanOrEqual(80);
    // cut before ("…"), now wrapped: the whole reason is there, over several lines
    expect(table.replace(/\s+/g, ' ')).toContain(reason);
    const wide = await runCli(['demo', '--dir', path.join(dir, 'b'), '--no-color', '--wide'], {
      env: { COLUMNS: '80' },
    });
    expect(wide.code, wide.stderr).toBe(0);
    expect(wide.stdout.split('\n').find((l) => /^9 +Read +Read \.env +denied/.test(l))).toContain(reason);
    fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});
