import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GlobTool } from '../../src/tools/glob.js';
import { GrepTool } from '../../src/tools/grep.js';
import { type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

// Grep runs ripgrep when it is installed (CI installs it) and a JavaScript search otherwise;
// both are tested against the same expectations.
const engines = spawnSync('rg', ['--version'], { stdio: 'ignore' }).status === 0 ? ['js', 'rg'] : ['js'];

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-search-');
});
afterEach(() => ws.cleanup());

function touch(name: string, content: string, ageSeconds: number): string {
  const p = ws.file(name, content);
  const t = Date.now() / 1000 - ageSeconds;
  fs.utimesSync(p, t, t);
  return p;
}

describe('Glob', () => {
  it('finds by pattern, newest first, skipping .git and node_modules; flags are read-only and safe', async () => {
    const old = touch('src/old.ts', '', 300);
    const mid = touch('src/deep/mid.ts', '', 200);
    const fresh = touch('fresh.ts', '', 100);
    touch('node_modules/x/skip.ts', '', 0);
    touch('.git/skip.ts', '', 0);
    touch('notes.md', '', 0);
    const out = await call(ws.root, 'Glob', { pattern: '**/*.ts' });
    expect(out.text.split('\n')).toEqual([fresh, mid, old]);
    const scoped = await call(ws.root, 'Glob', { pattern: '*.ts', path: 'src' });
    expect(scoped.text).toBe(old);
    expect((await call(ws.root, 'Glob', { pattern: '*.rs' })).text).toBe('No files found');
    expect(GlobTool.isReadOnly({ pattern: '*' })).toBe(true);
    expect(GlobTool.isConcurrencySafe({ pattern: '*' })).toBe(true);
  });

  it('caps results at 100 and says so; leaves out files the profile may not read', async () => {
    for (let i = 0; i < 105; i++) ws.file(`many/f${i}.txt`);
    ws.file('secret/key.txt');
    const many = await call(ws.root, 'Glob', { pattern: 'many/*.txt' });
    expect(many.text.split('\n').filter((l) => l.endsWith('.txt'))).toHaveLength(100);
    expect(many.text).toContain('truncated');
    const hidden = await call(
      ws.root,
      'Glob',
      { pattern: '**/key.txt' },
      { sandbox: 'read: { deny: ["secret"] }' },
    );
    expect(hidden.text).toBe('No files found');
  });
});

describe.each(engines)('Grep (%s engine, ripgrep output)', (engine) => {
  beforeEach(() => {
    if (engine === 'js') process.env.TOOLGATE_GREP = 'js';
    else delete process.env.TOOLGATE_GREP;
    touch('a.ts', 'const alpha = 1;\nconst beta = 2;\nconst Alpha = 3;\n', 100);
    touch('b.py', 'alpha = 1\n', 50);
    touch('c/d.ts', 'nothing here\n', 10);
  });

  it('files_with_matches (default): newest first, with a count line', async () => {
    const out = await call(ws.root, 'Grep', { pattern: 'alpha' });
    expect(out.text).toBe(`Found 2 files\n${path.join(ws.root, 'b.py')}\n${path.join(ws.root, 'a.ts')}`);
  });

  it('content mode: path:line:text, -i, glob and type filters, context with separators', async () => {
    const content = await call(ws.root, 'Grep', { pattern: 'alpha', output_mode: 'content', glob: '*.ts' });
    expect(content.text).toBe(`${path.join(ws.root, 'a.ts')}:1:const alpha = 1;`);
    const insensitive = await call(ws.root, 'Grep', {
      pattern: 'alpha',
      output_mode: 'content',
      '-i': true,
      type: 'ts',
    });
    expect(insensitive.text.split('\n')).toHaveLength(2);
    const ctx = await call(ws.root, 'Grep', {
      pattern: 'beta',
      output_mode: 'content',
      '-B': 1,
      path: 'a.ts',
    });
    const file = path.join(ws.root, 'a.ts');
    expect(ctx.text).toBe(`${file}-1-const alpha = 1;\n${file}:2:const beta = 2;`);
    const noNumbers = await call(ws.root, 'Grep', { pattern: 'beta', output_mode: 'content', '-n': false });
    expect(noNumbers.text).toBe(`${file}:const beta = 2;`);
  });

  it('count mode and head_limit', async () => {
    const count = await call(ws.root, 'Grep', { pattern: 'lpha', output_mode: 'count', '-i': true });
    expect(count.text).toContain(`${path.join(ws.root, 'a.ts')}:2`);
    expect(count.text).toContain('Found 3 total occurrences across 2 files.');
    const limited = await call(ws.root, 'Grep', { pattern: 'const', output_mode: 'content', head_limit: 2 });
    expect(limited.text.split('\n')).toHaveLength(2);
  });

  it('multiline patterns span lines; an invalid regex is refused before anything runs', async () => {
    const multi = await call(ws.root, 'Grep', {
      pattern: 'alpha.*\\n.*beta',
      output_mode: 'content',
      multiline: true,
    });
    expect(multi.text.split('\n')).toHaveLength(2);
    const bad = await call(ws.root, 'Grep', { pattern: '(' });
    expect(bad.failure?.kind).toBe('validation');
    expect((await call(ws.root, 'Grep', { pattern: 'zzz' })).text).toBe('No files found');
    expect(GrepTool.isConcurrencySafe({ pattern: 'x', output_mode: 'content' })).toBe(true);
  });

  it('file names holding colons and dashes come through whole, in every mode', async () => {
    const odd = touch('odd-1-name:2:x.txt', 'alpha one\nbeta\nalpha two\n', 5);
    const content = await call(ws.root, 'Grep', {
      pattern: 'alpha',
      output_mode: 'content',
      '-A': 1,
      path: 'odd-1-name:2:x.txt',
    });
    expect(content.text).toBe(`${odd}:1:alpha one\n${odd}-2-beta\n${odd}:3:alpha two`);
    const count = await call(ws.root, 'Grep', { pattern: 'alpha', output_mode: 'count', glob: '*.txt' });
    expect(count.text).toContain(`${odd}:2`);
    const files = await call(ws.root, 'Grep', { pattern: 'beta', glob: '*.txt' });
    expect(files.text).toBe(`Found 1 file\n${odd}`);
  });

  it('skips binary files and files the profile may not read', async () => {
    ws.file('bin.dat', Buffer.from('alpha\0beta') as unknown as string);
    touch('secret/s.txt', 'alpha\n', 0);
    const out = await call(ws.root, 'Grep', { pattern: 'alpha' }, { sandbox: 'read: { deny: ["secret"] }' });
    expect(out.text).not.toContain('bin.dat');
    expect(out.text).not.toContain('secret');
  });
});

describe.runIf(engines.includes('rg'))('Grep where bubblewrap cannot run', () => {
  it('under sandbox.os: required searches in this process instead of running ripgrep unjailed', async () => {
    delete process.env.TOOLGATE_GREP;
    const bin = path.join(ws.root, 'broken-bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: no namespaces" >&2\nexit 1\n', {
      mode: 0o755,
    });
    touch('a.ts', 'const alpha = 1;\n', 10);
    touch('secret/s.txt', 'alpha\n', 0);
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:${saved}`;
    try {
      const out = await call(
        ws.root,
        'Grep',
        { pattern: 'alpha', output_mode: 'content' },
        { sandbox: 'os: required, read: { deny: ["secret"] }' },
      );
      expect(out.result.is_error).toBeUndefined();
      expect(out.text).toBe(`${path.join(ws.root, 'a.ts')}:1:const alpha = 1;`);
    } finally {
      process.env.PATH = saved;
    }
  });
});
