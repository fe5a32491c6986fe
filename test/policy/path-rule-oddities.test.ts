import { afterAll, describe, expect, it } from 'vitest';
import { compile, decideIn, makeWorld, read } from './helpers/world.js';

/**
 * Deny rules written with glob features minimatch reads in its own way still deny what they
 * match: braces that expand to `..`, a `]` or `)` read as a class member. (A review found each
 * once slipping past the filters that spare a decision from compiling every glob.)
 */
const w = makeWorld('toolgate-path-oddities-');
afterAll(() => w.cleanup());

describe('odd but valid deny patterns', () => {
  it('a brace that expands to .. reaches the directory it folds to', async () => {
    const outside = w.file(`${w.base}/outside/f`);
    const policy = await compile(w, { deny: ['Read(/{..,x}/outside/**)'], allow: [`Read(/${w.base}/**)`] });
    expect(decideIn(w, policy, read(outside)).behavior).toBe('deny');
    const twoBraces = await compile(w, {
      deny: ['Read(/{.,x}{.,y}/outside/**)'],
      allow: [`Read(/${w.base}/**)`],
    });
    expect(decideIn(w, twoBraces, read(outside)).behavior).toBe('deny');
  });

  it('a class whose first member is ] or ) still matches its other members', async () => {
    const a = w.file('a');
    for (const pattern of ['[)abc]', '[]abc]', '**/[]abc]', '@(a]xyz|a)']) {
      const policy = await compile(w, { deny: [`Read(${pattern})`] });
      expect(decideIn(w, policy, read(a)).behavior, pattern).toBe('deny');
    }
    const z = w.file('z');
    for (const pattern of ['[!]abc]', '[^]abc]']) {
      const policy = await compile(w, { deny: [`Read(${pattern})`] });
      expect(decideIn(w, policy, read(z)).behavior, pattern).toBe('deny');
    }
  });
});
