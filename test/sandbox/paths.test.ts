import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  checkWriteTargets,
  createPathGuard,
  type PathGuard,
  type PathLimits,
} from '../../src/sandbox/paths.js';
import { isInside } from '../../src/sandbox/real-path.js';
import { type TempTree, tempTree } from './fixture.js';

let t: TempTree;
let ws: string;
let outside: string;
let home: string;

beforeEach(() => {
  t = tempTree();
  ws = t.dir('ws');
  outside = t.dir('outside');
  home = t.dir('home');
});
afterEach(() => t.cleanup());

function limits(overrides: Partial<PathLimits> = {}): PathLimits {
  return { writableRoots: [ws], readableRoots: [], readDeny: [], writeDeny: [], ...overrides };
}

function guardFor(overrides: Partial<PathLimits> = {}, allowProtected?: string[]): PathGuard {
  const made = createPathGuard({ cwd: ws, home, profile: limits(overrides), allowProtected });
  if (!made.ok) throw new Error(made.message);
  return made.guard;
}

describe('writes', () => {
  it('accepts relative, absolute and not-yet-existing paths inside the workspace', () => {
    const g = guardFor();
    expect(g.check('src/new/file.ts', 'write')).toMatchObject({ ok: true, path: `${ws}/src/new/file.ts` });
    expect(g.check(`${ws}/a.txt`, 'write')).toMatchObject({ ok: true, exists: false });
    expect(g.check('./x/../y', 'write')).toMatchObject({ ok: true, path: `${ws}/y` });
  });

  it('refuses ../ escapes and absolute paths outside, with a sentence naming the workspace', () => {
    const g = guardFor();
    const up = g.check('../outside/x', 'write');
    expect(up).toMatchObject({ ok: false, denial: 'outside-roots', path: `${outside}/x` });
    expect(!up.ok && up.reason).toContain(ws);
    expect(g.check('/etc/x', 'write')).toMatchObject({ ok: false, denial: 'outside-roots' });
    expect(g.check('~/x', 'write')).toMatchObject({ ok: false, path: `${home}/x` });
  });

  it('refuses a write through a symlinked directory that points outside', () => {
    fs.symlinkSync(outside, path.join(ws, 'link'));
    const v = guardFor().check('link/x', 'write');
    expect(v).toMatchObject({ ok: false, denial: 'outside-roots', path: `${outside}/x` });
    expect(!v.ok && v.reason).toContain('resolves to');
  });

  it('refuses link/.. tricks that lexical normalization would let through', () => {
    const deep = t.dir('outside/deep');
    fs.symlinkSync(deep, path.join(ws, 'link'));
    // Lexically ws/link/../x is ws/x; the kernel resolves it to outside/x.
    expect(guardFor().check('link/../x', 'write')).toMatchObject({ ok: false, path: `${outside}/x` });
  });

  it('accepts a symlink from outside that lands inside the workspace', () => {
    fs.symlinkSync(ws, path.join(outside, 'to-ws'));
    expect(guardFor().check(`${outside}/to-ws/f`, 'write')).toMatchObject({ ok: true, path: `${ws}/f` });
  });

  it('refuses a dangling symlink whose target is outside', () => {
    fs.symlinkSync(`${outside}/planted`, path.join(ws, 'innocent.txt'));
    expect(guardFor().check('innocent.txt', 'write')).toMatchObject({
      ok: false,
      path: `${outside}/planted`,
    });
  });

  it('refuses a hard-linked file (it may alias a file outside)', () => {
    const secret = t.file('outside/secret.txt', 'x');
    fs.linkSync(secret, path.join(ws, 'alias.txt'));
    const v = guardFor().check('alias.txt', 'write');
    expect(v).toMatchObject({ ok: false, denial: 'hardlink' });
    expect(!v.ok && v.reason).toMatch(/2 hard links/);
  });

  it('refuses writeDeny globs, matching the literal path as well as the resolved one', () => {
    const g = guardFor({ writeDeny: [`${ws}/locked/**`, '/**/*.lock'] });
    expect(g.check('locked/a', 'write')).toMatchObject({ ok: false, denial: 'denied' });
    expect(g.check('deep/yarn.lock', 'write')).toMatchObject({ ok: false, denial: 'denied' });
    // A denied name that is a symlink to an allowed file is still denied.
    t.file('ws/real.txt');
    fs.symlinkSync(`${ws}/real.txt`, `${ws}/pkg.lock`);
    expect(g.check('pkg.lock', 'write')).toMatchObject({ ok: false, denial: 'denied' });
    // And an allowed name that resolves into a denied place is denied.
    fs.mkdirSync(`${ws}/locked`);
    fs.symlinkSync(`${ws}/locked`, `${ws}/door`);
    expect(g.check('door/f', 'write')).toMatchObject({ ok: false, denial: 'denied' });
  });

  it.each([
    '.git/hooks/pre-commit',
    '.git/config',
    'sub/.git/hooks/post-checkout',
    '.bashrc',
    '.zshrc',
    '.profile',
    '.bash_profile',
    '.gitconfig',
    '.toolgate/policy.yaml',
    '.cache/toolgate/v8/0123.bin',
    '.claude/settings.json',
    '.claude/agents/a.md',
    '.mcp.json',
    '.vscode/settings.json',
    '.idea/workspace.xml',
    '.husky/pre-push',
    'HEAD',
    'objects/ab/cdef',
    'refs/heads/main',
  ])('refuses a write into the protected path %s', (target) => {
    const v = guardFor().check(target, 'write');
    expect(v).toMatchObject({ ok: false, denial: 'protected' });
    expect(!v.ok && v.reason).toMatch(/protected path/);
  });

  it('allows .claude/worktrees, other .git content and ordinary dotfiles', () => {
    const g = guardFor();
    for (const target of [
      '.claude/worktrees/feature/file.ts',
      '.git/objects/ab/cd',
      '.gitignore',
      'sub/HEAD',
    ]) {
      expect(g.check(target, 'write'), target).toMatchObject({ ok: true });
    }
  });

  it('refuses a protected path reached through a symlink with an innocent name', () => {
    t.dir('ws/.git/hooks');
    fs.symlinkSync(`${ws}/.git/hooks`, `${ws}/tools`);
    expect(guardFor().check('tools/pre-commit', 'write')).toMatchObject({ ok: false, denial: 'protected' });
  });

  it('lets an explicit allowProtected glob lift the protection, and nothing else', () => {
    const g = guardFor({}, [`${ws}/.git/hooks/**`]);
    expect(g.check('.git/hooks/pre-commit', 'write')).toMatchObject({ ok: true });
    expect(g.check('.git/config', 'write')).toMatchObject({ ok: false, denial: 'protected' });
  });

  it('refuses everything when no root is writable', () => {
    const v = guardFor({ writableRoots: [] }).check('a', 'write');
    expect(v).toMatchObject({ ok: false, denial: 'outside-roots' });
  });
});

