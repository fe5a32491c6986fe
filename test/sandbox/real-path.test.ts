import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isInside, literalPathOf, realPathOf } from '../../src/sandbox/real-path.js';
import { type TempTree, tempTree } from './fixture.js';

let t: TempTree;
beforeEach(() => {
  t = tempTree();
});
afterEach(() => t.cleanup());

describe('realPathOf', () => {
  it('resolves a symlinked directory and appends the missing tail', () => {
    const target = t.dir('target');
    fs.symlinkSync(target, path.join(t.root, 'link'));
    const r = realPathOf(path.join(t.root, 'link', 'new', 'file.txt'));
    expect(r).toMatchObject({ ok: true, real: path.join(target, 'new', 'file.txt'), stat: undefined });
  });

  it('applies .. to the resolved directory, as the kernel does, not lexically', () => {
    const deep = t.dir('elsewhere/deep');
    fs.symlinkSync(deep, path.join(t.root, 'link'));
    const r = realPathOf(`${t.root}/link/../x`);
    // Lexically this would be <root>/x; physically it is <root>/elsewhere/x.
    expect(r).toMatchObject({ ok: true, real: path.join(t.root, 'elsewhere', 'x') });
  });

  it('follows relative links and chains of links', () => {
    t.dir('a/b');
    fs.symlinkSync('a/b', path.join(t.root, 'l1'));
    fs.symlinkSync('l1', path.join(t.root, 'l2'));
    expect(realPathOf(`${t.root}/l2/f`)).toMatchObject({ ok: true, real: `${t.root}/a/b/f` });
  });

  it('resolves a dangling link to where a write through it would create the file', () => {
    fs.symlinkSync(path.join(t.root, 'out', 'victim'), path.join(t.root, 'dangling'));
    expect(realPathOf(`${t.root}/dangling`)).toMatchObject({ ok: true, real: `${t.root}/out/victim` });
  });

  it('reports a symlink loop as an error instead of hanging', () => {
    fs.symlinkSync('b', path.join(t.root, 'a'));
    fs.symlinkSync('a', path.join(t.root, 'b'));
    const r = realPathOf(`${t.root}/a/x`);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/too many levels/);
  });

  it('returns the lstat of an existing file', () => {
    const f = t.file('f.txt', 'abc');
    const r = realPathOf(f);
    expect(r.ok && r.stat?.size).toBe(3);
  });

  it('refuses relative paths and NUL bytes', () => {
    expect(realPathOf('relative/x').ok).toBe(false);
    expect(realPathOf('/tmp/a\0b').ok).toBe(false);
  });
});

describe('literalPathOf', () => {
  it('expands ~ and resolves against the cwd, keeping the raw form for the kernel walk', () => {
    expect(literalPathOf('~/x', '/w', '/h')).toEqual({ ok: true, literal: '/h/x', absolute: '/h/x' });
    expect(literalPathOf('~', '/w', '/h')).toMatchObject({ ok: true, literal: '/h' });
    expect(literalPathOf('a/../../b//c/.', '/w/s', '/h')).toEqual({
      ok: true,
      literal: '/w/b/c',
      absolute: '/w/s/a/../../b//c/.',
    });
    expect(literalPathOf('/abs', '/w', '/h')).toMatchObject({ ok: true, literal: '/abs' });
  });

  it('refuses ~user, empty paths and NUL bytes', () => {
    expect(literalPathOf('~root/x', '/w', '/h').ok).toBe(false);
    expect(literalPathOf('', '/w', '/h').ok).toBe(false);
    expect(literalPathOf('a\0', '/w', '/h').ok).toBe(false);
  });
});

describe('isInside', () => {
  it('is containment by path component, not by string prefix', () => {
    expect(isInside('/w', '/w')).toBe(true);
    expect(isInside('/w/x', '/w')).toBe(true);
    expect(isInside('/wx', '/w')).toBe(false);
    expect(isInside('/anything', '/')).toBe(true);
  });
});
