import path from 'node:path';
import type { LintFinding } from '../policy/lint.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { policyPath } from './policy-args.js';
import { shownPath } from './test.js';

const HELP = `usage: toolgate lint POLICY... [--cwd D] [--json]

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
built-in policies they extend are checked against, not reported.

  --cwd D   the workspace that ./x path rules are relative to (default: the current directory)
  --json    print the findings as JSON

Exit status: 0 no error-level finding (warnings are printed); 1 an error-level finding;
2 usage errors.
`;

export async function lintCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    cwd: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('missing POLICY (one or more policy files)');
  const files = positionals.map((f) => policyPath(f, io.cwd));
  const { lintPolicyFiles } = await import('../policy/lint.js');
  const findings = lintPolicyFiles(files, {
    workspace: path.resolve(io.cwd, values.cwd ?? '.'),
    ...(io.env.HOME !== undefined && io.env.HOME !== '' && { home: io.env.HOME }),
  });
  const errors = findings.filter((f) => f.severity === 'error').length;
  const shown = (f: LintFinding): LintFinding => ({ ...f, file: shownPath(f.file, io.cwd) });
  if (values.json) {
    io.stdout.write(`${JSON.stringify({ ok: errors === 0, findings: findings.map(shown) })}\n`);
    return errors === 0 ? 0 : 1;
  }
  const out = findings.map(shown).map((f) => {
    const where = `${f.file}${f.line === undefined ? '' : `:${f.line}${f.column === undefined ? '' : `:${f.column}`}`}`;
    return `${where}: ${f.severity} [${f.kind}]${f.rule === undefined ? '' : ` ${f.rule}`}\n  ${f.message}`;
  });
  const count = (s: LintFinding['severity']) => findings.filter((f) => f.severity === s).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  out.push(
    `${plural(count('error'), 'error')}, ${plural(count('warning'), 'warning')}, ${plural(count('info'), 'note')} in ${files.map((f) => shownPath(f, io.cwd)).join(', ')}`,
  );
  io.stdout.write(`${out.join('\n')}\n`);
  return errors === 0 ? 0 : 1;
}
