import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CompiledPolicy } from '../policy/compile.js';
import type { RuleRef } from '../policy/decision.js';
import { formatProblem, PolicyError } from '../policy/load.js';
import type { TestReport } from '../policy/test.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { policyPath } from './policy-args.js';
import { needsReexec, reexecWithIsolates } from './reexec.js';

const HELP = `usage: toolgate test POLICY... [--min-coverage N] [--json]

Runs the tests: of the given policy files against the whole merged policy (the files as one
policy, first highest, "extends" followed), not rule by rule. Each failure names the test's
file:line and the decision's reason. Coverage counts the rules of the given files that decided
at least one test, and lists the ones no test exercised. Tests of an extended policy describe
that policy and are not run here (test it on its own).

Tests run with a fresh empty directory as their working directory, unless a test gives "cwd".

  --min-coverage N   fail when fewer than N percent (0-100) of the rules are exercised
  --json             print the report as JSON

Exit status: 0 all tests pass (and coverage is enough); 1 a test failed, coverage is below
--min-coverage, or there is no test to run; 2 usage errors or a policy that does not load.
`;

export async function testCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    'min-coverage': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('missing POLICY (one or more policy files)');
  const minCoverage = percentOf(values['min-coverage']);
  const files = positionals.map((f) => policyPath(f, io.cwd));

  let policy: CompiledPolicy;
  try {
    const { loadPolicyFiles } = await import('../policy/layers.js');
    policy = loadPolicyFiles(files.map((file) => ({ file, layer: 'cli' as const })));
  } catch (err) {
    if (err instanceof PolicyError) {
      io.stderr.write(
        `toolgate test: the policy does not load:\n${err.problems.map((p) => `  ${formatProblem(p)}`).join('\n')}\n`,
      );
      return 2;
    }
    throw err;
  }
  if (policy.hasConditions) {
    // Conditions run in isolated-vm, which needs node restarted with --no-node-snapshot; without
    // it every condition fails to run, so each allow rule with a `when:` silently never matched.
    if (needsReexec(true, io)) await reexecWithIsolates(io);
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
  const exercised = own.length - new Set(uncovered.map((r) => ruleKey(r.ref))).size;
  const percent = own.length === 0 ? 100 : (100 * exercised) / own.length;
  const shown = (source: string) => shownPath(source, io.cwd);
  const failures = report.failures.map((f) => ({
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
  }));
  const lowCoverage = minCoverage !== undefined && percent < minCoverage;
  const ok = report.total > 0 && failures.length === 0 && !lowCoverage;

  if (values.json) {
    io.stdout.write(
      `${JSON.stringify({
        ok,
        files: files.map(shown),
        total: report.total,
        passed: report.passed,
        failed: failures.length,
        failures,
        coverage: {
          percent: round(percent),
          rules: own.length,
          covered: exercised,
          ...(minCoverage !== undefined && { min: minCoverage }),
          uncovered: uncovered.map((r) => ({ ...r.ref, source: shown(r.ref.source) })),
        },
      })}\n`,
    );
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
  if (report.total === 0)
    out.push(
      `no tests: ${files.map(shown).join(', ')} ha${files.length === 1 ? 's' : 've'} no "tests:" to run`,
    );
  else
    out.push(
      `${report.passed} passed, ${failures.length} failed (${report.total} test${report.total === 1 ? '' : 's'} in ${files.map(shown).join(', ')})`,
    );
  out.push(
    `rule coverage: ${exercised} of ${own.length} rule(s) decided at least one test (${round(percent)}%)${minCoverage === undefined ? '' : `, minimum ${minCoverage}%${lowCoverage ? ': TOO LOW' : ''}`}`,
  );
  if (uncovered.length > 0) {
    out.push('rules no test exercised:');
    for (const r of uncovered)
      out.push(
        `  ${shown(r.ref.source)}${r.ref.line === undefined ? '' : `:${r.ref.line}`}  ${r.kind} ${r.ref.text}`,
      );
  }
  io.stdout.write(`${out.join('\n')}\n`);
  return ok ? 0 : 1;
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
