import { relative, resolve } from 'node:path';
import { describe } from '../audit/error.js';
import { readPublicKeyFile } from '../audit/key-file.js';
import type { FlipGroup, ReplayReport, RuleFlipGroup, ScanProgress } from '../audit/replay.js';
import { visible } from '../audit/subject.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { fileProgress, logFilesOf } from './log-files.js';
import { modeOf, PolicyLoadFailed, policyFor } from './policy-args.js';
import { preferSmallHeap } from './small-heap.js';

const HELP = `usage: toolgate replay LOG... [--policy F]... [--mode M] [--fail-on loosen|any] [--json]
                      [--checkpoint FILE] [--public-key FILE] [--no-verify]

Re-decides every record of a decision log under a candidate policy and reports the decisions
that would change ("flips": allow->deny, deny->allow, ask->allow, ...), by kind, tool and rule,
with sample records. A flip toward allow (deny->ask, deny->allow, ask->allow) loosens; any
other tightens. Reads only; never writes anything. Many LOGs, or a directory (every *.jsonl
below it: a fleet's logs), are each replayed and reported (with --json, one report per line),
then the totals over all of them.

  --policy F          the candidate policy (repeatable, first is highest); default: as "check"
  --mode M            decide every record in mode M instead of the mode it was asked in
  --fail-on loosen    exit 1 when any decision loosens; --fail-on any: when any decision flips
  --json              print the whole report as JSON
  --checkpoint FILE   verify the log against its checkpoint too (finds a cut-off tail)
  --public-key FILE   Ed25519 public key (PEM) that must have signed the checkpoint
  --no-verify         replay a log that does not verify: the records that parse are replayed,
                      the lines that do not are listed, and the report says nothing was verified

The log is verified as it is replayed; a log that is not intact is refused (an auditor cannot
trust flips computed from records nobody can vouch for). Records that were redacted are
replayed on their redacted text and flagged; decisions of the auto-mode classifier or of a
hook that the policy cannot re-derive are counted, not compared.

Exit status: 0 no failing flips; 1 --fail-on was hit; 2 usage or policy errors, or a log that
cannot be replayed (missing, empty, not intact, newer format).
`;

