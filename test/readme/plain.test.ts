import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, readmeBlocks } from './blocks.js';
import { type Scratch, scratch } from './scratch.js';

/**
 * The README's plain blocks: a terminal transcript (`$ command` then its output) is run and
 * must print exactly what is shown; the source layout names only folders that exist and lists
 * every folder of src/, so a new area cannot go unmentioned.
 */
const blocks = readmeBlocks().filter((b) => b.lang === '' && b.notATest === undefined);
const made: Scratch[] = [];
afterAll(() => {
  for (const s of made) s.remove();
});

describe('README transcripts', { timeout: 60_000 }, () => {
  const transcripts = blocks.filter((b) => b.text.startsWith('$ toolgate '));
  it.each(transcripts.map((b) => [b.line, b] as const))(
    'README.md:%i prints what it shows',
    async (_l, b) => {
      const [first, ...output] = b.text.split('\n');
      const s = scratch();
      made.push(s);
      const r = await s.sh(first!.slice(2));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(output.join('\n'));
    },
  );
});

describe('README source layout', () => {
  const layouts = blocks.filter((b) => /^src\/\S+\/\s/.test(b.text));
  it.each(layouts.map((b) => [b.line, b] as const))('README.md:%i matches the tree', (_l, b) => {
    const named = [...b.text.matchAll(/(?:^|\s)([a-z][\w-]*(?:\/[\w-]+)*\/)(?=\s)/g)].map((m) => m[1]!);
    for (const dir of named) expect(fs.statSync(path.join(ROOT, dir)).isDirectory(), dir).toBe(true);
    const src = fs
      .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `src/${d.name}/`);
    expect(src.filter((d) => !named.includes(d))).toEqual([]);
  });
});
