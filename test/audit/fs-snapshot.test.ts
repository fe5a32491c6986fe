import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, normalize } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isPlain, snapshotFileSystem } from '../../src/audit/fs-snapshot.js';
import { type FileSystemView, nodeFileSystem, realpathOfLongestPrefix } from '../../src/policy/fs-view.js';

// A tree with what realpath has to get right: directory and file links, a dangling link, a
// link loop, a link to a parent, a file where a directory could be.
const root = mkdtempSync(join(tmpdir(), 'toolgate-snapshot-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
mkdirSync(join(root, 'a', 'b'), { recursive: true });
mkdirSync(join(root, 'real'));
writeFileSync(join(root, 'a', 'file'), 'x');
writeFileSync(join(root, 'real', 'target'), 'x');
symlinkSync(join(root, 'real'), join(root, 'a', 'dirlink'));
symlinkSync(join(root, 'real', 'target'), join(root, 'a', 'b', 'filelink'));
symlinkSync(join(root, 'nowhere'), join(root, 'a', 'dangling'));
symlinkSync(join(root, 'a', 'loop1'), join(root, 'a', 'loop2'));
symlinkSync(join(root, 'a', 'loop2'), join(root, 'a', 'loop1'));
symlinkSync('..', join(root, 'a', 'b', 'up'));

const NAMES = [
  'a',
  'b',
  'file',
  'dirlink',
  'filelink',
  'dangling',
  'loop1',
  'real',
  'target',
  'up',
  'missing',
  'x',
];

describe('snapshotFileSystem', () => {
  it('answers realpath as the real file system does (property)', () => {
    const snapshot = snapshotFileSystem();
    const path = fc.array(fc.constantFrom(...NAMES), { maxLength: 5 }).map((ns) => join(root, ...ns));
    fc.assert(
      fc.property(fc.array(path, { minLength: 1, maxLength: 20 }), (paths) => {
        for (const p of paths) expect(snapshot.realpath(p)).toBe(realpathOfLongestPrefix(p));
      }),
      { numRuns: 300 },
    );
  });

  it('asks the file system once per path', () => {
    let calls = 0;
    const base: FileSystemView = {
      ...nodeFileSystem(),
      realpath: (p) => {
        calls++;
        return realpathOfLongestPrefix(p);
      },
    };
    const snapshot = snapshotFileSystem(base);
    const link = join(root, 'a', 'dirlink', 'target');
    expect(snapshot.realpath(link)).toBe(join(root, 'real', 'target'));
    const after = calls;
    expect(snapshot.realpath(link)).toBe(join(root, 'real', 'target'));
    expect(calls).toBe(after);
  });

  it('hands paths that are not plain absolute ones to the file system as they are', () => {
    const snapshot = snapshotFileSystem();
    for (const p of [join(root, 'a', '..', 'a', 'file'), `${join(root, 'a')}/`, 'relative/path', '/'])
      expect(snapshot.realpath(p)).toBe(realpathOfLongestPrefix(p));
  });

  it('tells plain paths (a parent plus a name) as path.normalize would (property)', () => {
    const segment = fc.constantFrom('a', 'b.c', '.', '..', '', '...', '.x', 'x.', ' ');
    const anyPath = fc
      .array(segment, { maxLength: 5 })
      .chain((segs) =>
        fc.constantFrom(`/${segs.join('/')}`, segs.join('/'), `/${segs.join('/')}/`, `//${segs.join('/')}`),
      );
    fc.assert(
      fc.property(anyPath, (p) => {
        const plain = p !== '/' && isAbsolute(p) && normalize(p) === p && !p.endsWith('/');
        expect(isPlain(p), JSON.stringify(p)).toBe(plain);
      }),
      { numRuns: 2000 },
    );
  });
});
