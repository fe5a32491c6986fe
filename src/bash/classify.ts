import { analyzeLine, type CommandReport, type LineAnalysis } from './analyze.js';
import type { BashFacts } from './facts.js';

/**
 * A command line -> BashFacts. Read-only only when every simple command (including nested
 * ones) is read-only and the line was understood completely; destructive when any part is.
 */
export function classifyBash(command: string): BashFacts {
  return factsOf(analyzeBash(command));
}

export function analyzeBash(command: string): LineAnalysis {
  try {
    return analyzeLine(command);
  } catch (err) {
    // Never an exception out of the classifier: an internal error is a "not understood" line.
    const reason = `internal error while analyzing the command: ${err instanceof Error ? err.message : String(err)}`;
    return {
      line: {
        source: command,
        commands: [],
        functions: new Set(),
        taintedNames: new Set(),
        variables: new Map(),
        arithmeticNames: new Set(),
        promptExpansions: [],
        indirectExpansions: [],
        problems: [reason],
      },
      reports: [],
      lineReasons: [reason],
      lineRunsHiddenCode: false,
      complete: false,
    };
  }
}

export function factsOf(analysis: LineAnalysis): BashFacts {
  const reasons: string[] = [];
  const add = (r: string): void => {
    if (!reasons.includes(r)) reasons.push(r);
  };
  for (const r of analysis.lineReasons) add(r);
  let readOnly = analysis.lineReasons.length === 0 && analysis.complete;
  let destructive = !analysis.complete || analysis.lineRunsHiddenCode;
  if (!analysis.complete && analysis.lineReasons.length === 0)
    add('too complex: the line could not be fully analyzed');
  let lingers = false;
  const commands: string[] = [];
  const writes: string[] = [];
  for (const report of analysis.reports) {
    const text = argvText(report);
    if (text.length > 0) commands.push(text);
    for (const w of report.writes) if (!writes.includes(w.target.raw)) writes.push(w.target.raw);
    if (report.notReadOnly.length > 0) readOnly = false;
    if (report.destructive.length > 0) destructive = true;
    if (report.lingers.length > 0) lingers = true;
    if (report.notReadOnly.length + report.destructive.length + report.lingers.length === 0) continue;
    const name = label(report, text);
    for (const r of report.notReadOnly) add(`${name}: ${r}`);
    for (const r of report.destructive) if (!report.notReadOnly.includes(r)) add(`${name}: ${r}`);
    for (const r of report.lingers) add(`${name}: ${r}`);
  }
  if (analysis.reports.length === 0 && analysis.line.commands.length === 0 && analysis.complete) {
    // An empty line or only comments: nothing runs.
  }
  // Anything the parser could not read fails closed: not read-only, and possibly destructive.
  if (!analysis.complete) readOnly = false;
  return { readOnly, concurrencySafe: readOnly && !lingers, destructive, reasons, commands, writes };
}

/** The argv as written, joined by spaces. */
function argvText(report: CommandReport): string {
  const argv = report.argv;
  if (argv.length === 1) return argv[0]!.raw;
  let text = '';
  for (let i = 0; i < argv.length; i++) text += i === 0 ? argv[i]!.raw : ` ${argv[i]!.raw}`;
  return text;
}

function label(report: CommandReport, argvText: string): string {
  const text = argvText || '(redirect)';
  const short = text.length > 50 ? `${text.slice(0, 47)}...` : text;
  return report.via === 'line' ? short : `${short} [via ${report.via}]`;
}
