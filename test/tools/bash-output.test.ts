import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAIN } from '../helpers/cli.js';
import { allowAll, type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

/** What a Bash call's output costs: one spill file at most, bounded in size and in lifetime. */
let ws: Workspace;
let savedTmp: string | undefined;
beforeEach(() => {
  ws = workspace('toolgate-bash-output-');
  // Spill files go to os.tmpdir(): a private one per test, so the sweeps below see only theirs.
  savedTmp = process.env.TMPDIR;
  fs.mkdirSync(path.join(ws.root, 'tmp'));
  process.env.TMPDIR = path.join(ws.root, 'tmp');
});
afterEach(() => {
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
  ws.cleanup();
});

const run = (command: string, extra: Parameters<typeof call>[3] = {}) =>
  call(ws.root, 'Bash', { command }, { canUseTool: allowAll, ...extra });
const spillDirs = () =>
  fs.readdirSync(path.join(ws.root, 'tmp')).filter((n) => n.startsWith('toolgate-out-'));
const MIB = 1024 * 1024;

describe('Bash output: caps and spill files', () => {
  it('a truncated result names one file with the full output and is not spilled a second time', async () => {
    const out = await run('seq 1 20000; exit 1');
    expect(out.result.is_error).toBe(true);
    expect(out.text.match(/full output in /g)).toHaveLength(1);
    expect(out.text).not.toContain('The full result is in');
    expect(out.text).toContain('exit code 1');
    const spill = /full output in (\S+?)\]/.exec(out.text)![1]!;
    expect(fs.readFileSync(spill, 'utf8').split('\n')).toHaveLength(20001);
  });

  it('the default per-call output cap is 32 MiB, in the decision and in the run', async () => {
    const out = await run('yes');
    expect(out.decision?.sandbox?.maxOutputBytes).toBe(32 * MIB);
    expect(out.result.is_error).toBe(true);
    expect(out.text).toContain(`more than ${32 * MIB} bytes`);
    const spill = /full output in (\S+?)[\];]/.exec(out.text)![1]!;
    expect(fs.statSync(spill).size).toBeLessThanOrEqual(32 * MIB);
  });

  it('spill directories older than an hour are swept by the next spill; fresh ones and links are left', async () => {
    const tmp = path.join(ws.root, 'tmp');
    const old = path.join(tmp, 'toolgate-out-old');
    const fresh = path.join(tmp, 'toolgate-out-fresh');
    const target = ws.file('elsewhere/keep.txt', 'keep');
    fs.mkdirSync(old);
    fs.writeFileSync(path.join(old, 'output.txt'), 'x');
    fs.mkdirSync(fresh);
    fs.symlinkSync(path.dirname(target), path.join(tmp, 'toolgate-out-link'));
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    fs.utimesSync(old, twoHoursAgo, twoHoursAgo);
    fs.lutimesSync(path.join(tmp, 'toolgate-out-link'), twoHoursAgo, twoHoursAgo);
    await run('seq 1 20000');
    const left = spillDirs();
    expect(left).not.toContain('toolgate-out-old');
    expect(left).toContain('toolgate-out-fresh');
    expect(left).toContain('toolgate-out-link');
    expect(fs.readFileSync(target, 'utf8')).toBe('keep');
    expect(left).toHaveLength(3);
  });

  it('the spill files of a toolgate exec process are gone when it exits', async () => {
    const policy = ws.file(
      'policy.yaml',
      'version: 1\nsandbox: { os: "off" }\nrules:\n  - allow: ["Bash(seq *)"]\n',
    );
    const tsx = path.join(path.dirname(MAIN), '..', '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
    const child = spawn(
      process.execPath,
      ['--import', tsx, MAIN, 'exec', '--policy', policy, '--cwd', ws.root],
      {
        cwd: ws.root,
        env: { ...process.env, TMPDIR: path.join(ws.root, 'tmp') },
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stdin.end(
      `${JSON.stringify({ type: 'tool_use', id: 'b1', name: 'Bash', input: { command: 'seq 1 20000' } })}\n`,
    );
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const result = JSON.parse(out.trim());
    const spill = /full output in (\S+?)\]/.exec(String(result.content))![1]!;
    expect(spill.startsWith(path.join(ws.root, 'tmp'))).toBe(true);
    expect(fs.existsSync(spill)).toBe(false);
    expect(spillDirs()).toEqual([]);
  }, 120_000);
});
