import { describe, expect, it } from 'vitest';
import { CATALOGUE, REGISTRY } from '../../../src/bash/catalogue/index.js';
import { classifyBash } from '../../../src/bash/classify.js';

/** The whole catalogue, entry by entry: every example gets the verdict its entry claims. */
describe('the command catalogue', () => {
  it('has entries, each with examples', () => {
    expect(CATALOGUE.length).toBeGreaterThan(40);
    for (const e of CATALOGUE) {
      const ex = e.examples;
      expect(
        (ex.readOnly?.length ?? 0) + (ex.notReadOnly?.length ?? 0) + (ex.destructive?.length ?? 0),
        e.name,
      ).toBeGreaterThan(0);
    }
  });

  for (const e of CATALOGUE) {
    describe(e.name, () => {
      for (const line of e.examples.readOnly ?? []) {
        it(`read-only: ${line}`, () => {
          const f = classifyBash(line);
          expect({ readOnly: f.readOnly, reasons: f.reasons }).toEqual({
            readOnly: true,
            reasons: expect.anything(),
          });
        });
      }
      for (const line of e.examples.notReadOnly ?? []) {
        it(`not read-only, not destructive: ${line}`, () => {
          const f = classifyBash(line);
          expect({ readOnly: f.readOnly, destructive: f.destructive, reasons: f.reasons }).toEqual({
            readOnly: false,
            destructive: false,
            reasons: expect.anything(),
          });
        });
      }
      for (const line of e.examples.destructive ?? []) {
        it(`destructive: ${line}`, () => {
          const f = classifyBash(line);
          expect({ destructive: f.destructive, reasons: f.reasons }).toEqual({
            destructive: true,
            reasons: expect.anything(),
          });
        });
      }
      it('its examples use it', () => {
        const names = [e.name, ...(e.aliases ?? [])];
        const all = [
          ...(e.examples.readOnly ?? []),
          ...(e.examples.notReadOnly ?? []),
          ...(e.examples.destructive ?? []),
        ];
        for (const line of all)
          expect(
            names.some((n) =>
              new RegExp(`(^|[|;&(\\s])${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\s|$)`).test(line),
            ),
            line,
          ).toBe(true);
        for (const n of names) expect(REGISTRY.entry(n)).toBe(e);
      });
    });
  }
});
