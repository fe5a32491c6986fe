import path from 'node:path';
import fc from 'fast-check';
import { Minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import {
  anchorPathPattern,
  compileAbsolutePathGlob,
  compilePathPattern,
  literalDirectory,
  requiredText,
} from '../../src/policy/match/path.js';

/**
 * Path patterns have a fast matcher for the `dir/**` + `/NAME` shape, and skip compiling when a
 * path is outside the pattern's literal directory; both must agree with the plain definition
 * (minimatch on the path and on each of its ancestors) on every path.
 */
const anchors = { cwd: '/w/proj', home: '/home/u', policyRoot: '/w/proj/.toolgate' };
const reference = (glob: string) => {
  const mm = new Minimatch(glob, { dot: true, nocomment: true, nonegate: true, noext: false });
  return (p: string) => {
    for (let current = path.posix.normalize(p); ; current = path.posix.dirname(current)) {
      if (mm.match(current)) return true;
      if (path.posix.dirname(current) === current) return false;
    }
  };
};

const segment = fc.constantFrom(
  '.env',
  '.env.example',
  '.env.local',
  'env',
  'x.pem',
  'id_rsa',
  'id_rsa.pub',
  'a',
  'src',
  '.git',
  'secret-dir-4',
  '.ssh',
  'w',
  'proj',
  'home',
  'u',
  'config',
  'hooks',
  '.claude',
  'worktrees',
  'settings.json',
);
const absolute = fc
  .tuple(fc.array(segment, { minLength: 0, maxLength: 7 }), fc.constantFrom('', '/', '//', '/.'))
  .map(([s, end]) => `/${s.join('/')}${s.length > 0 ? end : ''}`);
const patterns = [
  '**/.env',
  '.env',
  '**/.env!(*.example|*.sample)',
  '**/*.pem',
  '**/id_rsa*',
  '*.{pem,key}',
  '~/.ssh/**',
  '~/.ssh/**/id_*',
  '//w/**/config',
  './src/**/.env*',
  'secret-dir-4/**',
  '**/secret-dir-4/**',
  '/config',
  'src/**',
  '**/.git/hooks',
  '**/.claude/!(worktrees)',
  '//w/**/.git/config',
  '**/a/src',
  '~/**/.ssh/*',
];

describe('path patterns: the fast matchers agree with minimatch', () => {
  for (const pattern of patterns)
    for (const kind of ['allow', 'deny'] as const)
      it(`${kind} ${pattern}`, () => {
        const compiled = compilePathPattern(pattern, kind, anchors);
        const glob = anchorPathPattern(pattern, kind, anchors);
        const withAncestors = reference(glob);
        const itself = new Minimatch(glob, { dot: true, nocomment: true, nonegate: true, noext: false });
        fc.assert(
          fc.property(absolute, (p) => {
            expect(compiled.matches(p), `matches ${p}`).toBe(withAncestors(p));
            expect(compiled.matchesItself(p), `matchesItself ${p}`).toBe(itself.match(p));
          }),
          { numRuns: 400 },
        );
      });
});

describe('path patterns: the literal directory never rules out a match', () => {
  const globSegment = fc.constantFrom(
    'home',
    'u',
    '.ssh',
    'a',
    'w',
    'proj',
    '.',
    '..',
    '',
    '*',
    '**',
    '.e*',
    'a?',
    '[ab]',
    '{a,w}',
    '{u,.ssh}',
    '!(a)',
    '@(u|w)',
    '+(a)',
    'a\\*',
    '\\a',
    '*.pem',
    'x.pem',
    'id_rsa*',
    '.env!(*.example|*.sample)',
    'a[b',
    'a[!b]c',
    'x@(a|b)y',
    '+(a)b',
    'a!b',
    '?(x)env',
    'c]d',
    // Classes and groups minimatch reads differently from a naive bracket count, and braces that
    // expand to `..` (found by review: each once made a deny rule skip a path it matches).
    '[]abc]',
    '[)abc]',
    '[!]abc]',
    '[^]abc]',
    '@(a]xyz|b)',
    '{..,x}',
    '{.,x}{.,y}',
    'other',
  );
  const pathSegment = fc.constantFrom(
    'home',
    'u',
    '.ssh',
    'a',
    'w',
    'proj',
    'b',
    '.env',
    '.env.example',
    '.env.local',
    'a*',
    '{a,w}',
    'x.pem',
    'id_rsa.pub',
    'a[b',
    'abc',
    'aac',
    'xay',
    'aab',
    'a!b',
    'env',
    'xenv',
    'c]d',
    'z',
    'other',
    'secret',
  );
  it('for any glob made of literal and special segments, and any path', () => {
    fc.assert(
      fc.property(
        fc.array(globSegment, { minLength: 1, maxLength: 6 }),
        fc.array(pathSegment, { minLength: 0, maxLength: 6 }),
        (globParts, pathParts) => {
          const glob = `/${globParts.join('/')}`;
          const p = `/${pathParts.join('/')}`;
          const compiled = compilePathPattern(`/${glob}`, 'deny', anchors);
          const mm = new Minimatch(compiled.glob, {
            dot: true,
            nocomment: true,
            nonegate: true,
            noext: false,
          });
          expect(compiled.matches(p), `${compiled.glob} matches ${p}`).toBe(reference(compiled.glob)(p));
          expect(compiled.matchesItself(p), `${compiled.glob} itself ${p}`).toBe(mm.match(p));
        },
      ),
      { numRuns: 6000 },
    );
  });

  it('required text: the longest literal run of the last segment before any class or group', () => {
    expect(requiredText('/**/*.pem')).toBe('.pem');
    expect(requiredText('/**/.env!(*.example|*.sample)')).toBe('.env');
    expect(requiredText('/home/u/.ssh/**')).toBe('');
    expect(requiredText('/**/x@(a|b)yz')).toBe('x');
    expect(requiredText('/**/a[!b]cd')).toBe('a');
    expect(requiredText('/**/[]abc]')).toBe('');
    expect(requiredText('/**/[)abc]')).toBe('');
    expect(requiredText('/**/@(a]xyz|b)')).toBe('');
    expect(requiredText('/**/{a,b}.pem')).toBe('');
    expect(requiredText('/**/a\\*b')).toBe('');
    expect(requiredText('/w/../x.pem')).toBe('');
  });

  it('stops before the first special segment, never takes the last one, gives up on braces, . and ..', () => {
    expect(literalDirectory('/home/u/.ssh/**')).toBe('/home/u/.ssh');
    expect(literalDirectory('/home/u/.netrc')).toBe('/home/u');
    expect(literalDirectory('/**/.env')).toBe('');
    expect(literalDirectory('/w/{a,b}/x')).toBe('');
    expect(literalDirectory('/home/u/{..,x}/other/**')).toBe('');
    expect(literalDirectory('/home/u/{.,x}{.,y}/other/**')).toBe('');
    expect(literalDirectory('/w/x/../y')).toBe('');
    expect(literalDirectory('/w/x/y/..')).toBe('');
    expect(literalDirectory('/w//x/y')).toBe('');
    expect(literalDirectory('/')).toBe('');
  });

  it('absolute globs compiled once by text (the sandbox asks on every call) match as a fresh compile does', () => {
    const globs = ['/**/.env!(*.example)', '/home/u/.ssh/**', '/**/*.pem', '/w/proj/.git/hooks'];
    expect(compileAbsolutePathGlob(globs[0]!)).toBe(compileAbsolutePathGlob(globs[0]!));
    expect(() => compileAbsolutePathGlob('relative/**')).toThrow();
    expect(() => compileAbsolutePathGlob('relative/**')).toThrow();
    fc.assert(
      fc.property(fc.constantFrom(...globs), absolute, (glob, p) => {
        const fresh = compilePathPattern(`/${glob}`, 'deny', { cwd: '/', home: '/', policyRoot: '/' });
        expect(compileAbsolutePathGlob(glob).matches(p)).toBe(fresh.matches(p));
      }),
    );
  });
});
