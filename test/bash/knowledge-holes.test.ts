import { describe, expect, it } from 'vitest';
import { analyzeBash, classifyBash } from '../../src/bash/classify.js';

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

  it('awk reads what follows its program as files, options or not: a .env read is seen', () => {
    // gawk and mawk stop reading options at the program (tried in a jail: with a file named -F
    // there, `awk 1 -F .env` prints it and .env).
    const reads = (line: string) => analyzeBash(line).reports.flatMap((r) => r.reads.map((w) => w.value));
    expect(reads('awk 1 -F .env')).toEqual(expect.arrayContaining(['-F', '.env']));
    expect(reads("gawk '{print}' -v .env")).toEqual(expect.arrayContaining(['.env']));
    expect(reads('awk 1 -- .env')).toEqual(expect.arrayContaining(['--', '.env']));
    // Before the program they are options: -F's value is no file.
    expect(reads('awk -F .env 1 f')).toEqual(['f']);
  });
});