describe('reads', () => {
  it('refuses denied globs directly, through ~ and through a symlink', () => {
    t.file('home/.ssh/id_rsa', 'KEY');
    fs.symlinkSync(`${home}/.ssh`, `${ws}/keys`);
    const g = guardFor({ readDeny: [`${home}/.ssh/**`, '/**/.env'] });
    expect(g.check(`${home}/.ssh/id_rsa`, 'read')).toMatchObject({ ok: false, denial: 'denied' });
    expect(g.check('~/.ssh/id_rsa', 'read')).toMatchObject({ ok: false, denial: 'denied' });
    expect(g.check('keys/id_rsa', 'read')).toMatchObject({ ok: false, denial: 'denied' });
    expect(g.check('app/.env', 'read')).toMatchObject({ ok: false, denial: 'denied' });
    expect(g.check('app/.env.example', 'read')).toMatchObject({ ok: true });
    expect(g.check('/etc/hostname', 'read')).toMatchObject({ ok: true });
  });

  it('limits reads to the readable and writable roots when readable roots are given', () => {
    const docs = t.dir('docs');
    const g = guardFor({ readableRoots: [docs] });
    expect(g.check(`${docs}/a.md`, 'read')).toMatchObject({ ok: true });
    expect(g.check('src/a.ts', 'read')).toMatchObject({ ok: true });
    expect(g.check(`${outside}/a`, 'read')).toMatchObject({ ok: false, denial: 'outside-roots' });
  });
});

