import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';
import { BashTool } from '../../src/tools/bash.js';
import { exitOneIsSuccess } from '../../src/tools/bash-facts.js';
import { allowAll, type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-bash-');
});
afterEach(() => ws.cleanup());

const run = (command: string, extra: Parameters<typeof call>[3] = {}) =>
  call(ws.root, 'Bash', { command, ...(extra as object) }, { canUseTool: allowAll, ...extra });

describe('Bash', () => {
  it('flags come from the classifier', () => {
    expect(BashTool.isReadOnly({ command: 'ls -la' })).toBe(true);
    expect(BashTool.isConcurrencySafe({ command: 'cat a | wc -l' })).toBe(true);
    expect(BashTool.isReadOnly({ command: 'rm -rf build' })).toBe(false);
    expect(BashTool.isConcurrencySafe({ command: 'rm -rf build' })).toBe(false);
    expect(BashTool.isDestructive({ command: 'rm -rf build' })).toBe(true);
  });

  it('runs in the workspace and returns output; a non-zero exit is an error with its code', async () => {
    ws.file('a.txt', 'hello');
    const ok = await run('cat a.txt');
    expect(ok.result.is_error).toBeUndefined();
    expect(ok.text).toContain('hello');
    const bad = await run('echo oops >&2; exit 3');
    expect(bad.result.is_error).toBe(true);
    expect(bad.text).toContain('oops');
    expect(bad.text).toContain('exit code 3');
  });

  it('exit code 1 is a result, not a failure, for grep, find, diff, test and git diff', async () => {
    ws.file('a.txt', 'x');
    const grep = await run('grep nothing a.txt');
    expect(grep.result.is_error).toBeUndefined();
    expect(grep.text).toContain('exit code 1');
    expect((await run('false')).result.is_error).toBe(true);
    for (const [command, yes] of [
      ['grep x a', true],
      ['cat a | grep -q x', true],
      ['diff a b', true],
      ['test -f a', true],
      ['[ -f a ]', true],
      ['git diff --quiet', true],
      ['git status', false],
      ['grep x a | wc -l', false],
    ] as const) {
      expect([command, exitOneIsSuccess(classifyBash(command))]).toEqual([command, yes]);
    }
  });

  it('times out at the requested timeout and says so', async () => {
    const out = await call(ws.root, 'Bash', { command: 'sleep 5', timeout: 300 }, { canUseTool: allowAll });
    expect(out.result.is_error).toBe(true);
    expect(out.text).toContain('did not finish within 300 ms');
  });

  it('refuses a redirect outside the writable roots before running anything', async () => {
    const outside = workspace('toolgate-bash-outside-');
    try {
      const target = path.join(outside.root, 'x.txt');
      const out = await run(`echo hi > ${target}`);
      expect(out.result.is_error).toBe(true);
      expect(fs.existsSync(target)).toBe(false);
    } finally {
      outside.cleanup();
    }
  });

  it('refuses run_in_background and dangerouslyDisableSandbox instead of ignoring them', async () => {
    const bg = await call(
      ws.root,
      'Bash',
      { command: 'sleep 1', run_in_background: true },
      { canUseTool: allowAll },
    );
    expect(bg.failure?.kind).toBe('validation');
    const unsandboxed = await call(
      ws.root,
      'Bash',
      { command: 'ls', dangerouslyDisableSandbox: true },
      { canUseTool: allowAll },
    );
    expect(unsandboxed.failure?.kind).toBe('validation');
  });

  it('under bubblewrap (os: auto), a write the classifier cannot see is still stopped by the sandbox', async () => {
    const outside = workspace('toolgate-bash-bwrap-');
    try {
      const target = path.join(outside.root, 'y.txt');
      const out = await call(
        ws.root,
        'Bash',
        { command: `node -e "require('fs').writeFileSync('${target}','x')"` },
        { canUseTool: allowAll, sandbox: 'os: "auto"' },
      );
      expect(out.result.is_error).toBe(true);
      expect(fs.existsSync(target)).toBe(false);
    } finally {
      outside.cleanup();
    }
  });
});
