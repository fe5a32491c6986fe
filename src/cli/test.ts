import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CompiledPolicy, PolicyTest } from '../policy/compile.js';
import type { RuleRef } from '../policy/decision.js';
import { formatProblem, PolicyError } from '../policy/load.js';
import type { TestFailure, TestReport } from '../policy/test.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { needsReexec, reexecWithIsolates } from './reexec.js';

const HELP = `usage: toolgate test [POLICY | DIR]... [--min-coverage N] [--format text|json|sarif|junit]

Runs the tests: of the given policy files against the whole merged policy (the files as one
policy, first highest, "extends" followed), not rule by rule. A directory (default: the current
one) stands for every policy file under it, each tested on its own as if named alone: any file
in a .toolgate/ directory, and YAML or JSON files with "version: 1" and only toolgate's keys
(node_modules and .git are skipped). Each failure names the test's file:line and the
decision's reason. Coverage counts the rules of the files tested that decided at least one
test, and lists the ones no test exercised. Tests of an extended policy describe that policy
and are not run here (test it on its own).

Tests run with a fresh empty directory as their working directory, unless a test gives "cwd".

  --min-coverage N   fail when fewer than N percent (0-100) of the rules are exercised
  --format F         text (default); json; sarif (SARIF 2.1.0: failures as errors, rules no
                     test exercised as notes); junit (JUnit XML: a testcase per test)
  --json             the same as --format json

Exit status: 0 all tests pass (and coverage is enough); 1 a test failed, coverage is below
--min-coverage, or there is no test to run; 2 usage errors or a policy that does not load.
`;

/** What one policy (a group of files, first highest) gave: its tests and its rules' coverage. */
interface RunResult {
  readonly files: readonly string[];
  readonly tests: readonly PolicyTest[];
  readonly report: TestReport;
  /** The rules of these files, as `text (source:line)`. */
  readonly own: readonly string[];
  readonly uncovered: readonly { kind: string; ref: RuleRef }[];
}

