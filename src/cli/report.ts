import { randomBytes } from 'node:crypto';
import { realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe } from '../audit/error.js';
import { readPublicKeyFile } from '../audit/key-file.js';
import type { AuditReport } from '../audit/report.js';
import { visible } from '../audit/subject.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { logFilesOf } from './log-files.js';
import { modeOf, PolicyLoadFailed, policyFor } from './policy-args.js';

const HELP = `usage: toolgate report LOG... --html OUT [--policy F]... [--mode M] [--checkpoint FILE]
                      [--public-key FILE] [--allow-broken] [--json]

Writes one self-contained HTML page about a decision log for auditors (no scripts, no external
resources): whether its hash chain is intact, totals by behavior, agent, tool, rule and deciding step,
a timeline, the most denied and asked commands and targets, and the sessions. Many LOGs, or a
directory (every *.jsonl below it: a fleet's logs, one per machine), make one report with a
split by log. With --policy, the policy's rules that decided none of the records are listed.

  --html OUT          where to write the page (replaced atomically; never the log itself)
  --policy F          list its rules that never decided anything; with one LOG, also what it
                      would decide differently (replay)
  --mode M            with --policy: re-decide every record in mode M
  --checkpoint FILE   verify the log against its checkpoint too (finds a cut-off tail)
  --public-key FILE   Ed25519 public key (PEM) that must have signed the checkpoint
  --allow-broken      write the page even when the log is not intact; it says so prominently
  --json              print the report's figures as JSON (with or without --html)

Exit status: 0 the log is intact and the report was made; 1 the log is not intact (the page is
written only with --allow-broken); 2 usage or policy errors, or a log that cannot be read
(missing, empty, newer format), or OUT cannot be written.
`;

export async function reportCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseCliArgs(argv, {
    html: { type: 'string' },
    policy: { type: 'string', multiple: true },
    mode: { type: 'string' },
    checkpoint: { type: 'string' },
    'public-key': { type: 'string' },
    'allow-broken': { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('missing LOG');
  if (values.html === undefined && !values.json) throw new UsageError('missing --html OUT (or --json)');
  if (values.mode !== undefined && values.policy === undefined)
    throw new UsageError('--mode re-decides records: give --policy too');
  if (values['public-key'] !== undefined && values.checkpoint === undefined)
    throw new UsageError('--public-key verifies a checkpoint: give --checkpoint too');
  const mode = modeOf(values.mode);
  const at = (f: string) => path.resolve(io.cwd, f);
  const logs = logFilesOf(positionals, io.cwd);
  if (logs.length > 1 && values.checkpoint !== undefined)
    throw new UsageError(`--checkpoint belongs to one log, and ${logs.length} were given`);
  const out = values.html === undefined ? undefined : at(values.html);
  if (out !== undefined) {
    const inputs = [...logs, values.checkpoint, values['public-key'], ...(values.policy ?? [])]
      .filter((f): f is string => f !== undefined && !f.startsWith('builtin:'))
      .map(at);
    if (inputs.some((f) => sameFile(f, out)))
      throw new UsageError(`--html ${values.html} is one of the inputs: it would be overwritten`);
  }
  let publicKey: Awaited<ReturnType<typeof readPublicKeyFile>> | undefined;
  if (values['public-key'] !== undefined) {
    try {
      publicKey = await readPublicKeyFile(at(values['public-key']));
    } catch (err) {
      throw new UsageError(`--public-key ${describe(err)}`);
    }
  }
  let policy: CompiledPolicy | undefined;
  if (values.policy !== undefined) {
    try {
      policy = await policyFor({ policy: values.policy }, io);
    } catch (err) {
      if (err instanceof PolicyLoadFailed) {
        io.stderr.write(`toolgate report: ${err.message}\n`);
        return 2;
      }
      throw err;
    }
  }

  const { buildAuditReport, ReportError } = await import('../audit/report.js');
  let report: AuditReport;
  try {
    report = await buildAuditReport(logs, {
      ...(values.checkpoint !== undefined && { checkpointPath: at(values.checkpoint) }),
      ...(publicKey !== undefined && { publicKey }),
      allowBroken: values['allow-broken'] === true,
      ...(policy !== undefined && { policy }),
      ...(mode !== undefined && { mode }),
    });
  } catch (err) {
    if (err instanceof ReportError) {
      const advice =
        err.kind === 'not-intact' && !values['allow-broken']
          ? '\n  no report was written; run "toolgate verify" for details, or --allow-broken for a page that shows the problem'
          : '';
      io.stderr.write(`toolgate report: ${visible(err.message)}${advice}\n`);
      return err.kind === 'not-intact' ? 1 : 2;
    }
    throw err;
  }
  if (out !== undefined) {
    const { renderReportHtml } = await import('../audit/report-html.js');
    try {
      writeAtomically(out, renderReportHtml(report));
    } catch (err) {
      io.stderr.write(`toolgate report: cannot write ${values.html}: ${describe(err)}\n`);
      return 2;
    }
  }
  if (values.json) io.stdout.write(`${JSON.stringify(report)}\n`);
  else {
    const state = report.verify.ok ? 'intact' : `NOT INTACT (${report.verify.kind})`;
    const agents = report.byAgent.map((a) => `${visible(a.key)} ${a.total}`).join(', ');
    io.stdout.write(`${values.html}: ${report.records} record(s), log ${state}; by agent: ${agents}\n`);
    const otherwise = answeredOtherwise(report);
    if (otherwise.length > 0) io.stdout.write(`answered otherwise than decided: ${otherwise.join('; ')}\n`);
    if (report.byLog !== undefined)
      io.stdout.write(
        `by log: ${report.byLog.map((l) => `${visible(path.relative(io.cwd, l.key) || l.key)} ${l.total}`).join(', ')}\n`,
      );
    if (report.rules !== undefined) {
      const { used, neverDecided } = report.rules;
      io.stdout.write(`${neverDecided.length} of ${used.length} rule(s) never decided anything:\n`);
      for (const u of neverDecided)
        io.stdout.write(
          `  ${u.kind.padEnd(5)} ${visible(u.text)} (${visible(u.source)}${u.line === undefined ? '' : `:${u.line}`})\n`,
        );
    }
  }
  if (!report.verify.ok)
    io.stderr.write(`toolgate report: the log is not intact: ${visible(report.verify.message)}\n`);
  return report.verify.ok ? 0 : 1;
}

/** Whether two paths name one file (through symlinks); a path that does not exist is only itself. */
/**
 * The decisions an agent was sent another answer for (`codex 0.171.0: ask sent as deny 3`): what
 * a reader of the log most needs to know about the agents that cannot honour every answer.
 */
function answeredOtherwise(report: AuditReport): string[] {
  const out: string[] = [];
  for (const row of report.bySent) {
    const at = row.key.lastIndexOf(' → ');
    const agent = row.key.slice(0, at);
    const sent = row.key.slice(at + 3);
    if (sent === '(not recorded)') continue;
    for (const b of ['allow', 'ask', 'deny'] as const)
      if (row[b] > 0 && sent !== b) out.push(`${visible(agent)}: ${b} sent as ${sent} ${row[b]}`);
  }
  return out;
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  try {
    const sa = statSync(a);
    const sb = statSync(b);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    try {
      return realpathSync(a) === path.join(realpathSync(path.dirname(b)), path.basename(b));
    } catch {
      return false;
    }
  }
}

/** A whole page or none: write beside the target, then rename over it. */
function writeAtomically(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, text, { flag: 'wx', mode: 0o644 });
    if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) throw new Error('it is a directory');
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
