import path from 'node:path';
import type { LintFinding } from '../policy/lint.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { formatOf, shownPath } from './test.js';

const HELP = `usage: toolgate lint [POLICY | DIR]... [--cwd D] [--format text|json|sarif|junit]

Finds problems in policy files without running anything (conditions are compiled, never run):
  error    the policy does not load; a condition that does not compile; a misspelled tool
           name; an allow rule that grants arbitrary code execution (Bash, Bash(*),
           Bash(python *), Bash(npx *), Bash(npm run *), Bash(make*), ...)
  warning  an unknown tool name; an allow rule no call can reach (a deny or ask rule matches
           everything it allows); duplicate rules; path rules Claude Code ignores
           (Write(...), Glob(...), ...); a path anchor whose directory does not exist;
           package installs
  info     rules that run the project's own scripts; a ./x or ~/x deny rule for a directory
           that does not exist here
The files are linted as one merged policy (first highest, "extends" followed); rules of
built-in policies they extend are checked against, not reported. A directory (default: the
current one) stands for every policy file under it, each linted on its own: any file in a
.toolgate/ directory, YAML or JSON files with "version: 1" and only toolgate's keys, and
Claude Code's .claude/settings*.json with "permissions" (node_modules and .git are skipped).

  --cwd D     the workspace that ./x path rules are relative to (default: the current directory)
  --format F  text (default); json; sarif (SARIF 2.1.0, for code scanning); junit (JUnit XML:
              a testcase per file, failed by its error-level findings)
  --json      the same as --format json

Exit status: 0 no error-level finding (warnings are printed); 1 an error-level finding;
2 usage errors.
`;

export async function lintCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    cwd: { type: 'string' },
    json: { type: 'boolean' },
    format: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const format = formatOf(values.format, values.json, ['text', 'json', 'sarif', 'junit']);
  const { policyRuns } = await import('./policy-dirs.js');
  const runs = policyRuns(positionals, io.cwd, { claudeSettings: true });
  const { lintPolicyFiles } = await import('../policy/lint.js');
  const options = {
    workspace: path.resolve(io.cwd, values.cwd ?? '.'),
    ...(io.env.HOME !== undefined && io.env.HOME !== '' && { home: io.env.HOME }),
  };
  const shownFile = (f: string) => shownPath(f, io.cwd);
  const shown = (f: LintFinding): LintFinding => ({ ...f, file: shownFile(f.file) });
  const perRun = runs.map((run) => ({
    files: run.files,
    findings: lintPolicyFiles(run.files, options).map(shown),
  }));
  const findings = perRun.flatMap((r) => r.findings);
  const files = runs.flatMap((r) => r.files);
  const errors = findings.filter((f) => f.severity === 'error').length;
  const ok = errors === 0;
  if (format === 'json') {
    io.stdout.write(`${JSON.stringify({ ok, findings })}\n`);
    return ok ? 0 : 1;
  }
  if (format === 'sarif') {
    const [{ sarifLog }, { ENGINE_VERSION }] = await Promise.all([
      import('./sarif.js'),
      import('../version.js'),
    ]);
    const kinds = [...new Set(findings.map((f) => f.kind))].sort();
    const log = sarifLog(
      ENGINE_VERSION,
      kinds.map((k) => ({ id: k, description: `toolgate lint: ${k.replace(/-/g, ' ')}` })),
      findings.map((f) => ({
        ruleId: f.kind,
        level: f.severity === 'info' ? 'note' : f.severity,
        message: f.rule === undefined ? f.message : `${f.rule}: ${f.message}`,
        file: f.file,
        ...(f.line !== undefined && { line: f.line }),
        ...(f.column !== undefined && { column: f.column }),
      })),
    );
    io.stdout.write(`${JSON.stringify(log, null, 2)}\n`);
    return ok ? 0 : 1;
  }
  if (format === 'junit') {
    const { junitXml } = await import('./junit.js');
    const suites = perRun.map((r) => {
      const name = r.files.map(shownFile).join(', ');
      const bad = r.findings.filter((f) => f.severity === 'error');
      const rest = r.findings.filter((f) => f.severity !== 'error');
      return {
        name,
        cases: [
          {
            name: `lint ${name}`,
            file: shownFile(r.files[0] ?? '.'),
            ...(bad.length > 0 && {
              failure: {
                message: `${bad.length} error${bad.length === 1 ? '' : 's'}`,
                details: bad.map(findingText).join('\n'),
              },
            }),
            ...(rest.length > 0 && { output: rest.map(findingText).join('\n') }),
          },
        ],
      };
    });
    io.stdout.write(junitXml('toolgate lint', suites));
    return ok ? 0 : 1;
  }
  const out = findings.map(findingText);
  const count = (s: LintFinding['severity']) => findings.filter((f) => f.severity === s).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  out.push(
    `${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('info'), 'note')} in ${files.map(shownFile).join(', ')}`,
  );
  io.stdout.write(`${out.join('\n')}\n`);
  return ok ? 0 : 1;
}

function findingText(f: LintFinding): string {
  const where = `${f.file}${f.line === undefined ? '' : `:${f.line}${f.column === undefined ? '' : `:${f.column}`}`}`;
  return `${where}: ${f.severity} [${f.kind}]${f.rule === undefined ? '' : ` ${f.rule}`}\n  ${f.message}`;
}
