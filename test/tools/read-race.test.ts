import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runToolUse } from '../../src/pipeline/run-tool-use.js';
import { builtinTools } from '../../src/tools/index.js';
import { refuseAll, testContext, use, type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

/**
 * The Read tool against a file system that changes under it: a directory on the checked path
 * swapped for a symlink to a denied one between the guard's check and the open, and a hard
 * link to a denied file under an innocent name.
 */
let ws: Workspace;
let swapper: ChildProcess | undefined;
beforeEach(() => {
  ws = workspace('toolgate-read-race-');
});
afterEach(() => {
  swapper?.kill('SIGKILL');
  swapper = undefined;
  ws.cleanup();
});

/** A separate process that flips `d` between a real directory and a symlink to `keys`. */
function startSwapper(root: string): Promise<void> {
  const script = `
    const fs = require('node:fs');
    const d = ${JSON.stringify(path.join(root, 'd'))};
    const real = d + '.real', link = d + '.link';
    process.stdout.write('ready\\n');
    for (;;) {
      fs.renameSync(d, real); fs.renameSync(link, d);
      fs.renameSync(d, link); fs.renameSync(real, d);
    }`;
  swapper = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => swapper!.stdout!.once('data', () => resolve()));
}

describe('Read under a racing file system', () => {
  it('never returns a denied file through a directory swapped for a symlink (3,000 racing reads)', async () => {
    ws.file('d/f.txt', 'public\n');
    ws.file('keys/f.txt', 'SECRET\n');
    fs.symlinkSync(path.join(ws.root, 'keys'), path.join(ws.root, 'd.link'));
    const ctx = await testContext(builtinTools(), ws.root, { sandbox: 'read: { deny: ["keys"] }' });
    await startSwapper(ws.root);
    let leaks = 0;
    let served = 0;
    for (let i = 0; i < 3000; i++) {
      const out = await runToolUse(use('Read', { file_path: 'd/f.txt' }, `toolu_${i}`), ctx, refuseAll);
      const text = JSON.stringify(out.result.content);
      if (text.includes('SECRET')) leaks += 1;
      if (text.includes('public')) served += 1;
    }
    expect(leaks).toBe(0);
    // The race really ran both ways: some reads got through, some met the symlink.
    expect(served).toBeGreaterThan(0);
    expect(served).toBeLessThan(3000);
  }, 60_000);

  it('refuses a hard link to a denied file, and reads linked files where nothing is denied', async () => {
    ws.file('keys/k.txt', 'SECRET\n');
    fs.linkSync(path.join(ws.root, 'keys/k.txt'), path.join(ws.root, 'notes.txt'));
    const denied = await call(
      ws.root,
      'Read',
      { file_path: 'notes.txt' },
      { sandbox: 'read: { deny: ["keys"] }' },
    );
    expect(denied.result.is_error).toBe(true);
    expect(denied.text).toContain('hard links');
    expect(denied.text).not.toContain('SECRET');
    const open = await call(ws.root, 'Read', { file_path: 'notes.txt' });
    expect(open.text).toContain('SECRET');
  });

  it('Edit leaves a hard link to a denied file alone (its write guard refused it before the read did)', async () => {
    ws.file('keys/k.txt', 'SECRET\n');
    fs.linkSync(path.join(ws.root, 'keys/k.txt'), path.join(ws.root, 'notes.txt'));
    const out = await call(
      ws.root,
      'Edit',
      { file_path: 'notes.txt', old_string: 'SECRET', new_string: 'x' },
      { sandbox: 'read: { deny: ["keys"] }', mode: 'acceptEdits' },
    );
    expect(out.result.is_error).toBe(true);
    expect(fs.readFileSync(path.join(ws.root, 'keys/k.txt'), 'utf8')).toBe('SECRET\n');
  });
});
