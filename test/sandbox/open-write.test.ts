import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openCheckedForWrite, openForWrite, writeCheckedFile } from '../../src/sandbox/open-write.js';
import { createPathGuard, type PathGuard, type PathVerdict } from '../../src/sandbox/paths.js';
import { type TempTree, tempTree } from './fixture.js';

let t: TempTree;
let ws: string;
let outside: string;
let guard: PathGuard;

beforeEach(() => {
  t = tempTree();
  ws = t.dir('ws');
  outside = t.dir('outside');
  const made = createPathGuard({
    cwd: ws,
    home: t.dir('home'),
    profile: { writableRoots: [ws], readableRoots: [], readDeny: [], writeDeny: [] },
  });
  if (!made.ok) throw new Error(made.message);
  guard = made.guard;
});
afterEach(() => t.cleanup());

function approved(input: string): Extract<PathVerdict, { ok: true }> {
  const v = guard.check(input, 'write');
  if (!v.ok) throw new Error(v.reason);
  return v;
}

describe('opening a checked path for writing', () => {
  it('writes a new file, and truncates an existing one', () => {
    expect(writeCheckedFile(approved('a.txt'), 'hello')).toMatchObject({ ok: true, bytes: 5 });
    expect(fs.readFileSync(`${ws}/a.txt`, 'utf8')).toBe('hello');
    expect(writeCheckedFile(approved('a.txt'), 'hi')).toMatchObject({ ok: true });
    expect(fs.readFileSync(`${ws}/a.txt`, 'utf8')).toBe('hi');
  });

  it('creates missing parent directories when asked', () => {
    expect(writeCheckedFile(approved('deep/er/b.txt'), 'x', { createParents: true })).toMatchObject({
      ok: true,
    });
    expect(fs.readFileSync(`${ws}/deep/er/b.txt`, 'utf8')).toBe('x');
  });

  it('refuses when a directory on the path is swapped for a symlink after the check', () => {
    fs.mkdirSync(`${ws}/dir`);
    const verdict = approved('dir/file.txt');
    fs.renameSync(`${ws}/dir`, `${ws}/dir-moved`);
    fs.symlinkSync(outside, `${ws}/dir`);
    const r = writeCheckedFile(verdict, 'pwned');
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.reason).toMatch(/changed after it was checked/);
    expect(fs.existsSync(`${outside}/file.txt`)).toBe(false);
  });

  it('refuses (and does not follow) a final component swapped for a symlink after the check', () => {
    const victim = t.file('outside/victim.txt', 'precious');
    fs.writeFileSync(`${ws}/out.txt`, 'old');
    const verdict = approved('out.txt');
    fs.rmSync(`${ws}/out.txt`);
    fs.symlinkSync(victim, `${ws}/out.txt`);
    const r = writeCheckedFile(verdict, 'pwned');
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.reason).toMatch(/symbolic link/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('refuses a file replaced by a hard link after the check, without truncating it', () => {
    const victim = t.file('outside/victim.txt', 'precious');
    const verdict = approved('out.txt');
    fs.linkSync(victim, `${ws}/out.txt`);
    const r = writeCheckedFile(verdict, 'pwned');
    expect(r).toMatchObject({ ok: false });
    expect(!r.ok && r.reason).toMatch(/hard links/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('refuses a path the guard refuses, without touching the file system', () => {
    const r = openForWrite(guard, '../outside/x');
    expect(r).toMatchObject({ ok: false, path: `${outside}/x` });
    expect(fs.existsSync(`${outside}/x`)).toBe(false);
  });

  it('opens a file that can be appended to', () => {
    fs.writeFileSync(`${ws}/log`, 'a');
    const opened = openCheckedForWrite(approved('log'), { append: true });
    if (!opened.ok) throw new Error(opened.reason);
    fs.writeSync(opened.fd, 'b');
    fs.closeSync(opened.fd);
    expect(fs.readFileSync(path.join(ws, 'log'), 'utf8')).toBe('ab');
  });
});