export async function testCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    'min-coverage': { type: 'string' },
    json: { type: 'boolean' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = formatOf(values.format, values.json, ['text', 'json', 'sarif', 'junit']);
  const minCoverage = percentOf(values['min-coverage']);
  const { policyRuns } = await import('./policy-dirs.js');
  const runs = policyRuns(positionals, io.cwd);

  const policies: { files: readonly string[]; policy: CompiledPolicy }[] = [];
  const broken: string[] = [];
  const { loadPolicyFiles } = await import('../policy/layers.js');
  for (const run of runs) {
    try {
      policies.push({
        files: run.files,
        policy: loadPolicyFiles(run.files.map((file) => ({ file, layer: 'cli' as const }))),
      });
    } catch (err) {
      if (!(err instanceof PolicyError)) throw err;
      broken.push(...err.problems.map((p) => `  ${formatProblem(p)}`));
    }
  }
  if (broken.length > 0) {
    io.stderr.write(`toolgate test: the policy does not load:\n${broken.join('\n')}\n`);
    return 2;
  }
  // Conditions run in isolated-vm, which needs node restarted with --no-node-snapshot; without
  // it every condition fails to run, so each allow rule with a `when:` silently never matched.
  if (policies.some((p) => p.policy.hasConditions) && needsReexec(true, io)) await reexecWithIsolates(io);
  const results: RunResult[] = [];
  for (const { files, policy } of policies) results.push(await runOne(files, policy));

  const shown = (source: string) => shownPath(source, io.cwd);
  const files = results.flatMap((r) => r.files);
  const total = sum(results.map((r) => r.report.total));
  const passed = sum(results.map((r) => r.report.passed));
  const rules = sum(results.map((r) => r.own.length));
  const uncovered = results.flatMap((r) => r.uncovered);
  const notExercised = sum(results.map((r) => new Set(r.uncovered.map((u) => ruleKey(u.ref))).size));
  const exercised = rules - notExercised;
  const percent = rules === 0 ? 100 : (100 * exercised) / rules;
  const failures = results.flatMap((r) => r.report.failures).map((f) => failureOf(f, shown));
  const lowCoverage = minCoverage !== undefined && percent < minCoverage;
  const ok = total > 0 && failures.length === 0 && !lowCoverage;
  const coverageLine = `rule coverage: ${exercised} of ${rules} rule(s) decided at least one test (${round(percent)}%)${minCoverage === undefined ? '' : `, minimum ${minCoverage}%${lowCoverage ? ': TOO LOW' : ''}`}`;

  if (format === 'json') {
    io.stdout.write(
      `${JSON.stringify({
        ok,
        files: files.map(shown),
        total,
        passed,
        failed: failures.length,
        failures,
        coverage: {
          percent: round(percent),
          rules,
          covered: exercised,
          ...(minCoverage !== undefined && { min: minCoverage }),
          uncovered: uncovered.map((r) => ({ ...r.ref, source: shown(r.ref.source) })),
        },
      })}\n`,
    );
    return ok ? 0 : 1;
  }
  if (format === 'sarif') {
    const [{ sarifLog }, { ENGINE_VERSION }] = await Promise.all([
      import('./sarif.js'),
      import('../version.js'),
    ]);
    const first = shown(files[0] ?? '.');
    const findings = [
      ...failures.map((f) => ({
        ruleId: 'test-failed',
        level: 'error' as const,
        message: `${f.name === undefined ? '' : `${f.name}: `}${f.tool} ${JSON.stringify(f.input)}: expected ${f.expect}, got ${f.got} (decided by ${f.decidedBy}${f.rule ? `: ${ruleKey(f.rule, shown)}` : ''}): ${f.reason}`,
        file: f.file,
        ...(f.line !== undefined && { line: f.line }),
      })),
      ...uncovered.map((r) => ({
        ruleId: 'rule-not-exercised',
        level: lowCoverage ? ('warning' as const) : ('note' as const),
        message: `no test exercises ${r.kind} ${r.ref.text}`,
        file: shown(r.ref.source),
        ...(r.ref.line !== undefined && { line: r.ref.line }),
      })),
      ...(lowCoverage
        ? [{ ruleId: 'coverage-too-low', level: 'error' as const, message: coverageLine, file: first }]
        : []),
      ...(total === 0
        ? [{ ruleId: 'no-tests', level: 'error' as const, message: 'no "tests:" to run', file: first }]
        : []),
    ];
    io.stdout.write(`${JSON.stringify(sarifLog(ENGINE_VERSION, TEST_RULES, findings), null, 2)}\n`);
    return ok ? 0 : 1;
  }
  if (format === 'junit') {
    const { junitXml } = await import('./junit.js');
    const suites = results.map((r) => {
      const failed = new Map(r.report.failures.map((f) => [f.test, failureOf(f, shown)]));
      return {
        name: r.files.map(shown).join(', '),
        cases: r.tests.map((t) => {
          const f = failed.get(t);
          return {
            name: t.name ?? `${t.tool} ${JSON.stringify(t.input ?? {})} is ${t.expect}`,
            file: shown(t.source),
            ...(t.line !== undefined && { line: t.line }),
            ...(f !== undefined && {
              failure: {
                message: `expected ${f.expect}, got ${f.got}`,
                details: `${f.tool} ${JSON.stringify(f.input)}${f.mode === undefined ? '' : ` (mode ${f.mode})`}\ndecided by ${f.decidedBy}${f.rule ? `: ${ruleKey(f.rule, shown)}` : ''}\nreason: ${f.reason}`,
              },
            }),
          };
        }),
      };
    });
    const checks = [
      ...(minCoverage !== undefined
        ? [
            {
              name: `rule coverage is at least ${minCoverage}%`,
              file: shown(files[0] ?? '.'),
              output: coverageLine,
              ...(lowCoverage && {
                failure: { message: coverageLine, details: uncoveredText(uncovered, shown) },
              }),
            },
          ]
        : []),
      ...(total === 0
        ? [
            {
              name: 'there are tests to run',
              file: shown(files[0] ?? '.'),
              failure: { message: 'no "tests:" to run', details: files.map(shown).join('\n') },
            },
          ]
        : []),
    ];
    const all = checks.length > 0 ? [...suites, { name: 'toolgate test', cases: checks }] : suites;
    io.stdout.write(junitXml('toolgate test', all));
    return ok ? 0 : 1;
  }

  const out: string[] = [];
  for (const f of failures) {
    const where = `${f.file}${f.line === undefined ? '' : `:${f.line}`}`;
    out.push(`FAIL ${where}${f.name === undefined ? '' : `  ${f.name}`}`);
    out.push(`     ${f.tool} ${JSON.stringify(f.input)}${f.mode === undefined ? '' : ` (mode ${f.mode})`}`);
    out.push(
      `     expected ${f.expect}, got ${f.got} (decided by ${f.decidedBy}${f.rule ? `: ${ruleKey(f.rule, shown)}` : ''})`,
    );
    out.push(`     reason: ${f.reason}`);
    if (f.expect === f.got) out.push(`     ${f.problem}`);
  }
  if (total === 0)
    out.push(
      `no tests: ${files.map(shown).join(', ')} ha${files.length === 1 ? 's' : 've'} no "tests:" to run`,
    );
  else
    out.push(
      `${passed} passed, ${failures.length} failed (${total} test${total === 1 ? '' : 's'} in ${files.map(shown).join(', ')})`,
    );
  out.push(coverageLine);
  if (uncovered.length > 0) out.push('rules no test exercised:', uncoveredText(uncovered, shown));
  io.stdout.write(`${out.join('\n')}\n`);
  return ok ? 0 : 1;
}

