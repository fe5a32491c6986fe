import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main-in-process.js';

/** main(argv, io) embedded in another program: io.cwd, not the process's directory, is "here". */
const run = (argv: string[], cwd: string) => runMain(argv, { cwd, stdin: '' });

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
