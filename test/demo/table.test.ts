import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { layoutFor, row, wrap } from '../../src/demo/table.js';

/** The demo's table at any terminal width (issue 19): nothing wider than the terminal, no reason cut. */
const cells = fc.record({
  n: fc.integer({ min: 1, max: 999 }),
  tool: fc.string({ minLength: 1, maxLength: 10 }).map((s) => s.replace(/\s/g, 'x')),
  call: fc.string({ maxLength: 120 }),
  outcome: fc.constantFrom('ran', 'denied (rule)', 'asked, refused', 'allowed, no jail'),
  why: fc.string({ maxLength: 400 }),
});
const width = (s: string) => [...s].length;
const words = (s: string) => s.split(/\s+/).filter((w) => w !== '');

describe('the demo table', () => {
  it('fits every line in the width and wraps the whole reason, never cutting it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 40, max: 260 }), cells, (w, c) => {
        const layout = layoutFor(w, false, [c.call]);
        const lines = row(layout, c).split('\n');
        for (const l of lines) expect(width(l)).toBeLessThanOrEqual(w);
        // the reason: every line after the cells holds only the reason, which reads back whole
        const first = lines[0]!;
        const reasonLines =
          layout.indent === 4
            ? lines.slice(1).map((l) => l.slice(4))
            : [
                [...first].slice(layout.indent).join(''),
                ...lines.slice(1).map((l) => [...l].slice(layout.indent).join('')),
              ];
        expect(reasonLines.join(' ').replace(/\s+/g, ' ').trim()).toBe(wrap(c.why, layout.why!).join(' '));
        // nothing of the reason lost: the same characters, only the spacing between them changed
        expect(wrap(c.why, layout.why!).join('').replace(/ /g, '')).toBe(words(c.why).join(''));
      }),
      { numRuns: 1000 },
    );
  });

  it('--wide: one line a row, with the whole call and reason', () => {
    fc.assert(
      fc.property(cells, (c) => {
        const out = row(layoutFor(80, true, [c.call]), c);
        expect(out.split('\n')).toHaveLength(1);
        expect(out).toContain(words(c.why).join(' '));
        expect(out).toContain(words(c.call).join(' '));
      }),
    );
  });
});
