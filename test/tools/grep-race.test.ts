import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToolUse } from '../../src/pipeline/run-tool-use.js';
import { builtinTools } from '../../src/tools/index.js';
import { refuseAll, testContext, use, type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

/**
 * Grep opens what it searches with Read's checks, whichever engine runs: a hard link to a
 * read-denied file under an innocent name is not searched, a directory swapped for a symlink
 * to a denied one between the walk and the open is not followed, and with `sandbox.os: off`
 * (ripgrep could not be jailed) the search runs in this process rather than rg unjailed.
 */
const hasRipgrep = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0;

let ws: Workspace;
let swapper: ChildProcess | undefined;
const savedGrep = process.env.TOOLGATE_GREP;
beforeEach(() => {
  ws = workspace('toolgate-grep-race-');
});
afterEach(() => {
  swapper?.kill('SIGKILL');
  swapper = undefined;
  ws.cleanup();
  if (savedGrep === undefined) delete process.env.TOOLGATE_GREP;
  else process.env.TOOLGATE_GREP = savedGrep;
});

function hardLinkedSecret(): void {
  ws.file('keys/k.txt', 'SECRET alpha\n');
  ws.file('a.txt', 'public alpha\n');
  fs.linkSync(path.join(ws.root, 'keys/k.txt'), path.join(ws.root, 'notes.txt'));
}

describe('Grep opens files with Read checks', () => {
  it('the in-process search does not search a hard link to a read-denied file', async () => {
    process.env.TOOLGATE_GREP = 'js';
    hardLinkedSecret();
    const out = await call(
      ws.root,
      'Grep',
      { pattern: 'alpha', output_mode: 'content' },
      { sandbox: 'read: { deny: ["keys"] }' },
    );
    expect(out.text).toContain('public alpha');
    expect(out.text).not.toContain('SECRET');
    expect(out.text).not.toContain('notes.txt');
  });

  it.runIf(hasRipgrep)('with sandbox.os: off, ripgrep does not run unjailed over a hard link', async () => {
    delete process.env.TOOLGATE_GREP;
    hardLinkedSecret();
    const out = await call(
      ws.root,
      'Grep',
      { pattern: 'alpha', output_mode: 'content' },
      { sandbox: 'read: { deny: ["keys"] }' },
    );
    expect(out.text).toContain('public alpha');
    expect(out.text).not.toContain('SECRET');
  });

  it.runIf(hasRipgrep)(
    'jailed ripgrep drops a hard link to a read-denied file from its results',
    async () => {
      delete process.env.TOOLGATE_GREP;
      hardLinkedSecret();
      const out = await call(
        ws.root,
        'Grep',
        { pattern: 'alpha', output_mode: 'content' },
        { sandbox: 'os: required, read: { deny: ["keys"] }' },
      );
      expect(out.result.is_error).toBeUndefined();
      expect(out.text).toContain('public alpha');
      expect(out.text).not.toContain('SECRET');
    },
  );

  it('never searches a denied file through a directory swapped for a symlink (1,500 racing searches)', async () => {
    process.env.TOOLGATE_GREP = 'js';
    ws.file('d/f.txt', 'public alpha\n');
    ws.file('keys/f.txt', 'SECRET alpha\n');
    fs.symlinkSync(path.join(ws.root, 'keys'), path.join(ws.root, 'd.link'));
    const ctx = await testContext(builtinTools(), ws.root, { sandbox: 'read: { deny: ["keys"] }' });
    const script = `
      const fs = require('node:fs');
      const d = ${JSON.stringify(path.join(ws.root, 'd'))};
      const real = d + '.real', link = d + '.link';
      process.stdout.write('ready\\n');
      for (;;) {
        fs.renameSync(d, real); fs.renameSync(link, d);
        fs.renameSync(d, link); fs.renameSync(real, d);
      }`;
    swapper = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve) => swapper!.stdout!.once('data', resolve));
    let leaks = 0;
    let served = 0;
    for (let i = 0; i < 1500; i++) {
      const input = { pattern: 'alpha', output_mode: 'content', glob: 'f.txt' };
      const out = await runToolUse(use('Grep', input, `toolu_${i}`), ctx, refuseAll);
      const text = JSON.stringify(out.result.content);
      if (text.includes('SECRET')) leaks += 1;
      if (text.includes('public')) served += 1;
    }
    expect(leaks).toBe(0);
    expect(served).toBeGreaterThan(0);
  }, 120_000);
});
