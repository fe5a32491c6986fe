import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { optionSpellings } from '../../src/bash/option-spellings.js';
import type { CompiledPolicy, CompiledRule } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import { policyFromText } from '../../src/policy/policy.js';
import { bashRuleHit, bashRuleMayHit, type MatchContext } from '../../src/policy/rule-match.js';

/**
 * The Bash rule index (src/policy/bash-index.ts) hands a command only the rules that could
 * match it. It must give the answers a linear scan of every rule gives: the same first rule,
 * for a command's text (by pattern, by the options a deny or ask rule names, or for every
 * command), for a command whose name is only known at run time, and for a command whose words
 * after a prefix are only known at run time. Generated rules and commands over one small
 * vocabulary, so that words, stars, options and their spellings collide often.
 */
const WORDS = [
  'git',
  'push',
  'pull',
  'rm',
  'origin',
  'main',
  'x',
  '-rf',
  '-fr',
  '-f',
  '-r',
  '--force',
  '--forc',
  '+main',
];
const PATTERN_WORDS = [...WORDS, '*', 'gi*', '*sh', 'p*h', 'rm*', '', '--'];
const KINDS = ['deny', 'ask', 'allow'] as const;
type Kind = (typeof KINDS)[number];

const pattern = fc
  .tuple(
    fc.array(fc.constantFrom(...PATTERN_WORDS), { minLength: 1, maxLength: 4 }),
    fc.constantFrom(' ', ' ', ' ', '  ', '\t'),
    fc.constantFrom('', ' *', ' *', ':*', '*'),
    fc.constantFrom('', '', ' '),
  )
  .map(([words, sep, tail, pad]) => `${pad}${words.join(sep)}${tail}`)
  .filter((p) => p.trim() !== '' && p.trim() !== '*');
const rule = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.tuple(
      fc.constantFrom(...KINDS),
      pattern.map((p) => `Bash(${p})`),
    ),
  },
  // Rules for every command: bare Bash, and (deny and ask only) patterned tool names.
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...KINDS), fc.constant('Bash')) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('deny', 'ask'), fc.constantFrom('B*', 'Ba*', '*', 'R*')) },
  // A parameter rule: no command text meets it.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('deny', 'ask'), fc.constant('Bash(run_in_background:true)')),
  },
);
const command = fc.array(fc.constantFrom(...WORDS, 'gish', 'pish'), { minLength: 1, maxLength: 5 });

async function policyOf(rules: readonly (readonly [string, string])[]): Promise<CompiledPolicy> {
  const permissions: Record<Kind, string[]> = { deny: [], ask: [], allow: [] };
  for (const [kind, text] of rules) permissions[kind as Kind].push(text);
  return policyFromText(JSON.stringify({ version: 1, permissions }), { root: '/w' });
}

/** The rules a linear scan looks at: every rule of the kind whose tool name is Bash's. */
const linear = (policy: CompiledPolicy, kind: Kind) =>
  policy.rules.filter((r) => r.kind === kind && r.rule.specifier.type !== 'path' && r.matchTool('Bash'));

/**
 * A rule the text meets as written wins over one met only through option spellings (the
 * reason then names the rule as literal as the line: src/policy/rule-match.ts), each pass in
 * policy order.
 */
function linearHit(policy: CompiledPolicy, kind: Kind, words: readonly string[]): CompiledRule | undefined {
  const text = words.join(' ');
  const spelled = { words, spellings: optionSpellings(words, words) };
  const rules = linear(policy, kind);
  return (
    rules.find(
      (r) => r.rule.specifier.type === 'any' || (r.rule.specifier.type === 'bash' && r.bash!(text)),
    ) ?? rules.find((r) => r.rule.specifier.type === 'bash' && (r.bashOptions?.(spelled) ?? false))
  );
}

const ctxOf = (policy: CompiledPolicy) => ({ policy }) as unknown as MatchContext;

