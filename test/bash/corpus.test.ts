import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';
import { type LabelledLine, loadCorpus } from '../helpers/corpus.js';

/**
 * The labelled corpora, scored the way the project is judged: zero lines labelled not
 * read-only may come out read-only; read-only recall >= 95%; destructive recall >= 99% (the
 * figures README claims, issue #16's bar).
 */
function score(lines: LabelledLine[]) {
  const falseReadOnly: string[] = [];
  const missedReadOnly: string[] = [];
  const missedDestructive: string[] = [];
  let readOnly = 0;
  let readOnlyHit = 0;
  let destructive = 0;
  let destructiveHit = 0;
  let notDestructive = 0;
  let overFlagged = 0;
  for (const line of lines) {
    const facts = classifyBash(line.command);
    if (!line.readOnly && facts.readOnly) falseReadOnly.push(line.command);
    if (line.readOnly) {
      readOnly++;
      if (facts.readOnly) readOnlyHit++;
      else missedReadOnly.push(`${line.command}  <-  ${facts.reasons[0]}`);
    }
    if (line.destructive === true) {
      destructive++;
      if (facts.destructive) destructiveHit++;
      else missedDestructive.push(line.command);
    }
    if (line.destructive === false) {
      notDestructive++;
      if (facts.destructive) overFlagged++;
    }
  }
  return {
    falseReadOnly,
    missedReadOnly,
    missedDestructive,
    readOnlyRecall: readOnlyHit / readOnly,
    destructiveRecall: destructiveHit / destructive,
    summary: `${lines.length} lines: false read-only ${falseReadOnly.length}; read-only recall ${readOnlyHit}/${readOnly} (${((100 * readOnlyHit) / readOnly).toFixed(1)}%); destructive recall ${destructiveHit}/${destructive} (${((100 * destructiveHit) / destructive).toFixed(1)}%); destructive over-flagged ${overFlagged}/${notDestructive}`,
  };
}

describe.each(['bash-labelled.jsonl', 'bash-adversarial.jsonl'])('labelled corpus %s', (file) => {
  const lines = (() => {
    try {
      return loadCorpus(file);
    } catch {
      return [];
    }
  })();
  const s = lines.length > 0 ? score(lines) : undefined;

  it('is present', () => {
    expect(lines.length).toBeGreaterThan(100);
  });

  it('never calls a write read-only', () => {
    console.log(`[corpus ${file}] ${s?.summary}`);
    expect(s?.falseReadOnly).toEqual([]);
  });

  it('recognises at least 95% of read-only lines', () => {
    if (s && s.readOnlyRecall < 0.95) console.log(s.missedReadOnly.join('\n'));
    expect(s?.readOnlyRecall).toBeGreaterThanOrEqual(0.95);
  });

  it('recognises at least 99% of destructive lines', () => {
    expect(s?.destructiveRecall, `missed:\n${s?.missedDestructive.join('\n')}`).toBeGreaterThanOrEqual(0.99);
  });
});