describe('Bash write targets', () => {
  it('checks redirect targets and write operands as written, against the cwd', () => {
    const v = checkWriteTargets(['out.txt', '../x', '/etc/x', '/dev/null'], {
      cwd: ws,
      home,
      profile: limits(),
    });
    expect(v.ok).toBe(false);
    if (v.ok || !('denied' in v)) throw new Error('expected a denial');
    expect(v.denied.map((d) => d.path)).toEqual([`${t.root}/x`, '/etc/x']);
    expect(v.reason).toContain('/etc/x');
  });

  it('accepts targets inside the workspace and /dev/null', () => {
    const v = checkWriteTargets(['out.txt', 'build/log', '/dev/null'], { cwd: ws, home, profile: limits() });
    expect(v).toMatchObject({ ok: true });
  });

  it('refuses targets whose location depends on shell expansion', () => {
    for (const target of ['$HOME/x', '`pwd`/x', 'out*.txt', 'a{1,2}']) {
      const v = checkWriteTargets([target], { cwd: ws, home, profile: limits() });
      expect(v, target).toMatchObject({ ok: false });
      if (!v.ok && 'denied' in v) expect(v.denied[0]!.denial).toBe('unresolvable');
    }
  });

  it('reports an invalid deny glob as a typed profile error', () => {
    const v = checkWriteTargets(['a'], { cwd: ws, home, profile: limits({ writeDeny: ['relative/**'] }) });
    expect(v).toMatchObject({ ok: false, kind: 'invalid-profile' });
  });
});

describe('property: an accepted write lands inside a writable root', () => {
  it('holds for random paths over .., ., //, ~ and symlinks in and out of the workspace', () => {
    t.dir('ws/sub/deeper');
    t.dir('outside/far');
    fs.symlinkSync(outside, `${ws}/out`);
    fs.symlinkSync(`${ws}/sub`, `${ws}/in`);
    fs.symlinkSync('../..', `${ws}/sub/up2`);
    fs.symlinkSync(`${outside}/far/ghost`, `${ws}/dangling`);
    fs.symlinkSync(ws, `${outside}/back`);
    fs.symlinkSync(`${ws}/sub`, `${home}/work`);
    const g = guardFor();
    const segment = fc.constantFrom(
      '..',
      '.',
      '',
      'a',
      'sub',
      'deeper',
      'out',
      'in',
      'up2',
      'dangling',
      'back',
      'far',
      'work',
    );
    const start = fc.constantFrom('', '/', '~/', `${ws}/`, `${outside}/`, `${t.root}/`);
    fc.assert(
      fc.property(
        start,
        fc.array(segment, { minLength: 1, maxLength: 7 }),
        fc.constantFrom('f1', 'f2'),
        (s, parts, leaf) => {
          const input = s + [...parts, leaf].join('/');
          const v = g.check(input, 'write');
          if (!v.ok) return;
          // Independent oracle: really create the file through the path as written, then ask the
          // kernel where it is.
          // No path.resolve here: it would apply `..` lexically, which is not what the kernel does.
          const raw = input.startsWith('~/')
            ? home + input.slice(1)
            : input.startsWith('/')
              ? input
              : `${ws}/${input}`;
          createThrough(raw);
          // realpathSync.native is realpath(3); the JS realpathSync applies `..` lexically first.
          const landed = fs.realpathSync.native(raw);
          expect(isInside(landed, ws), `${input} landed at ${landed}`).toBe(true);
          expect(landed).toBe(v.path);
        },
      ),
      { numRuns: 400 },
    );
  });
});

/**
 * Creates the file at `raw` the way `mkdir -p "$(dirname raw)" && touch raw` would, letting the
 * kernel resolve every component (including `..` after a symlink). Node's mkdir `recursive`
 * normalizes the path lexically first, so the directories are made one component at a time.
 */
function createThrough(raw: string): void {
  const parts = raw.split('/');
  const leaf = parts.pop()!;
  let dir = '';
  for (const part of parts) {
    dir = dir === '' ? '/' : dir.endsWith('/') ? dir + part : `${dir}/${part}`;
    if (part === '' || part === '.' || part === '..') continue;
    try {
      fs.mkdirSync(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
  fs.writeFileSync(`${dir}/${leaf}`, 'x');
}
