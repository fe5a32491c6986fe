import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTail, type Tail } from '../../src/audit/tail.js';
import { tempDir } from './fixtures/sample.js';

const t = tempDir();
afterAll(() => t.cleanup());

function tailOf(content: string): Tail | string {
  const path = join(t.dir, 'f');
  writeFileSync(path, content);
  const fd = openSync(path, 'r');
  try {
    const tail = readTail(fd, Buffer.byteLength(content));
    return tail.kind === 'line' ? tail.line.toString() : tail;
  } finally {
    closeSync(fd);
  }
}

describe('readTail', () => {
  it('returns the last line without its newline', () => {
    expect(tailOf('a\nbb\nccc\n')).toBe('ccc');
    expect(tailOf('only\n')).toBe('only');
  });

  it('finds a last line much longer than one read, and one that starts the file', () => {
    const long = 'x'.repeat(200_000);
    expect(tailOf(`a\n${long}\n`)).toBe(long);
    expect(tailOf(`${long}\n`)).toBe(long);
    expect(tailOf(`${'y'.repeat(8191)}\n`)).toBe('y'.repeat(8191));
  });

  it('reports an empty file, and a file that does not end in a newline', () => {
    expect(tailOf('')).toEqual({ kind: 'empty' });
    expect(tailOf('a\nb')).toEqual({ kind: 'torn' });
  });

  it('returns an empty last line as empty (the caller refuses it)', () => {
    expect(tailOf('a\n\n')).toBe('');
  });
});
