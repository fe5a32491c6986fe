import type { BashPart } from '../bash-parts.js';
import { criticalRemoval, protectedAlias, protectedWrite } from '../guards.js';
import { protectedEntryShownIn } from '../protected.js';
import { TREE_LIMIT } from './bash-rules.js';
import type { BashLine, Verdict } from './subject.js';
import { guardVerdict } from './verdict.js';

/**
 * The guards of a Bash line: what no allow rule and no mode lifts. Most only matter when a
 * rule could match what cannot be seen (BashLine.contentRules, hiddenMatters).
 */

export function lineNotAnalyzed(l: BashLine): Verdict | undefined {
  if (l.complete || !l.hiddenMatters) return undefined;
  return guardVerdict(
    'ask',
    `the command line could not be fully analyzed, so ${unseen(l)}: ${l.facts.reasons[0] ?? ''}`,
  );
}

/** Why what cannot be seen matters (BashLine.hiddenMatters): rules, or no jail. */
function unseen(l: BashLine): string {
  return !l.contentRules && l.ctx.policy.sandbox.os === 'off'
    ? 'with sandbox.os off no jail holds protected paths against it'
    : 'deny rules cannot be ruled out';
}

export function partCriticalRemoval(part: BashPart, l: BashLine): Verdict | undefined {
  const why = criticalRemoval(part, l.ctx.fs.home, l.workspace.root, (p) => l.ctx.fs.realpath(p));
  return why ? guardVerdict(l.ctx.policy.guards.criticalDelete, why) : undefined;
}

/** Running what was just downloaded: `curl x | sh`, `bash <(curl x)`, `eval "$(curl x)"`. */
export function linePipeToShell(l: BashLine): Verdict | undefined {
  const runner = l.parts.find(
    (p) => (p.report.runsStdin && p.report.stdin === 'pipe') || p.report.unknownCode.length > 0,
  );
  const fetcher = runner && l.parts.find((p) => p.report.network);
  if (!runner || !fetcher) return undefined;
  const reason = `${runner.display} runs code that ${fetcher.display} downloads (network output run as a program)`;
  return guardVerdict(l.ctx.policy.guards.pipeToShell, reason);
}

export function partHiddenCode(part: BashPart, l: BashLine): Verdict | undefined {
  if (!l.hiddenMatters || part.report.unknownCode.length === 0) return undefined;
  return guardVerdict('ask', `${part.report.unknownCode[0]}, so ${unseen(l)}`);
}

/**
 * A directory read all the way down whose files could not all be checked against the rules
 * on reads (too many, or no way to list them): the deny rules cannot be ruled out.
 */
export function partUncheckedTree(part: BashPart, l: BashLine): Verdict | undefined {
  if (!l.contentRules) return undefined;
  const rules = l.ctx.policy.pathRules.read;
  if (rules.deny.length + rules.ask.length === 0) return undefined;
  for (const t of part.readTrees)
    for (const root of t.paths ?? []) {
      if (l.ctx.fs.walk?.(root, t.how, TREE_LIMIT) !== undefined) continue;
      return guardVerdict(
        'ask',
        `${part.display} reads every file below ${root}, too many to check against the rules on reads (over ${TREE_LIMIT.toLocaleString('en-US')}), so a deny rule might apply`,
      );
    }
  return undefined;
}

export function partUnknownPath(part: BashPart, l: BashLine): Verdict | undefined {
  if (!l.contentRules) return undefined;
  for (const ref of [...part.reads, ...part.writes, ...part.removes])
    if (ref.paths === undefined)
      return guardVerdict(
        'ask',
        `cannot tell which file "${ref.raw}" names, so a path deny rule might apply`,
      );
  return undefined;
}

export function linePlanMode(l: BashLine): Verdict | undefined {
  if (l.facts.readOnly) return undefined;
  return {
    behavior: 'deny',
    by: 'mode',
    reason: `plan mode runs only read-only commands: ${l.facts.reasons[0] ?? 'this line is not read-only'}`,
  };
}

export function partProtectedWrite(part: BashPart, l: BashLine): Verdict | undefined {
  const own = l.ctx.policy.ownFiles;
  const realpath = (q: string) => l.ctx.fs.realpath(q);
  for (const [refs, removal] of [
    [part.writes, false],
    [part.removes, true],
  ] as const)
    for (const w of refs) {
      for (const p of w.paths ?? []) {
        const hit = protectedWrite(p, l.workspace.roots, realpath, own, removal);
        if (hit)
          return guardVerdict(
            'ask',
            `${part.display} writes ${p}, a protected path (${hit.label}): ${hit.why}`,
          );
      }
      if (w.paths !== undefined) continue;
      // Only known at run time, but what the line shows of it is enough (`/proc/$$/cwd/.git/config`).
      const shown = protectedEntryShownIn(w.raw);
      if (shown) return guardVerdict('ask', `${part.display} writes ${w.raw}, a protected path (${shown})`);
      // With no jail, this check is all that holds protected paths: what it cannot see, it asks about.
      if (l.ctx.policy.sandbox.os === 'off')
        return guardVerdict(
          'ask',
          `${part.display} writes ${w.raw}, only known at run time, and with sandbox.os off no jail keeps it out of protected paths`,
        );
    }
  // A link is a write, later, of what it points at: `ln -s .git/hooks h` makes `h/pre-commit`
  // a hook under a name no check of a later write can see.
  for (const a of part.aliases) {
    for (const p of a.paths ?? []) {
      const entry = protectedAlias(p, l.workspace.roots, realpath);
      if (entry)
        return guardVerdict(
          'ask',
          `${part.display} links to ${p}, a protected path (${entry}): writing the link writes it`,
        );
    }
    if (a.paths !== undefined) continue;
    const shown = protectedEntryShownIn(a.raw);
    if (shown)
      return guardVerdict(
        'ask',
        `${part.display} links to ${a.raw}, a protected path (${shown}): writing the link writes it`,
      );
    if (l.ctx.policy.sandbox.os === 'off')
      return guardVerdict(
        'ask',
        `${part.display} links to ${a.raw}, only known at run time, and with sandbox.os off no jail keeps writes through the link out of protected paths`,
      );
  }
  return undefined;
}
