import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileAbsolutePathGlob } from '../../src/policy/match/path.js';
import { anywherePatterns, mayBeUnderEntry, protectedEntryOf } from '../../src/policy/protected.js';

/**
 * protectedEntryOf skips the pattern tests when no segment of the path is the first segment of
 * an entry: that shortcut must never rule out a path one of the patterns matches.
 */
const patterns = anywherePatterns().map((label) => compileAbsolutePathGlob(`/**/${label}`));
const SEGMENTS = [
  ...new Set(anywherePatterns().flatMap((label) => label.split('/'))),
  'src',
  'a.ts',
  'worktrees',
  'hooks',
  'config',
  '.',
  '..',
  '',
  '.gitx',
  'x.git',
  '.GIT',
  '.cache',
];

describe('protected paths', () => {
  it('the segment shortcut never rules out a path a pattern matches (property)', () => {
    const pathOf = fc
      .array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 7 })
      .map((s) => `/${s.join('/')}`);
    fc.assert(
      fc.property(pathOf, (p) => {
        if (patterns.some((pattern) => pattern.matches(p))) expect(mayBeUnderEntry(p), p).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('finds the entry a path falls under, by the path as written or normalized', () => {
    expect(protectedEntryOf('/w/.git/hooks/pre-commit', ['/w'])).toBe('.git/hooks');
    expect(protectedEntryOf('/w/src/../.git/hooks/pre-commit', ['/w'])).toBe('.git/hooks');
    expect(protectedEntryOf('/w/a/./.claude/settings.json', ['/w'])).toBe('.claude');
    expect(protectedEntryOf('/w/.claude/worktrees/x', ['/w'])).toBeUndefined();
    expect(protectedEntryOf('/home/u/.config/git/config', ['/w'])).toBe('.config/git');
    expect(protectedEntryOf('/w/src/a.ts', ['/w'])).toBeUndefined();
    expect(protectedEntryOf('/w/.git', ['/w'])).toBe('.git');
    expect(protectedEntryOf('/w/HEAD', ['/w'])).toBe('HEAD');
    expect(mayBeUnderEntry('/w/src/module1/file1.ts')).toBe(false);
  });
});
