import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyProblem } from '../../src/audit/body-check.js';
import { RecordSchema } from '../../src/audit/record.js';
import { DECIDERS } from '../../src/policy/decision.js';
import { MODES } from '../../src/policy/mode.js';

/** Writing checks a body by hand; the schema is the definition. They must agree on everything. */
const BodySchema = RecordSchema.omit({ seq: true, ts: true, prev: true, hash: true });
const agree = (body: unknown) => {
  const byHand = bodyProblem(body) === undefined;
  const bySchema = BodySchema.safeParse(body).success;
  expect(
    byHand,
    JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v)),
  ).toBe(bySchema);
};

const odd = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.string(),
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.constant({}),
);
const body = fc.record(
  {
    v: fc.oneof(fc.constant(1), odd),
    id: fc.oneof(fc.uuid(), fc.constant('00000000-0000-0000-0000-000000000000'), fc.string()),
    sessionId: fc.oneof(fc.string(), odd),
    agentId: fc.string(),
    agent: fc.oneof(
      fc.record(
        { name: fc.oneof(fc.string(), odd), version: fc.oneof(fc.string(), odd), extra: odd },
        { requiredKeys: [] },
      ),
      odd,
    ),
    sent: fc.oneof(
      fc.record(
        {
          answer: fc.oneof(fc.constantFrom('allow', 'ask', 'deny', 'none', 'maybe'), odd),
          jailed: fc.oneof(fc.constant(true), odd),
          extra: odd,
        },
        { requiredKeys: [] },
      ),
      odd,
    ),
    request: fc.record(
      {
        tool: fc.oneof(fc.string(), odd),
        input: fc.oneof(fc.jsonValue(), odd),
        cwd: fc.string(),
        mode: fc.oneof(fc.constantFrom(...MODES), fc.constant('bypass'), odd),
      },
      { requiredKeys: ['tool', 'input', 'cwd'] },
    ),
    decision: fc.record(
      {
        behavior: fc.oneof(fc.constantFrom('allow', 'ask', 'deny'), odd),
        decidedBy: fc.oneof(fc.constantFrom(...DECIDERS), odd),
        rule: fc.record(
          {
            id: fc.string(),
            text: fc.oneof(fc.string(), odd),
            source: fc.string(),
            line: fc.oneof(fc.nat(), odd),
          },
          { requiredKeys: ['text', 'source'] },
        ),
        reason: fc.oneof(fc.string(), odd),
        mode: fc.oneof(fc.constantFrom(...MODES), odd),
        facts: fc.record({
          readOnly: fc.oneof(fc.boolean(), odd),
          concurrencySafe: fc.boolean(),
          destructive: fc.boolean(),
          reasons: fc.oneof(fc.array(fc.string(), { maxLength: 3 }), odd),
        }),
      },
      { requiredKeys: ['behavior', 'decidedBy', 'reason', 'mode', 'facts'] },
    ),
    policyDigest: fc.string(),
    engine: fc.string(),
    grammar: fc.oneof(fc.string(), odd),
    redacted: fc.oneof(fc.array(fc.string(), { maxLength: 2 }), odd),
    extra: odd,
  },
  { requiredKeys: ['v', 'id', 'request', 'decision', 'policyDigest', 'engine', 'grammar'] },
);

describe('the hand-written body check', () => {
  it('agrees with RecordSchema on arbitrary bodies, valid and broken', () => {
    fc.assert(fc.property(body, agree), { numRuns: 3000 });
  });

  it('accepts a real body and refuses each kind of break', () => {
    const good = {
      v: 1,
      id: '0b6f1c8e-8d44-4a2b-9f0e-3c1d2e4f5a6b',
      request: { tool: 'Bash', input: { command: 'ls' }, cwd: '/w' },
      decision: {
        behavior: 'allow',
        decidedBy: 'default',
        reason: 'read-only',
        mode: 'default',
        facts: { readOnly: true, concurrencySafe: true, destructive: false, reasons: [] },
      },
      policyDigest: 'd',
      engine: '0.1.0',
      grammar: '0.25.1',
    };
    expect(bodyProblem(good)).toBeUndefined();
    agree(good);
    for (const broken of [
      { ...good, v: 2 },
      { ...good, id: 'not-a-uuid' },
      { ...good, surprise: 1 },
      { ...good, request: { ...good.request, input: { n: Number.NaN } } },
      { ...good, decision: { ...good.decision, behavior: 'maybe' } },
      { ...good, decision: { ...good.decision, facts: { ...good.decision.facts, reasons: [1] } } },
      { ...good, redacted: [] },
    ]) {
      expect(bodyProblem(broken), JSON.stringify(broken)).toBeDefined();
      agree(broken);
    }
  });
});
