import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';

/**
 * Bounded work: hostile sizes get an answer (not read-only, "too complex") instead of a hang,
 * a stack overflow or unbounded memory. How fast is measured in bench/classify, not here.
 */
describe('classifier limits', () => {
  const tooComplex = (line: string) => {
    const facts = classifyBash(line);
    expect(facts.readOnly).toBe(false);
    expect(facts.reasons.join(' ')).toMatch(/too complex/);
    return facts;
  };

  it('answers a 1 MB line', () => {
    tooComplex(`echo ${'a'.repeat(1024 * 1024)}`);
  });

  it('answers 10,000-deep nesting of every nesting construct', () => {
    tooComplex(`${'$('.repeat(10_000)}ls${')'.repeat(10_000)}`);
    tooComplex(`${'('.repeat(10_000)}ls${')'.repeat(10_000)}`);
    tooComplex(`${'{ '.repeat(5_000)}ls${'; }'.repeat(5_000)}`);
    tooComplex(`${'bash -c "'.repeat(1)}${'$(echo '.repeat(3000)}x${')'.repeat(3000)}"`);
  });

  it('answers 100,000 pipes', () => {
    tooComplex(Array.from({ length: 100_000 }, () => 'cat').join(' | '));
  });

  it('answers code nested in code beyond the nesting limit', () => {
    tooComplex(`${'eval '.repeat(40)}ls`);
    expect(classifyBash(`${'bash -c '.repeat(40)}ls`).readOnly).toBe(false);
  });

  it('keeps memory bounded across many hostile lines', () => {
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 20; i++) classifyBash(`${'$('.repeat(20_000)}x${')'.repeat(20_000)}`);
    globalThis.gc?.();
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeLessThan(200 * 1024 * 1024);
  });
});
