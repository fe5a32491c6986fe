import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';
import { probeOracle, runOracle } from '../oracle/jail.js';
import type { Verdict } from '../oracle/verdict.js';

/**
 * Lines labelled by the execution oracle (test/oracle), not by a person: `oracle` is what running
 * the line with real bash in the jail did. Regenerate a line's label with
 * `echo '{"command": ...}' | npm run oracle -- --stdin`.
 */
interface OracleLine {
  command: string;
  family: string;
  oracle: Verdict;
}

const lines: OracleLine[] = fs
  .readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'bash-oracle-labelled.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as OracleLine);

describe('lines labelled by the oracle', () => {
  it('are there, with both verdicts', () => {
    expect(lines.filter((l) => l.oracle.readOnly).length).toBeGreaterThan(20);
    expect(lines.filter((l) => !l.oracle.readOnly).length).toBeGreaterThan(20);
  });

  it('classifyBash never calls read-only a line the oracle saw write, exec, connect or signal', () => {
    const wrong = lines
      .filter((l) => !l.oracle.readOnly && classifyBash(l.command).readOnly)
      .map((l) => `${l.command}  <-  ${l.oracle.effects.join('; ')}`);
    expect(wrong).toEqual([]);
  });

  it('classifyBash calls read-only the recall lines the oracle proved read-only', () => {
    const missed = lines
      .filter((l) => l.family.startsWith('recall') && l.oracle.readOnly && !classifyBash(l.command).readOnly)
      .map((l) => `${l.command}  <-  ${classifyBash(l.command).reasons[0]}`);
    expect(missed).toEqual([]);
  });
});

const probe = probeOracle();

/**
 * The labels still hold: every line classifyBash calls read-only is run again in the jail, so a
 * read-only claim stays proven when the fixture, the classifier or the oracle changes.
 */
describe.skipIf(!probe.available)('read-only claims, proven again by the oracle', () => {
  const claimed = lines.filter((l) => classifyBash(l.command).readOnly);
  it(`${claimed.length} lines`, async () => {
    const contradicted: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < claimed.length) {
        const line = claimed[next++]!;
        const r = await runOracle(line.command);
        if (!r.readOnly) contradicted.push(`${line.command}  <-  ${JSON.stringify(r.effects)}`);
      }
    };
    await Promise.all([worker(), worker()]);
    expect(contradicted).toEqual([]);
  }, 600_000);
});
