import type { Effect } from '../../bash/catalogue/effect.js';
import type { BashPart } from '../bash-parts.js';
import { bashRuleHit, pathRuleHit } from '../rule-match.js';
import type { BashLine, Verdict } from './subject.js';
import { ruleVerdict } from './verdict.js';

/**
 * What grants a Bash line or its parts when nothing restricts it: acceptEdits for the line,
 * an allow rule or the default for each part.
 */

/** What a file edit does: nothing else may appear in a part acceptEdits approves. */
const FILE_EDITS: ReadonlySet<Effect> = new Set(['writes', 'appends', 'removes']);

/**
 * acceptEdits, as Claude Code has it: file edits, and the writes of commands whose knowledge
 * calls them edits (the `edit` trait: mkdir, touch, rm, rmdir, mv, cp, sed, tee) on paths
 * inside the workspace. Every part must be read-only or such an edit; every path must be known
 * and inside.
 */
export function lineAcceptEdits(l: BashLine): Verdict | undefined {
  if (!readOnlyOrEdits(l)) return undefined;
  return { behavior: 'allow', by: 'mode', reason: 'acceptEdits mode allows file edits inside the workspace' };
}

function readOnlyOrEdits({ parts, notUnderstood, workspace }: BashLine): boolean {
  if (notUnderstood !== undefined) return false;
  for (const part of parts) {
    const report = part.report;
    if (!report.findings.every((f) => FILE_EDITS.has(f.effect))) return false;
    const programWrites = report.writes.filter((w) => !w.viaRedirect).length + report.removes.length;
    if (programWrites > 0 && !report.traits.includes('edit')) return false;
    if (part.cwds === undefined) return false;
    for (const ref of [...part.reads, ...part.writes, ...part.removes]) {
      if (ref.paths === undefined || !ref.paths.every((p) => workspace.contains(p))) return false;
    }
  }
  return true;
}

/** Why a part's redirections are not allowed: each is an edit of its own and needs an Edit rule. */
function redirectNotAllowed(part: BashPart, l: BashLine): string | undefined {
  for (const w of part.writes) {
    if (!w.viaRedirect) continue;
    if (w.paths === undefined) return `${part.display} writes "${w.raw}", a file only known at run time`;
    for (const p of w.paths)
      if (!pathRuleHit('allow', 'edit', p, l.ctx))
        return `${part.display} writes ${p}; no Edit rule allows it`;
  }
  return undefined;
}

export function partAllowRule(part: BashPart, l: BashLine): Verdict | undefined {
  if (part.name === '' || !part.harmlessEnv || !part.prefixAllowable) return undefined;
  const hit = part.dynamicName
    ? bashRuleHit('allow', undefined, l.ctx)
    : bashRuleHit('allow', part.allowText, l.ctx, { allowDynamicTail: part.dynamicTail });
  if (!hit || redirectNotAllowed(part, l) !== undefined) return undefined;
  return ruleVerdict('allow', hit, hit.target ?? 'the command');
}

/** A part no rule allows: allowed when read-only (its allowed redirections aside) and inside the workspace. */
export function partDefault(part: BashPart, l: BashLine): Verdict {
  const ask = (reason: string): Verdict => ({ behavior: 'ask', by: 'default', reason });
  const redirect = redirectNotAllowed(part, l);
  if (redirect !== undefined) return ask(redirect);
  // Anything the program itself does (its redirections, allowed above, aside) needs a rule.
  const own = part.report.findings.find((f) => !f.redirect);
  if (own !== undefined) return ask(`${part.display}: ${own.why}; no rule allows it`);
  if (l.notUnderstood !== undefined) return ask(`${l.notUnderstood}; no rule allows it`);
  if (part.name !== '' && part.cwds === undefined)
    return ask(`${part.display} runs in a directory only known at run time`);
  for (const c of part.cwds ?? []) {
    if (!l.workspace.contains(c)) return ask(`${part.display} runs in ${c}, outside the workspace`);
  }
  for (const r of part.reads) {
    if (r.paths === undefined) return ask(`${part.display} reads "${r.raw}", a path only known at run time`);
    for (const p of r.paths) {
      if (!l.workspace.contains(p) && !pathRuleHit('allow', 'read', p, l.ctx))
        return ask(`${part.display} reads ${p}, outside the workspace`);
    }
  }
  return READ_ONLY;
}

const READ_ONLY: Verdict = { behavior: 'allow', by: 'default', reason: 'read-only, inside the workspace' };

/**
 * A line with no command at all (blank, a comment): allowed if bash can read it. One it
 * cannot read runs nothing toolgate has seen, so it asks like any line not understood.
 */
export function lineDefault(l: BashLine): Verdict | undefined {
  if (l.parts.length > 0) return undefined;
  if (l.notUnderstood === undefined) return READ_ONLY;
  return { behavior: 'ask', by: 'default', reason: `${l.notUnderstood}; no rule allows it` };
}
