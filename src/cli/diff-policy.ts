import { resolve } from 'node:path';
import type { DiffReport, DiffSource } from '../audit/diff-policy.js';
import { visible } from '../audit/subject.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { logFilesOf } from './log-files.js';
import { modeOf, PolicyLoadFailed, policyFor } from './policy-args.js';
import { flipGroupLines } from './replay.js';
import { preferSmallHeap } from './small-heap.js';

const HELP = `usage: toolgate diff-policy OLD NEW (--logs PATH... | --corpus FILE...) [--mode M] [--no-verify]
                            [--fail-on loosen|any] [--json]

Before a policy is rolled out: decides every request of the logs and corpora under the OLD and
the NEW policy, and lists every decision that would loosen (deny->ask, deny->allow, ask->allow)
or tighten, with counts by kind, tool and rule (old -> new) and sample requests. The recorded
decisions play no part: both policies answer the same questions. Reads only.

  OLD, NEW         policy files (or builtin:NAME); the machine's managed layer applies to both
  --logs PATH      decision logs, or directories of them (every *.jsonl below); repeatable
  --corpus FILE    requests as JSON Lines, {"tool", "input", "cwd"?, "mode"?}; repeatable
  --mode M         decide every request in mode M
  --no-verify      read logs that do not verify (otherwise such a log stops the run)
  --fail-on loosen exit 1 when any decision loosens; any: when any decision changes
  --json           the whole report as JSON

Exit status: 0 no failing change; 1 --fail-on was hit; 2 usage or policy errors, or a log or
corpus that cannot be read.
`;

export async function diffPolicyCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    logs: { type: 'string', multiple: true },
    corpus: { type: 'string', multiple: true },
    mode: { type: 'string' },
    'no-verify': { type: 'boolean' },
    'fail-on': { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 2) throw new UsageError('give OLD and NEW, the two policies to compare');
  const failOn = values['fail-on'];
  if (failOn !== undefined && failOn !== 'loosen' && failOn !== 'any')
    throw new UsageError(`--fail-on takes "loosen" or "any" (got "${failOn}")`);
  const mode = modeOf(values.mode);
  const sources: DiffSource[] = [
    ...logFilesOf(values.logs ?? [], io.cwd).map((path) => ({ kind: 'log' as const, path })),
    ...(values.corpus ?? []).map((f) => ({ kind: 'corpus' as const, path: resolve(io.cwd, f) })),
  ];
  if (sources.length === 0)
    throw new UsageError('nothing to decide', 'give --logs PATH (decision logs) or --corpus FILE (requests)');
  let old: CompiledPolicy;
  let next: CompiledPolicy;
  try {
    old = await policyFor({ policy: [positionals[0]!] }, io);
    next = await policyFor({ policy: [positionals[1]!] }, io);
  } catch (err) {
    if (err instanceof PolicyLoadFailed) {
      io.stderr.write(`toolgate diff-policy: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const { DiffError, diffPolicies } = await import('../audit/diff-policy.js');
  preferSmallHeap();
  let report: DiffReport;
  try {
    report = await diffPolicies(old, next, sources, {
      cwd: io.cwd,
      verify: values['no-verify'] !== true,
      ...(mode !== undefined && { mode }),
    });
  } catch (err) {
    if (err instanceof DiffError) {
      io.stderr.write(`toolgate diff-policy: ${visible(err.message)}\n`);
      return 2;
    }
    throw err;
  }
  if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else io.stdout.write(summary(report, positionals[0]!, positionals[1]!, io.cwd));
  if (failOn === 'any' && report.flipped > 0) return 1;
  if (failOn === 'loosen' && report.loosened > 0) return 1;
  return 0;
}

const n = (x: number) => x.toLocaleString('en-US');

function summary(r: DiffReport, oldName: string, newName: string, cwd: string): string {
  const out: string[] = [];
  const logs = r.sources.filter((s) => s.kind === 'log');
  const corpora = r.sources.filter((s) => s.kind === 'corpus');
  const from = [
    logs.length > 0 && `${n(logs.length)} log(s)`,
    corpora.length > 0 && `${n(corpora.length)} corpus file(s)`,
  ].filter(Boolean);
  out.push(
    `${n(r.requests)} request(s) from ${from.join(' and ')}, decided under ${oldName} (${r.old.digest.slice(0, 12)}…) and ${newName} (${r.next.digest.slice(0, 12)}…)`,
  );
  out.push('');
  if (r.flipped === 0) out.push('No decision would change.');
  else
    out.push(
      `${n(r.flipped)} of ${n(r.requests)} decision(s) would change: ${n(r.loosened)} loosen, ${n(r.tightened)} tighten.`,
    );
  if (r.reattributed > 0)
    out.push(`${n(r.reattributed)} stay the same but another rule or step decides them.`);
  if (r.flipped > 0) out.push(...flipGroupLines(r, 'old -> new', cwd));
  return `${out.join('\n')}\n`;
}