const TEST_RULES = [
  { id: 'test-failed', description: "A policy test's expected decision differs from the policy's" },
  { id: 'rule-not-exercised', description: 'A rule that no test of the policy decided' },
  { id: 'coverage-too-low', description: 'Fewer rules exercised by tests than --min-coverage asks' },
  { id: 'no-tests', description: 'The policy files have no tests to run' },
];

/** One policy's tests, in a fresh empty directory, and which of its own rules they exercised. */
async function runOne(files: readonly string[], policy: CompiledPolicy): Promise<RunResult> {
  if (policy.hasConditions) {
    const { prepareConditions } = await import('../policy/conditions.js');
    policy.conditions = await prepareConditions(policy);
  }
  const { runPolicyTests } = await import('../policy/test.js');
  const workspace = mkdtempSync(path.join(tmpdir(), 'toolgate-test-'));
  let report: TestReport;
  try {
    report = runPolicyTests(policy, { cwd: workspace });
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
  const named = new Set(files);
  const own = [...new Set(policy.rules.filter((r) => named.has(r.ref.source)).map((r) => ruleKey(r.ref)))];
  const covered = new Set(report.covered);
  const order = (source: string) => files.indexOf(source);
  const uncovered = policy.rules
    .filter((r) => named.has(r.ref.source) && !covered.has(ruleKey(r.ref)))
    .sort((a, b) => order(a.ref.source) - order(b.ref.source) || (a.ref.line ?? 0) - (b.ref.line ?? 0));
  return { files, tests: policy.tests, report, own, uncovered };
}

function failureOf(f: TestFailure, shown: (source: string) => string) {
  return {
    file: shown(f.test.source),
    ...(f.test.line !== undefined && { line: f.test.line }),
    ...(f.test.name !== undefined && { name: f.test.name }),
    tool: f.test.tool,
    input: f.test.input ?? {},
    ...(f.test.mode !== undefined && { mode: f.test.mode }),
    expect: f.test.expect,
    got: f.decision.behavior,
    decidedBy: f.decision.decidedBy,
    ...(f.decision.rule !== undefined && { rule: f.decision.rule }),
    reason: f.decision.reason,
    problem: f.problem,
  };
}

function uncoveredText(uncovered: RunResult['uncovered'], shown: (source: string) => string): string {
  return uncovered
    .map(
      (r) =>
        `  ${shown(r.ref.source)}${r.ref.line === undefined ? '' : `:${r.ref.line}`}  ${r.kind} ${r.ref.text}`,
    )
    .join('\n');
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** --format F (or --json), one of `allowed`. */
export function formatOf<const F extends string>(
  format: string | undefined,
  json: boolean | undefined,
  allowed: readonly F[],
): F {
  if (json && format !== undefined && format !== 'json')
    throw new UsageError(`--json and --format ${format} ask for two formats`, 'give one');
  const f = format ?? (json ? 'json' : 'text');
  if (!(allowed as readonly string[]).includes(f))
    throw new UsageError(`--format ${f}: no such format`, `use one of ${allowed.join(', ')}`);
  return f as F;
}

function percentOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text.replace(/%$/, ''));
  if (text.trim() === '' || !Number.isFinite(n) || n < 0 || n > 100)
    throw new UsageError(`--min-coverage takes a percentage from 0 to 100 (got "${text}")`);
  return n;
}

/** The key runPolicyTests uses for a rule: `text (source:line)`. */
function ruleKey(ref: RuleRef, shown: (source: string) => string = (s) => s): string {
  return `${ref.text} (${shown(ref.source)}${ref.line === undefined ? '' : `:${ref.line}`})`;
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

/** A policy file as people want to read it: relative to the working directory when inside it. */
export function shownPath(source: string, cwd: string): string {
  if (!path.isAbsolute(source)) return source;
  const rel = path.relative(cwd, source);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : source;
}