describe('bash rule index', () => {
  it('gives the first rule a linear scan gives, for every command and prefix (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(rule, { minLength: 1, maxLength: 40 }),
        fc.array(command, { minLength: 1, maxLength: 8 }),
        async (rules, commands) => {
          const policy = await policyOf(rules);
          const ctx = ctxOf(policy);
          for (const words of commands) {
            const text = words.join(' ');
            for (const kind of KINDS) {
              const got = bashRuleHit(kind, text, ctx, { form: { words, all: words } })?.rule;
              const want =
                kind === 'allow'
                  ? linear(policy, kind).find(
                      (r) =>
                        r.rule.specifier.type === 'any' ||
                        (r.rule.specifier.type === 'bash' && r.bash!(text)),
                    )
                  : linearHit(policy, kind, words);
              expect(got?.rule.text, `${kind} ${text}`).toBe(want?.rule.text);
              expect(got).toBe(want);
              // A command whose name is only known at run time: only a rule for every command.
              expect(bashRuleHit(kind, undefined, ctx)?.rule).toBe(
                linear(policy, kind).find((r) => r.rule.specifier.type === 'any'),
              );
              if (kind === 'allow') continue;
              for (let n = 1; n <= words.length; n++) {
                const prefix = words.slice(0, n).join(' ');
                const may = bashRuleMayHit(kind, prefix, text, ctx)?.rule;
                expect(may, `${kind} may ${prefix}`).toBe(
                  linear(policy, kind).find((r) => r.bashPrefix?.(prefix) ?? false),
                );
              }
            }
          }
        },
      ),
      { numRuns: 400 },
    );
    // 400 generated policies: ~14 s alone on a quiet machine, several times that under load.
  }, 120_000);

  // Found by the property (seed -984928800): the linear scan in policy order named the rule met
  // by option spelling (-fr for -rf) before the one the text meets as written.
  it('names the rule the text meets as written before one met by option spellings', async () => {
    const policy = await policyOf([
      ['ask', 'Bash(* *)'],
      ['ask', 'Bash( origin -rf *)'],
    ]);
    const words = ['origin', '-fr'];
    const got = bashRuleHit('ask', words.join(' '), ctxOf(policy), { form: { words, all: words } });
    expect(got?.rule.rule.text).toBe('Bash(* *)');
    expect(linearHit(policy, 'ask', words)?.rule.text).toBe('Bash(* *)');
    const spelledOnly = await policyOf([['ask', 'Bash( origin -rf *)']]);
    expect(
      bashRuleHit('ask', 'origin -fr', ctxOf(spelledOnly), { form: { words, all: words } })?.rule.rule.text,
    ).toBe('Bash( origin -rf *)');
  });

  it('hands out the same list for the same leading words: no copy, no sort per call', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `Bash(git push r${i % 4} *)`);
    const policy = await policyOf([...lines.map((t) => ['ask', t] as const), ['ask', 'Bash(*sh*)']]);
    expect(policy.bashRules('ask', 'git push r1 main')).toBe(policy.bashRules('ask', 'git push r1 x'));
    expect(policy.bashRules('ask', 'git push r1 main').length).toBe(11);
    expect(policy.bashRulesStartingWith('ask', 'git push')).toBe(
      policy.bashRulesStartingWith('ask', 'git push'),
    );
  });
});

/**
 * Holes of the index this one replaced, through decide(): it filed a rule under its second
 * word once a command name had 16 rules, and `Bash(rm -rf *)` under `-rf`, so the option
 * matcher never saw `rm -fr x` or `rm x -rf`; and a command's words only known at run time past
 * the rule's leading words (`git push origin $X`) could be the option it names.
 */
describe('deny rules naming options, in a large policy', () => {
  const decideIn = (policy: CompiledPolicy, command: string) =>
    decide({ tool: 'Bash', input: { command }, cwd: '/w', mode: 'default' }, policy).behavior;

  it('meet the option however it is written, whatever the other rules of the name', async () => {
    const many = Array.from({ length: 20 }, (_, i) => ['deny', `Bash(rm sub${i} *)`] as const);
    const policy = await policyOf([['deny', 'Bash(rm -rf *)'], ['allow', 'Bash(rm *)'], ...many]);
    for (const line of ['rm -rf x', 'rm -fr x', 'rm x -rf', 'rm -r -f x', 'rm --recursive --force x'])
      expect(decideIn(policy, line), line).toBe('deny');
    expect(decideIn(policy, 'rm x')).toBe('allow');
  });

  it('deny when a word only known at run time may be the option', async () => {
    const policy = await policyOf([
      ['deny', 'Bash(git push --force *)'],
      ['allow', 'Bash(git push *)'],
    ]);
    for (const line of ['git push origin $X', 'git push origin main "$FLAGS"'])
      expect(decideIn(policy, line), line).toBe('deny');
    expect(decideIn(policy, 'git push origin main')).toBe('allow');
  });
});
