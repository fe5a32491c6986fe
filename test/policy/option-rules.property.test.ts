import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import { policyFromText } from '../../src/policy/policy.js';

/**
 * A deny rule that names an option (`Bash(git push --force *)`) holds however getopt lets the
 * option be written, under a broad allow from another rule: anywhere among the other options
 * and operands, clustered with other short flags, by its other name, abbreviated, with a value,
 * or as a `+` refspec. Without the option, the same lines are allowed (the rule does not grow
 * past what it names). Issue #16, policy slips.
 */

let policy: CompiledPolicy;
beforeAll(async () => {
  policy = await policyFromText(
    JSON.stringify({
      version: 1,
      permissions: { deny: ['Bash(git push --force *)'], allow: ['Bash(git *)'] },
    }),
  );
});

const decideLine = (command: string) =>
  decide({ tool: 'Bash', input: { command }, cwd: '/tmp', mode: 'default' }, policy).behavior;

const otherShort = fc.constantFrom('u', 'v', 'n', 'q');
const otherLong = fc.constantFrom(
  '--verbose',
  '--dry-run',
  '--quiet',
  '--set-upstream',
  '--follow-tags',
  '--atomic',
);
const operand = fc.constantFrom('origin', 'main', 'HEAD:main', 'feature', 'refs/heads/x:refs/heads/y');
/** Words that do not force: options and operands in any order. */
const others = fc.array(
  fc.oneof(
    otherLong,
    otherShort.map((c) => `-${c}`),
    operand,
  ),
  { maxLength: 6 },
);

/** The force option as a list of words, in one of its spellings. */
const force = fc.oneof(
  fc.constantFrom(['--force'], ['-f'], ['--forc'], ['--for'], ['--force=1']),
  fc
    .tuple(fc.array(otherShort, { maxLength: 3 }), fc.array(otherShort, { maxLength: 3 }))
    .map(([a, b]) => [`-${a.join('')}f${b.join('')}`]),
  operand.map((o) => [`+${o}`]),
);

describe('deny rules naming an option, under an allow (property)', () => {
  it('deny the option in any spelling and place', () => {
    fc.assert(
      fc.property(others, force, fc.nat(), (words, f, at) => {
        const i = at % (words.length + 1);
        const line = ['git', 'push', ...words.slice(0, i), ...f, ...words.slice(i)].join(' ');
        expect(decideLine(line), line).toBe('deny');
      }),
      { numRuns: 300 },
    );
  });

  it('allow the same lines without it', () => {
    fc.assert(
      fc.property(others, (words) => {
        const line = ['git', 'push', ...words].join(' ');
        expect(decideLine(line), line).toBe('allow');
      }),
      { numRuns: 200 },
    );
  });

  it('an option after `--` is an operand', () => {
    fc.assert(
      fc.property(others, (words) => {
        const line = ['git', 'push', ...words, '--', '--force'].join(' ');
        expect(decideLine(line), line).toBe('allow');
      }),
      { numRuns: 100 },
    );
  });
});
