import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/toolgate.js';

/** main(argv, io) embedded in another program: io.cwd, not the process's directory, is "here". */
async function run(argv: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  stderr.on('data', (c: Buffer) => {
    err += c.toString();
  });
  const stdin = new PassThrough();
  stdin.end();
  const code = await main(argv, { stdin, stdout, stderr, env: {}, cwd, isTTY: false });
  return { code, stdout: out, stderr: err };
}

describe('the CLI run in-process', () => {
  it('reads a relative --policy from io.cwd, not from the process directory', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-inproc-'));
    fs.writeFileSync(path.join(dir, 'p.yaml'), 'version: 1\nrules:\n  - deny: "Bash(echo *)"\n');
    expect(process.cwd()).not.toBe(dir);
    const r = await run(
      ['check', '--policy', 'p.yaml', '--tool', 'Bash', '--input', '{"command":"echo hi"}', '--json'],
      dir,
    );
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ behavior: 'deny', rule: { text: 'Bash(echo *)' } });
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
