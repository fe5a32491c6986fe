import type { Behavior } from '../behavior.js';
import type { RuleHit } from '../rule-match.js';
import type { Verdict } from './subject.js';

/** A request that cannot be decided on its merits: nothing is allowed. */
export function invalidVerdict(reason: string): Verdict {
  return { behavior: 'deny', by: 'error', reason };
}

/** A rule decided: the reason names the rule, where it was written, and what it matched. */
export function ruleVerdict(behavior: Behavior, hit: RuleHit, subject: string): Verdict {
  const r = hit.rule;
  const where = r.ref.line === undefined ? r.ref.source : `${r.ref.source}:${r.ref.line}`;
  const verb = behavior === 'deny' ? 'Denied' : behavior === 'ask' ? 'Needs approval' : 'Allowed';
  const because = hit.conditionError ? ` (its condition failed: ${hit.conditionError})` : '';
  const why = r.reason ? `: ${r.reason}` : '';
  return {
    behavior,
    by: 'rule',
    reason: `${verb} by rule "${r.rule.text}" (${where}) for ${subject}${because}${why}`,
    hit,
  };
}

export function guardVerdict(behavior: Behavior, reason: string, hit?: RuleHit): Verdict {
  return hit ? { behavior, by: 'guard', reason, hit } : { behavior, by: 'guard', reason };
}