export async function replayCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    policy: { type: 'string', multiple: true },
    mode: { type: 'string' },
    'fail-on': { type: 'string' },
    json: { type: 'boolean' },
    checkpoint: { type: 'string' },
    'public-key': { type: 'string' },
    'no-verify': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('missing LOG');
  const logs = logFilesOf(positionals, io.cwd);
  if (logs.length > 1 && values.checkpoint !== undefined)
    throw new UsageError(
      `--checkpoint belongs to one log, and ${logs.length} were given`,
      'replay that log alone',
    );
  const failOn = values['fail-on'];
  if (failOn !== undefined && failOn !== 'loosen' && failOn !== 'any')
    throw new UsageError(`--fail-on takes "loosen" or "any" (got "${failOn}")`);
  const mode = modeOf(values.mode);
  const noVerify = values['no-verify'] === true;
  if (noVerify && values.checkpoint !== undefined)
    throw new UsageError('--no-verify and --checkpoint contradict each other');
  if (values['public-key'] !== undefined && values.checkpoint === undefined)
    throw new UsageError('--public-key verifies a checkpoint: give --checkpoint too');
  const publicKey =
    values['public-key'] === undefined ? undefined : await readKey(resolve(io.cwd, values['public-key']));

  let policy: CompiledPolicy;
  try {
    policy = await policyFor({ policy: values.policy }, io);
  } catch (err) {
    if (err instanceof PolicyLoadFailed) {
      io.stderr.write(`toolgate replay: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const { ReplayError, replayLog } = await import('../audit/replay.js');
  preferSmallHeap();
  const files = fileProgress(io.stderr, 'replaying', logs.length);
  const totals = { logs: 0, records: 0, compared: 0, flipped: 0, loosened: 0, tightened: 0 };
  let refused = 0;
  for (const [i, log] of logs.entries()) {
    files.at(i, log);
    const named = positionals.length === 1 && log === resolve(io.cwd, positionals[0]!);
    const name = named ? positionals[0]! : relative(io.cwd, log) || log;
    const progress = logs.length === 1 ? progressBar(io.stderr) : undefined;
    let report: ReplayReport;
    try {
      report = await replayLog(log, policy, {
        ...(mode !== undefined && { mode }),
        verify: !noVerify,
        ...(values.checkpoint !== undefined && { checkpointPath: resolve(io.cwd, values.checkpoint) }),
        ...(publicKey !== undefined && { publicKey }),
        ...(progress !== undefined && { onProgress: progress.update }),
      });
    } catch (err) {
      if (err instanceof ReplayError) {
        io.stderr.write(`toolgate replay: ${visible(err.message)}\n`);
        refused++;
        continue;
      }
      throw err;
    } finally {
      progress?.done();
    }
    totals.logs++;
    for (const k of ['records', 'compared', 'flipped', 'loosened', 'tightened'] as const)
      totals[k] += report[k];
    if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
    else io.stdout.write(`${i > 0 ? '\n' : ''}${summary(report, name)}`);
  }
  files.done();
  if (logs.length > 1) {
    const line = `${n(logs.length)} log(s): ${n(totals.records)} record(s), ${n(totals.flipped)} of ${n(totals.compared)} decision(s) would change (${n(totals.loosened)} loosen, ${n(totals.tightened)} tighten)${refused > 0 ? `; ${n(refused)} log(s) could not be replayed` : ''}\n`;
    if (values.json) io.stderr.write(line);
    else io.stdout.write(`\n${line}`);
  }
  // A log that could not be replayed is not a pass: an audit must not look clean for it.
  if (refused > 0) return 2;
  if (failOn === 'any' && totals.flipped > 0) return 1;
  if (failOn === 'loosen' && totals.loosened > 0) return 1;
  return 0;
}

async function readKey(path: string) {
  try {
    return await readPublicKeyFile(path);
  } catch (err) {
    throw new UsageError(`--public-key ${describe(err)}`);
  }
}

const n = (x: number) => x.toLocaleString('en-US');

function summary(r: ReplayReport, logName: string): string {
  const out: string[] = [];
  const v = r.verification;
  out.push(
    `Replayed ${n(r.records)} record(s) of ${logName} under policy ${r.policy.digest.slice(0, 12)}… (${r.policy.sources.join(', ') || 'no files'})`,
  );
  out.push(
    v.verified
      ? `Log: intact, ${n(v.count)} record(s), head ${v.head}${v.checkpoint ? `, checkpoint of ${n(v.checkpoint.count)} record(s)${v.checkpoint.verified ? ', signature verified' : ''}` : ''}`
      : `Log: NOT VERIFIED (--no-verify); ${n(v.skippedCount)} line(s) skipped${v.tornBytes > 0 ? `, ${v.tornBytes} bytes of a cut-off last line ignored` : ''}`,
  );
  if (!v.verified) for (const s of v.skipped) out.push(`  line ${s.line}: ${s.message}`);
  out.push(
    `Mode: ${r.mode === undefined ? 'as each record asked' : `every record decided in ${r.mode} mode`}`,
  );
  out.push('');
  if (r.flipped === 0) out.push(`No decision would change (${n(r.compared)} compared).`);
  else
    out.push(
      `${n(r.flipped)} of ${n(r.compared)} decision(s) would change: ${n(r.loosened)} loosen, ${n(r.tightened)} tighten.`,
    );
  if (r.reattributed > 0)
    out.push(`${n(r.reattributed)} decision(s) stay the same but another rule or step decides them now.`);

  if (r.flipped > 0) out.push(...flipGroupLines(r, 'recorded -> now'));
  const notes = notesOf(r);
  if (notes.length > 0) out.push('', 'Notes:', ...notes.map((x) => `  - ${x}`));
  return `${out.join('\n')}\n`;
}

/** The flips by kind, tool and rule: replay's and diff-policy's reports share this layout. */
export function flipGroupLines(
  r: { byKind: readonly FlipGroup[]; byTool: readonly FlipGroup[]; byRule: readonly RuleFlipGroup[] },
  ruleHeading: string,
  cwd?: string,
): string[] {
  const out = ['', 'By kind:'];
  for (const g of r.byKind)
    out.push(
      `  ${g.key.replace('->', ' -> ').padEnd(16)} ${n(g.count).padStart(7)}  ${(g.loosen > 0 ? 'loosen' : 'tighten').padEnd(7)}  seq ${seqs(g)}`,
    );
  out.push('', 'By tool:');
  for (const g of r.byTool) out.push(`  ${visible(g.key).padEnd(16)} ${n(g.count).padStart(7)}  ${split(g)}`);
  out.push('', `By rule (${ruleHeading}):`);
  for (const g of r.byRule) out.push(...ruleGroup(g, cwd));
  return out;
}

function seqs(g: FlipGroup): string {
  return `${g.samples.map((s) => s.seq).join(', ')}${g.count > g.samples.length ? ', …' : ''}`;
}

function split(g: FlipGroup): string {
  return [g.loosen > 0 && `${n(g.loosen)} loosen`, g.tighten > 0 && `${n(g.tighten)} tighten`]
    .filter(Boolean)
    .join(', ');
}

function ruleGroup(g: RuleFlipGroup, cwd?: string): string[] {
  const lines = [`  ${n(g.count).padStart(7)}  ${visible(g.from)}`, `           -> ${visible(g.to)}`];
  for (const s of g.samples) {
    const mark = `${s.redacted ? '  [redacted]' : ''}${s.log === undefined ? '' : `  (${cwd === undefined ? s.log : relative(cwd, s.log) || s.log})`}`;
    lines.push(
      `           seq ${String(s.seq).padEnd(6)} ${visible(s.tool).padEnd(10)} ${s.from.behavior} -> ${s.to.behavior}  ${visible(s.subject)}${mark}`,
    );
  }
  if (g.count > g.samples.length) lines.push(`           … ${n(g.count - g.samples.length)} more`);
  return lines;
}

function notesOf(r: ReplayReport): string[] {
  const notes: string[] = [];
  if (r.redacted.records > 0)
    notes.push(
      `${n(r.redacted.records)} record(s) were redacted before they were written and were replayed on the redacted text; ${n(r.redacted.flipped)} of them flipped${r.redacted.samples.length > 0 ? ` (seq ${r.redacted.samples.join(', ')})` : ''}: such a flip may come from the redaction, not from the policy.`,
    );
  if (r.notCompared.classifier > 0)
    notes.push(
      `${n(r.notCompared.classifier)} record(s) decided by the auto-mode classifier would go to the classifier again: not compared.`,
    );
  if (r.notCompared.hook > 0)
    notes.push(`${n(r.notCompared.hook)} record(s) decided by a hook outside the policy: not compared.`);
  if (r.notCompared.user > 0)
    notes.push(
      `${n(r.notCompared.user)} record(s) answered by a person would be asked again: their answers stand, not compared.`,
    );
  if (r.sameDigest.flipped > 0)
    notes.push(
      `${n(r.sameDigest.flipped)} flip(s) are in records decided under this very policy (same digest): they come from a changed engine, grammar or file system, not from the policy.`,
    );
  const current = `engine ${r.versions.current.engine}, grammar ${r.versions.current.grammar}`;
  const other = r.versions.recorded.filter((v) => v.key !== current);
  if (other.length > 0)
    notes.push(
      `${n(other.reduce((x, v) => x + v.count, 0))} record(s) were decided by another version (${other
        .slice(0, 3)
        .map((v) => visible(v.key))
        .join('; ')}${other.length > 3 ? '; …' : ''}); this is ${current}.`,
    );
  return notes;
}

/**
 * A throttled progress bar on stderr, only on a terminal: drawn once a replay has run for
 * 300 ms, redrawn at most every 100 ms, erased at the end.
 */
export function progressBar(
  stderr: NodeJS.WritableStream,
  clock: () => number = Date.now,
): { update: (p: ScanProgress) => void; done: () => void } | undefined {
  if ((stderr as { isTTY?: boolean }).isTTY !== true) return undefined;
  const started = clock();
  let last = 0;
  let shown = false;
  return {
    update(p) {
      const now = clock();
      if (now - started < 300 || now - last < 100) return;
      last = now;
      shown = true;
      const fraction = p.totalBytes > 0 ? Math.min(1, p.bytes / p.totalBytes) : 0;
      const width = 30;
      const filled = Math.round(fraction * width);
      stderr.write(
        `\rreplaying [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${n(p.records)} records`,
      );
    },
    done() {
      if (shown) stderr.write('\r\x1b[K');
    },
  };
}
