import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ownFileAt, ownFileWithin } from '../../src/policy/own-files.js';

/** own-files.ts: a path is an own file when it is one or lies below one; a directory holds one when it is above one. */
const segment = fc.constantFrom('a', 'b', 'log', 'log.jsonl', '.toolgate', 'x y');
const absPath = fc.array(segment, { minLength: 0, maxLength: 5 }).map((s) => `/${s.join('/')}`);

describe('own files', () => {
  it('at: equal or below, never a sibling sharing a prefix (property)', () => {
    fc.assert(
      fc.property(absPath, absPath, (own, p) => {
        const hit = ownFileAt(p, [{ path: own, what: 'it' }]) !== undefined;
        const below = own === '/' || p === own || p.startsWith(`${own}/`);
        expect(hit).toBe(below);
        expect(ownFileWithin(own, [{ path: p, what: 'it' }]) !== undefined).toBe(below);
      }),
    );
  });

  it('examples', () => {
    const own = [{ path: '/var/log/tg/decisions.jsonl', what: 'the decision log' }];
    expect(ownFileAt('/var/log/tg/decisions.jsonl', own)?.what).toBe('the decision log');
    expect(ownFileAt('/var/log/tg/decisions.jsonl.bak', own)).toBeUndefined();
    expect(ownFileWithin('/var/log/tg', own)).toBeDefined();
    expect(ownFileWithin('/var/log/t', own)).toBeUndefined();
  });
});
