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
  // Indexed loops: the effect lists are mostly the shared frozen empty list, and for-of over a
  // mix of frozen and plain arrays calls the iterator (an allocation per step) in optimized code.
  const lineReasons = analysis.lineReasons;
  for (let i = 0; i < lineReasons.length; i++) addReason(reasons, lineReasons[i]!);
  let readOnly = lineReasons.length === 0 && analysis.complete;
  let destructive = !analysis.complete || analysis.lineRunsHiddenCode;
  if (!analysis.complete && lineReasons.length === 0)
    addReason(reasons, 'too complex: the line could not be fully analyzed');
  let lingers = false;
  const commands: string[] = [];
  const writes: string[] = [];
  for (const report of analysis.reports) {
    const text = argvText(report);
    if (text.length > 0) commands.push(text);
    const w = report.writes;
    for (let i = 0; i < w.length; i++) {
      const raw = w[i]!.target.raw;
      if (!writes.includes(raw)) writes.push(raw);
    }
    const notRO = report.notReadOnly;
    const harm = report.destructive;
    const linger = report.lingers;
    if (notRO.length > 0) readOnly = false;
    if (harm.length > 0) destructive = true;
    if (linger.length > 0) lingers = true;
    if (notRO.length + harm.length + linger.length === 0) continue;
    const name = label(report, text);
    for (let i = 0; i < notRO.length; i++) addReason(reasons, `${name}: ${notRO[i]}`);
    for (let i = 0; i < harm.length; i++)
      if (!notRO.includes(harm[i]!)) addReason(reasons, `${name}: ${harm[i]}`);
    for (let i = 0; i < linger.length; i++) addReason(reasons, `${name}: ${linger[i]}`);
  }
  // Anything the parser could not read fails closed: not read-only, and possibly destructive.
  if (!analysis.complete) readOnly = false;
  return { readOnly, concurrencySafe: readOnly && !lingers, destructive, reasons, commands, writes };
}

/** A function of the module, not a closure over `reasons` made per line. */
function addReason(reasons: string[], r: string): void {
  if (!reasons.includes(r)) reasons.push(r);
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
