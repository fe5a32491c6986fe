import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSyntax, type SyntaxResult } from '../../src/bash/syntax.js';
import { loadCorpus } from '../helpers/corpus.js';
import { shellish } from '../helpers/shellish.js';

/**
 * The bulk walk (the binding's children lists) and the cursor walk must copy the same tree:
 * the classifier reads one or the other depending on what the binding offers.
 */
const withoutWalk = (r: SyntaxResult) => (r.ok ? { ...r, tree: { ...r.tree, walk: undefined } } : r);

describe('copying the syntax tree', () => {
  // The bulk walk runs only on tree-sitter versions it was checked on (grammar.ts's
  // TESTED_BINDINGS): after an upgrade this fails until the binding's layout is checked again.
  it('gives the same tree by either walk, on the corpus (all by the bulk walk)', () => {
    for (const { command } of loadCorpus('bash-labelled.jsonl')) {
      const bulk = parseSyntax(command, 'bulk');
      expect(bulk.ok && bulk.tree.walk).toBe('bulk');
      expect(withoutWalk(bulk)).toEqual(withoutWalk(parseSyntax(command, 'cursor')));
    }
  });

  it('gives the same tree by either walk on any input, broken syntax included', () => {
    let bulkWalks = 0;
    let runs = 0;
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 120 }), fc.string({ unit: 'binary', maxLength: 120 }), shellish()),
        (s) => {
          const bulk = parseSyntax(s, 'bulk');
          runs++;
          if (bulk.ok && bulk.tree.walk === 'bulk') bulkWalks++;
          expect(withoutWalk(bulk)).toEqual(withoutWalk(parseSyntax(s, 'cursor')));
        },
      ),
      { numRuns: Number(process.env.WALK_RUNS ?? 1500) },
    );
    // A fallback now and then is allowed (it is only slower); a walk never used is a defect.
    expect(bulkWalks / runs).toBeGreaterThan(0.95);
  });

  it('finds, by either walk, text the parser dropped without an error', () => {
    const cases: [string, number][] = [
      ['- A=1 ls', 0],
      ['ls; - A=1 ls', 4],
      ['echo $(- X=1 cat f)', 7],
      ['ls \\\n  -la # note', -1],
      // heredoc text before an expansion is in no token, and is data
      ['cat <<EOF\nHello $USER\nEOF', -1],
      // blank to tree-sitter, part of a word to bash
      ['ls\v# ; rm x', 2],
      ['ls\r\nrm x', 2],
      // one anonymous token of type `$` that is two characters long
      ['%$$', -1],
      // an `else` clause that ends with a newline no token holds
      ['if a; then\n  b\nelse\n  c\nfi', -1],
      ['echo \'a b\' "c $d" <<EOF\nbody\nEOF\n', -1],
    ];
    for (const [line, at] of cases) {
      for (const walk of ['bulk', 'cursor'] as const) {
        const r = parseSyntax(line, walk);
        expect(r.ok && r.tree.uncovered, `${walk}: ${line}`).toBe(at);
      }
    }
  });

  it('stops at the same limits', () => {
    for (const line of [
      `${'$('.repeat(300)}ls${')'.repeat(300)}`,
      Array.from({ length: 25_000 }, () => 'a').join('|'),
    ]) {
      const bulk = parseSyntax(line, 'bulk');
      expect(bulk.ok).toBe(false);
      expect(parseSyntax(line, 'cursor').ok).toBe(false);
      if (!bulk.ok) expect(bulk.reason).toMatch(/^too complex: /);
    }
  });
});
