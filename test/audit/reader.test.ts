import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readLines } from '../../src/audit/reader.js';
import { tempDir } from './fixtures/sample.js';

const t = tempDir();
afterAll(() => t.cleanup());

async function lines(content: string | Buffer, stopAt = Number.POSITIVE_INFINITY) {
  const path = join(t.dir, 'f');
  await writeFile(path, content);
  const file = await open(path, 'r');
  const seen: string[] = [];
  try {
    const summary = await readLines(file, (line, n) => {
      seen.push(`${n}:${line.toString()}`);
      return n < stopAt;
    });
    return { seen, summary };
  } finally {
    await file.close();
  }
}

describe('readLines', () => {
  it('hands out each line with its number, without the newline', async () => {
    expect(await lines('a\n\nccc\n')).toEqual({
      seen: ['1:a', '2:', '3:ccc'],
      summary: { lines: 3, stopped: false, tornBytes: 0 },
    });
  });

  it('reports bytes after the last newline as torn', async () => {
    expect((await lines('a\nbc')).summary).toEqual({ lines: 1, stopped: false, tornBytes: 2 });
  });

  it('stops when asked', async () => {
    expect(await lines('a\nb\nc\n', 2)).toEqual({
      seen: ['1:a', '2:b'],
      summary: { lines: 2, stopped: true, tornBytes: 0 },
    });
  });

  it('handles lines longer than its buffer and lines across buffer boundaries', async () => {
    const long = 'x'.repeat(3_000_000);
    const many = Array.from({ length: 50_000 }, (_, i) => `line ${i} ${'y'.repeat(i % 97)}`);
    const { seen, summary } = await lines(`${many.join('\n')}\n${long}\nend\n`);
    expect(summary).toEqual({ lines: 50_002, stopped: false, tornBytes: 0 });
    expect(seen.slice(0, 50_000)).toEqual(many.map((l, i) => `${i + 1}:${l}`));
    expect(seen[50_000]).toBe(`50001:${long}`);
    expect(seen[50_001]).toBe('50002:end');
  });
});
