import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';

/**
 * Lines the knowledge read as read-only while they run code (#16 class 8/9): an option's value
 * attached with `=` where only the separate form was known, and an abbreviation that swallowed
 * the next option as its value.
 */
describe('knowledge holes', () => {
  for (const line of [
    'fd --exec=rm x',
    'fd --exec-batch=rm x',
    'fdfind -e txt --exec=sh -c id',
    'rg --ignore --pre=sh x',
    'rg --ignore-f --pre sh x',
  ]) {
    it(`${line} runs a program: not read-only`, () => {
      expect(classifyBash(line).readOnly).toBe(false);
    });
  }
  it('an abbreviation still takes a plain next word as its value', () => {
    expect(classifyBash('sort --out o.txt f').writes).toEqual(['o.txt']);
    expect(classifyBash('rg --ignore-file .ig pattern').readOnly).toBe(true);
  });
});
