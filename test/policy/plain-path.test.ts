import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { resolvePlain } from '../../src/policy/plain-path.js';

describe('resolvePlain', () => {
  it('is path.resolve(base, p) for an absolute base (property)', () => {
    const segment = fc.constantFrom('a', 'b.c', '.', '..', '', '...', '.x', 'x.', ' ', '~');
    const rel = fc.array(segment, { maxLength: 5 }).map((s) => s.join('/'));
    const anyPath = fc.oneof(
      rel,
      rel.map((r) => `/${r}`),
      rel.map((r) => `//${r}`),
      rel.map((r) => `${r}/`),
    );
    const base = fc.oneof(
      fc.constant('/'),
      anyPath.map((p) => `/${p}`),
    );
    fc.assert(
      fc.property(base, anyPath, (b, p) => {
        expect(resolvePlain(b, p), JSON.stringify([b, p])).toBe(path.resolve(b, p));
      }),
      { numRuns: 3000 },
    );
  });
});
