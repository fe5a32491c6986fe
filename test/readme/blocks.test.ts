import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readmeBlocks, shellCommands } from './blocks.js';
import { kindsOf } from './kinds.js';
import { SHELL } from './shell-commands.js';

/**
 * Every fenced block of the README is run by a test (issue 19): each is of one kind, whose test
 * file runs every block of that kind, and every shell line has its entry in shell-commands.ts.
 * Only a `<!-- not-a-test: reason -->` line right above a block lets it go untested.
 */
const blocks = readmeBlocks();

describe('the README blocks', () => {
  it('are all found, fences closed', () => {
    expect(blocks.length).toBeGreaterThanOrEqual(23);
  });

  it('each unmarked block is of exactly one kind, whose test file exists', () => {
    const untested = blocks
      .filter((b) => b.notATest === undefined && kindsOf(b).length !== 1)
      .map((b) => `README.md:${b.line} (${b.lang || 'text'}): ${kindsOf(b).length} kinds`);
    expect(untested).toEqual([]);
    for (const b of blocks)
      for (const k of kindsOf(b)) expect(fs.existsSync(path.join(ROOT, k.file)), k.file).toBe(true);
  });

  it('each shell line has a test', () => {
    const lines = blocks
      .filter((b) => b.lang === 'sh' && b.notATest === undefined)
      .flatMap((b) => shellCommands(b).map((c) => ({ ...c, line: b.line })));
    expect(
      lines.filter((c) => SHELL[c.command] === undefined).map((c) => `README.md:${c.line}: ${c.command}`),
    ).toEqual([]);
    // and no entry outlives its line: a changed README line must change its test
    const printed = new Set(lines.map((c) => c.command));
    expect(Object.keys(SHELL).filter((c) => !printed.has(c))).toEqual([]);
  });

  it('markers are rare and say why', () => {
    const marked = blocks.filter((b) => b.notATest !== undefined);
    expect(marked.length).toBeLessThanOrEqual(2);
    for (const b of marked) expect(b.notATest!.length).toBeGreaterThan(10);
  });

  it('a block added without a test is red', () => {
    const added = readmeBlocks('# x\n\n```python\nprint(1)\n```\n\n```sh\ntoolgate frobnicate\n```\n');
    expect(kindsOf(added[0]!)).toEqual([]);
    expect(SHELL[shellCommands(added[1]!)[0]!.command]).toBeUndefined();
    const marked = readmeBlocks('<!-- not-a-test: a sketch of a future API -->\n```python\nprint(1)\n```\n');
    expect(marked[0]!.notATest).toBe('a sketch of a future API');
  });
});
