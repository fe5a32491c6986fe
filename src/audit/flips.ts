/**
 * Counting the decisions that changed between a record and its replay ("flips"), grouped by
 * kind (allow->deny, ...), tool, and rule (the rule that decided then -> the one that decides
 * now). A flip toward allow (deny->ask, deny->allow, ask->allow) loosens the policy; any other
 * tightens it. Ordering is total and independent of insertion order, except for samples, which
 * are the first records of a group in the order they were added (log order).
 */
import { type Behavior, rank } from '../policy/behavior.js';
import type { DecidedBy, RuleRef } from '../policy/decision.js';
import type { DecisionRecord } from './record.js';
import { subjectOf } from './subject.js';

export type Direction = 'loosen' | 'tighten';

/** One side of a comparison: what was decided, and by what. */
export interface Side {
  behavior: Behavior;
  decidedBy: DecidedBy;
  rule?: RuleRef;
  reason: string;
}

export interface FlipSample {
  seq: number;
  id: string;
  /** The line of the log the record is on. */
  line: number;
  ts: string;
  tool: string;
  /** What the request acted on: the command, path or URL (the agent's text). */
  subject: string;
  sessionId?: string;
  /** The log (or corpus) it came from, when more than one was read. */
  log?: string;
  from: Side;
  to: Side;
  direction: Direction;
  redacted: boolean;
}

export interface FlipGroup {
  key: string;
  count: number;
  loosen: number;
  tighten: number;
  /** Flips in this group on redacted records. */
  redacted: number;
  samples: FlipSample[];
}

export interface RuleFlipGroup extends FlipGroup {
  /** The rule (or step) that decided the record then, and the one that decides it now. */
  from: string;
  to: string;
}

/**
 * What add() compares. `from` and `to` may be whole decisions: only the members of Side are
 * read, and copied into a sample when the decision flipped (most records do not: nothing is
 * allocated for them).
 */
export interface Comparison {
  record: DecisionRecord;
  line: number;
  from: Side;
  to: Side;
  redacted: boolean;
  /** Where the record came from, when there are many sources (diff-policy). */
  log?: string;
}

export function directionOf(from: Behavior, to: Behavior): Direction {
  return rank(to) < rank(from) ? 'loosen' : 'tighten';
}

/** `Bash(rm *) (policy.yaml:7)`, or the step that decided when no rule did: `(default)`. */
export function ruleLabel(side: Pick<Side, 'rule' | 'decidedBy'>): string {
  const r = side.rule;
  if (r === undefined) return `(${side.decidedBy})`;
  return `${r.text} (${r.source}${r.line === undefined ? '' : `:${r.line}`})`;
}

export class FlipTally {
  private compared = 0;
  private reattributed = 0;
  private readonly kinds = new Map<string, FlipGroup>();
  private readonly tools = new Map<string, FlipGroup>();
  private readonly rules = new Map<string, RuleFlipGroup>();

  constructor(private readonly samples: number) {}

  /** Returns whether the decision flipped. */
  add(c: Comparison): boolean {
    this.compared++;
    if (c.from.behavior === c.to.behavior) {
      // The same rule moved to another file or line is not another rule.
      if (c.from.decidedBy !== c.to.decidedBy || c.from.rule?.text !== c.to.rule?.text) this.reattributed++;
      return false;
    }
    const direction = directionOf(c.from.behavior, c.to.behavior);
    const sample: FlipSample = {
      seq: c.record.seq,
      id: c.record.id,
      line: c.line,
      ts: c.record.ts,
      tool: c.record.request.tool,
      subject: subjectOf(c.record.request.tool, c.record.request.input),
      ...(c.record.sessionId !== undefined && { sessionId: c.record.sessionId }),
      ...(c.log !== undefined && { log: c.log }),
      from: sideOf(c.from),
      to: sideOf(c.to),
      direction,
      redacted: c.redacted,
    };
    const from = ruleLabel(c.from);
    const to = ruleLabel(c.to);
    this.bump(this.kinds, `${c.from.behavior}->${c.to.behavior}`, sample, () => ({}));
    this.bump(this.tools, sample.tool, sample, () => ({}));
    this.bump(this.rules, `${from} -> ${to}`, sample, () => ({ from, to }));
    return true;
  }

  result() {
    const byKind = sorted(this.kinds);
    return {
      compared: this.compared,
      reattributed: this.reattributed,
      flipped: byKind.reduce((n, g) => n + g.count, 0),
      loosened: byKind.reduce((n, g) => n + g.loosen, 0),
      tightened: byKind.reduce((n, g) => n + g.tighten, 0),
      byKind,
      byTool: sorted(this.tools),
      byRule: sorted(this.rules),
    };
  }

  private bump<G extends FlipGroup>(
    groups: Map<string, G>,
    key: string,
    sample: FlipSample,
    extra: () => Omit<G, keyof FlipGroup>,
  ): void {
    let g = groups.get(key);
    if (g === undefined) {
      g = { key, count: 0, loosen: 0, tighten: 0, redacted: 0, samples: [], ...extra() } as unknown as G;
      groups.set(key, g);
    }
    g.count++;
    g[sample.direction]++;
    if (sample.redacted) g.redacted++;
    if (g.samples.length < this.samples) g.samples.push(sample);
  }
}

/** Only the members of Side: a sample does not carry a whole decision. */
function sideOf(d: Side): Side {
  return {
    behavior: d.behavior,
    decidedBy: d.decidedBy,
    ...(d.rule !== undefined && { rule: d.rule }),
    reason: d.reason,
  };
}

export function countBy(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** Most flips first, then by key (code-unit order, not locale: the same everywhere). */
function sorted<G extends FlipGroup>(groups: Map<string, G>): G[] {
  return [...groups.values()].sort(
    (a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}
