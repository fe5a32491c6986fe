import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { BashPart } from '../../src/policy/bash-parts.js';
import { type Behavior, strictest } from '../../src/policy/behavior.js';
import type { BashLine, ToolCall, Verdict } from '../../src/policy/order/subject.js';
import { DECISION_ORDER } from '../../src/policy/order/table.js';
import { type Step, walk } from '../../src/policy/order/walk.js';

/**
 * The decision order is data (order/table.ts) read by one interpreter (order/walk.ts). These
 * tests hold the document to the table, the table to its own shape, and the interpreter to
 * its specification: the strictest of every restricting answer and of each subject's first
 * grant, ties to the earliest. (What each step decides is tested through decide() elsewhere.)
 */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

describe('the table', () => {
  it("is ARCHITECTURE's decision order, step by step", () => {
    const doc = fs.readFileSync(path.join(REPO, 'ARCHITECTURE.md'), 'utf8');
    const block = /<!-- decision-order[^>]*-->\n([\s\S]*?)\n<!-- \/decision-order -->/.exec(doc);
    expect(block, 'ARCHITECTURE.md has the decision-order block').not.toBeNull();
    expect(block![1]!.split('\n')).toEqual(
      DECISION_ORDER.map((s, i) => `${i + 1}. ${s.name} (${s.kind}): ${s.doc}`),
    );
  });

  it('names each step once; restrictions come before grants; the last grant answers every subject', () => {
    const names = DECISION_ORDER.map((s) => s.name);
    expect(new Set(names).size).toBe(names.length);
    const kinds = DECISION_ORDER.map((s) => s.kind).join(' ');
    expect(kinds).toMatch(/^(restrict )+(grant ?)+$/);
    const last = DECISION_ORDER.at(-1)!;
    expect(last.kind).toBe('grant');
    expect(last.tool && last.line && last.part).toBeTruthy();
    expect(last.notIn).toBeUndefined();
    expect(last.onlyIn).toBeUndefined();
    for (const s of DECISION_ORDER) {
      // A grant never denies: a deny is a restriction, wherever it sits.
      if (s.kind === 'grant') expect(s.atMost, s.name).not.toBe('deny');
      expect(s.tool || s.line || s.part || s.invalid, s.name).toBeTruthy();
    }
  });
});

// ------------------------------------------------------------------------------ the interpreter

/** A generated step: what it answers for the tool call, the line, and each part (or nothing). */
interface FakeStep {
  kind: 'restrict' | 'grant';
  atMost: Behavior;
  tool: Behavior | null;
  line: Behavior | null;
  parts: (Behavior | null)[];
}

const PARTS = 4;
const answer = (kind: 'restrict' | 'grant', atMost: Behavior) => {
  const allowed: Behavior[] =
    kind === 'restrict'
      ? atMost === 'deny'
        ? ['ask', 'deny']
        : ['ask']
      : atMost === 'ask'
        ? ['allow', 'ask']
        : ['allow'];
  return fc.option(fc.constantFrom(...allowed), { freq: 2 });
};
const step = fc
  .record({
    kind: fc.constantFrom<'restrict' | 'grant'>('restrict', 'grant'),
    atMost: fc.constantFrom<Behavior>('ask', 'deny', 'allow'),
  })
  .map(({ kind, atMost }) => ({
    kind,
    atMost: kind === 'restrict' ? (atMost === 'allow' ? 'ask' : atMost) : atMost === 'deny' ? 'ask' : atMost,
  }))
  .chain(({ kind, atMost }) =>
    fc.record({
      kind: fc.constant(kind),
      atMost: fc.constant(atMost as Behavior),
      tool: answer(kind, atMost as Behavior),
      line: answer(kind, atMost as Behavior),
      parts: fc.array(answer(kind, atMost as Behavior), { minLength: PARTS, maxLength: PARTS }),
    }),
  );
// Restrictions, then grants, then a default that answers every subject (as the real table).
const table = fc
  .tuple(fc.array(step, { maxLength: 8 }), fc.constantFrom<Behavior>('allow', 'ask'))
  .map(([steps, fallback]): FakeStep[] => [
    ...steps.filter((s) => s.kind === 'restrict'),
    ...steps.filter((s) => s.kind === 'grant'),
    { kind: 'grant', atMost: 'ask', tool: fallback, line: fallback, parts: Array(PARTS).fill(fallback) },
  ]);

const verdict = (b: Behavior, where: string): Verdict => ({ behavior: b, by: 'default', reason: where });

