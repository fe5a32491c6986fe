import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CompiledRule } from '../../src/policy/compile.js';
import { policyFromText } from '../../src/policy/policy.js';

/**
 * bashRules narrows a command name's rules by their literal second word once a name has 16 or
 * more: it must never leave out a rule that can match, nor hand a rule twice, and (since a call must cost the same at 10 or 10,000 rules) hands out the same list each time
 * rather than a copy sorted anew.
 */
const SECONDS = ['push', 'pull', 'status', 'log', 'commit', 'remote', 'x'];
const lines: string[] = [];
for (let i = 0; i < 60; i++) {
  const kind = ['deny', 'ask', 'allow'][i % 3];
  const second = SECONDS[i % SECONDS.length];
  // literal second words, a wildcard second word, and rules for every command
  const pattern = i % 11 === 0 ? `git *${second}*` : i % 13 === 0 ? '*' : `git ${second} r${i % 5} *`;
  lines.push(`  - ${kind}: "Bash(${pattern})"`);
}
const policy = await policyFromText(`version: 1\nrules:\n${lines.join('\n')}\n`, { root: '/w' });
const KINDS = ['deny', 'ask', 'allow'] as const;
const bashOf = (kind: string) => policy.rules.filter((r) => r.kind === kind && r.rule.tool === 'Bash');

describe('bash rule index', () => {
  it('is in use: a name with many rules', () => {
    expect(bashOf('ask').filter((r) => r.rule.text.startsWith('Bash(git')).length).toBeGreaterThanOrEqual(16);
  });

  it('keeps every rule that matches a command, each once (property)', () => {
    const word = fc.constantFrom(...SECONDS, 'r1', 'r2', 'main', '--force', '');
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), fc.array(word, { minLength: 0, maxLength: 4 }), (kind, rest) => {
        const text = ['git', ...rest].join(' ');
        const got = policy.bashRules(kind, 'git', text);
        for (const r of bashOf(kind)) if (r.bash?.(text)) expect(got).toContain(r);
        expectEachOnce(got);
        // with no text: every rule of the name
        const every = policy.bashRules(kind, 'git');
        for (const r of bashOf(kind)) if (r.rule.text.startsWith('Bash(git')) expect(every).toContain(r);
        expectEachOnce(every);
      }),
      { numRuns: 500 },
    );
  });

  it('hands out the same list for the same name and second word: no copy, no sort per call', () => {
    for (const kind of KINDS) {
      expect(policy.bashRules(kind, 'git', 'git push r1 main')).toBe(
        policy.bashRules(kind, 'git', 'git push r2'),
      );
      expect(policy.bashRules(kind, 'git')).toBe(policy.bashRules(kind, 'git'));
    }
  });
});

function expectEachOnce(list: readonly CompiledRule[]): void {
  const order = list.map((r) => policy.rules.indexOf(r));
  expect(order.every((i) => i >= 0)).toBe(true);
  expect(new Set(order).size).toBe(order.length);
}
