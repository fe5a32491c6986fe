import path from 'node:path';
import type { CompiledPolicy, PolicyTest } from './compile.js';
import { type DecideOptions, decide } from './decide.js';
import type { Decision } from './decision.js';
import { parseMode } from './mode.js';

/**
 * A policy's own tests, run against the whole merged policy (not rule by rule): each case is a
 * request and the behavior the security team expects. Coverage says which rules decided at
 * least one case; a rule no test exercises is a rule nobody has checked.
 */
export interface TestFailure {
  readonly test: PolicyTest;
  readonly decision: Decision;
  readonly problem: string;
}

export interface TestReport {
  readonly total: number;
  readonly passed: number;
  readonly failures: readonly TestFailure[];
  /** Rules (as `text (source:line)`) that decided at least one test. */
  readonly covered: readonly string[];
  /** Rules that no test exercised. */
  readonly uncovered: readonly string[];
  /** covered / all rules, 1 when the policy has no rules. */
  readonly coverage: number;
}

export function runPolicyTests(
  policy: CompiledPolicy,
  options: DecideOptions & { cwd?: string } = {},
): TestReport {
  const failures: TestFailure[] = [];
  const covered = new Set<string>();
  for (const test of policy.tests) {
    const cwd = path.resolve(options.cwd ?? process.cwd(), test.cwd ?? '.');
    const mode = test.mode === undefined ? undefined : parseMode(test.mode);
    const decision = decide(
      { tool: test.tool, input: test.input ?? {}, cwd, ...(mode ? { mode } : {}) },
      policy,
      options,
    );
    if (decision.rule) covered.add(ruleKey(decision.rule));
    let problem: string | undefined;
    if (decision.behavior !== test.expect)
      problem = `expected ${test.expect}, got ${decision.behavior}: ${decision.reason}`;
    else if (test.reason !== undefined && !safeRegExp(test.reason).test(decision.reason)) {
      problem = `the reason "${decision.reason}" does not match /${test.reason}/`;
    }
    if (problem) failures.push({ test, decision, problem });
  }
  const all = [...new Set(policy.rules.map((r) => ruleKey(r.ref)))];
  const uncovered = all.filter((k) => !covered.has(k));
  return {
    total: policy.tests.length,
    passed: policy.tests.length - failures.length,
    failures,
    covered: [...covered],
    uncovered,
    coverage: all.length === 0 ? 1 : (all.length - uncovered.length) / all.length,
  };
}

function ruleKey(ref: { text: string; source: string; line?: number }): string {
  return `${ref.text} (${ref.source}${ref.line === undefined ? '' : `:${ref.line}`})`;
}

function safeRegExp(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  }
}