function toSteps(fakes: FakeStep[]): Step[] {
  return fakes.map((f, i) => ({
    name: `step ${i}`,
    doc: '',
    kind: f.kind,
    atMost: f.atMost,
    tool: () => (f.tool ? verdict(f.tool, `${i} tool`) : undefined),
    line: () => (f.line ? verdict(f.line, `${i} line`) : undefined),
    part: (p) => {
      const b = f.parts[(p as unknown as { i: number }).i];
      return b ? verdict(b, `${i} part ${(p as unknown as { i: number }).i}`) : undefined;
    },
  }));
}

/** The specification, spelled out without the interpreter's shortcuts. */
function expected(fakes: FakeStep[], subject: 'tool' | number): string {
  const all: (Verdict | undefined)[] = [];
  fakes.forEach((f, i) => {
    if (f.kind !== 'restrict') return;
    if (subject === 'tool') all.push(f.tool ? verdict(f.tool, `${i} tool`) : undefined);
    else {
      all.push(f.line ? verdict(f.line, `${i} line`) : undefined);
      for (let p = 0; p < subject; p++)
        all.push(f.parts[p] ? verdict(f.parts[p]!, `${i} part ${p}`) : undefined);
    }
  });
  const grants = fakes.map((f, i) => ({ f, i })).filter(({ f }) => f.kind === 'grant');
  if (subject === 'tool') {
    const g = grants.find(({ f }) => f.tool)!;
    all.push(verdict(g.f.tool!, `${g.i} tool`));
  } else {
    // Each part: the first grant step where the line (for every part) or the part answers.
    const firstLine = grants.find(({ f }) => f.line);
    const picked: { key: number; v: Verdict }[] = [];
    if (subject === 0) picked.push({ key: 0, v: verdict(firstLine!.f.line!, `${firstLine!.i} line`) });
    for (let p = 0; p < subject; p++) {
      const g = grants.find(({ f }) => f.line || f.parts[p])!;
      picked.push(
        g.f.line
          ? { key: g.i * 100, v: verdict(g.f.line, `${g.i} line`) }
          : { key: g.i * 100 + p + 1, v: verdict(g.f.parts[p]!, `${g.i} part ${p}`) },
      );
    }
    picked.sort((a, b) => a.key - b.key);
    all.push(...picked.map((x) => x.v));
  }
  return JSON.stringify(strictest(all));
}

describe('walk', () => {
  it('is the strictest of every restriction and of each subject’s first grant, ties to the earliest (property)', () => {
    fc.assert(
      fc.property(table, fc.integer({ min: 0, max: PARTS }), (fakes, n) => {
        const steps = toSteps(fakes);
        const call = { kind: 'tool', mode: 'default' } as unknown as ToolCall;
        expect(JSON.stringify(walk(steps, call))).toBe(expected(fakes, 'tool'));
        const parts = Array.from({ length: n }, (_, i) => ({ i }) as unknown as BashPart);
        const line = { kind: 'bash', mode: 'default', parts } as unknown as BashLine;
        expect(JSON.stringify(walk(steps, line))).toBe(expected(fakes, n));
      }),
      { numRuns: 2000 },
    );
  });

  it('the order of restricting steps changes a reason, never the answer (property)', () => {
    fc.assert(
      fc.property(table, fc.integer({ min: 0, max: PARTS }), fc.integer(), (fakes, n, seed) => {
        const restrict = fakes.filter((f) => f.kind === 'restrict');
        const shuffled = fc.sample(fc.shuffledSubarray(restrict, { minLength: restrict.length }), {
          numRuns: 1,
          seed,
        })[0]!;
        const other = [...shuffled, ...fakes.filter((f) => f.kind === 'grant')];
        const parts = Array.from({ length: n }, (_, i) => ({ i }) as unknown as BashPart);
        const line = { kind: 'bash', mode: 'default', parts } as unknown as BashLine;
        expect(walk(toSteps(other), line).behavior).toBe(walk(toSteps(fakes), line).behavior);
      }),
      { numRuns: 1000 },
    );
  });

  it('a step does not apply in the modes it excludes, nor outside those it is limited to', () => {
    const steps: Step[] = [
      {
        name: 'r',
        doc: '',
        kind: 'restrict',
        atMost: 'ask',
        notIn: ['plan', 'acceptEdits'],
        tool: () => verdict('ask', 'r'),
      },
      {
        name: 'm',
        doc: '',
        kind: 'grant',
        atMost: 'allow',
        onlyIn: ['acceptEdits'],
        tool: () => verdict('allow', 'm'),
      },
      { name: 'd', doc: '', kind: 'grant', atMost: 'allow', tool: () => verdict('allow', 'd') },
    ];
    const call = (mode: string) => ({ kind: 'tool', mode }) as unknown as ToolCall;
    expect(walk(steps, call('default')).reason).toBe('r');
    expect(walk(steps, call('plan')).reason).toBe('d');
    expect(walk(steps, call('acceptEdits')).reason).toBe('m');
  });
});
