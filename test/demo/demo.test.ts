import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/verify.js';
import { runCli } from '../helpers/cli.js';

/** The README's first command runs this; it must work on a fresh machine and tell the truth. */
describe('toolgate demo', () => {
  it('runs every scripted call through the pipeline, stops the dangerous ones, and leaves a log that verifies', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-demo-test-'));
    const run = await runCli(['demo', '--dir', dir, '--no-color']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);

    const rows = new Map<string, string>();
    for (const line of run.stdout.split('\n')) {
      const m = /^(\d+)\s+\S+\s+(.{44}) (.{18}) /.exec(line);
      if (m) rows.set(m[2]!.trim(), m[3]!.trim());
    }
    expect(rows.size).toBe(32);
    const outcome = (call: string) => rows.get(call);
    expect(outcome('ls -la')).toBe('ran');
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
});
