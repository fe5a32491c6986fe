import type { BashPart } from '../bash-parts.js';
import { type Behavior, rank, stricterOf } from '../behavior.js';
import type { Mode } from '../mode.js';
import type { BashLine, InvalidCall, Subject, ToolCall, Verdict } from './subject.js';

/**
 * One named step of the decision order (table.ts lists them). A step answers for a tool call,
 * for a Bash line as a whole, or for each part of the line; a step with no check for a kind
 * of subject says nothing about it.
 */
export interface Step {
  readonly name: string;
  /** The step in one line, as ARCHITECTURE's decision order lists it. */
  readonly doc: string;
  /**
   * `restrict`: every answer counts (deny or ask), whatever came before.
   * `grant`: what is left when nothing restricts: each subject takes the first grant that
   * answers for it (a mode, an allow rule, the default), allow or ask.
   */
  readonly kind: 'restrict' | 'grant';
  /** The strictest answer the step can give: a step that cannot change the result is skipped. */
  readonly atMost: Behavior;
  /** Modes in which the step does not apply. */
  readonly notIn?: readonly Mode[];
  /** The only modes in which the step applies (absent: every mode). */
  readonly onlyIn?: readonly Mode[];
  readonly invalid?: (call: InvalidCall) => Verdict | undefined;
  readonly tool?: (call: ToolCall) => Verdict | undefined;
  readonly line?: (line: BashLine) => Verdict | undefined;
  readonly part?: (part: BashPart, line: BashLine) => Verdict | undefined;
}

/**
 * The one interpreter of the decision order: the strictest answer of all restricting steps
 * and of each subject's first grant; on a tie the earlier step (then the earlier part) gives
 * the reason. So a deny anywhere wins, an ask anywhere asks, and a call is allowed only when
 * nothing restricts it and every part of it is granted. (Plain loops and no allocation on the
 * way: this runs on every call.)
 */
export function walk(table: readonly Step[], subject: Subject, trace?: string[]): Verdict {
  const plan = planOf(table, subject.mode);
  const found = new Found(trace);
  switch (subject.kind) {
    case 'invalid':
      for (const step of plan.invalid) {
        if (found.atLeast('deny')) break;
        found.take(step, step.invalid!(subject));
      }
      break;
    case 'tool':
      for (const step of plan.tool) {
        if (found.atLeast('deny')) break;
        if (!found.atLeast(step.atMost)) found.take(step, step.tool!(subject));
      }
      // A grant is allow or ask: it cannot beat an ask already found (a tie goes to the earlier).
      if (found.atLeast('ask')) break;
      for (const step of plan.toolGrants) {
        const v = step.tool!(subject);
        if (v === undefined) continue;
        found.take(step, v);
        break;
      }
      break;
    case 'bash':
      for (const step of plan.line) {
        if (found.atLeast('deny')) break;
        if (found.atLeast(step.atMost)) continue;
        if (step.line) found.take(step, step.line(subject));
        if (step.part)
          for (const p of subject.parts) {
            if (found.atLeast(step.atMost)) break;
            found.take(step, step.part(p, subject));
          }
      }
      if (!found.atLeast('ask')) lineGrants(plan.lineGrants, subject, found);
  }
  if (found.best === undefined) throw new Error('the decision order has no grant for this call');
  return found.best;
}

/** The strictest answer so far (the one rule: behavior.ts's strictest, folded). */
class Found {
  best: Verdict | undefined;
  constructor(private readonly trace: string[] | undefined) {}

  take(step: Step, v: Verdict | undefined): void {
    if (v === undefined) return;
    if (this.trace) this.trace.push(`step "${step.name}": ${v.behavior} (${v.reason})`);
    this.best = stricterOf(this.best, v);
  }

  atLeast(b: Behavior): boolean {
    return this.best !== undefined && rank(this.best.behavior) >= rank(b);
  }
}

/**
 * Each part's first grant, in table order. A grant for the line as a whole (a mode) answers
 * for every part not granted yet; a line with no parts is answered by a line grant.
 */
function lineGrants(grants: readonly Step[], s: BashLine, found: Found): void {
  let pending: readonly BashPart[] = s.parts;
  let granted = false;
  for (const step of grants) {
    const whole = step.line?.(s);
    if (whole) {
      found.take(step, whole);
      return;
    }
    if (step.part === undefined) continue;
    const rest: BashPart[] = [];
    for (const p of pending) {
      const v = step.part(p, s);
      if (v) {
        granted = true;
        found.take(step, v);
      } else rest.push(p);
    }
    pending = rest;
    if (pending.length === 0 && granted) return;
  }
}

/** The table's steps that apply in a mode, for each kind of subject, in order. */
interface Plan {
  readonly invalid: readonly Step[];
  readonly tool: readonly Step[];
  readonly line: readonly Step[];
  readonly toolGrants: readonly Step[];
  readonly lineGrants: readonly Step[];
}

// Computed once per table and mode; the last table is kept at hand (there is one in use).
let lastTable: readonly Step[] | undefined;
let lastPlans = new Map<Mode, Plan>();

function planOf(table: readonly Step[], mode: Mode): Plan {
  if (table !== lastTable) {
    lastTable = table;
    lastPlans = new Map();
  }
  let plan = lastPlans.get(mode);
  if (plan === undefined) {
    const steps = table.filter((s) => !s.notIn?.includes(mode) && (s.onlyIn?.includes(mode) ?? true));
    const restrict = steps.filter((s) => s.kind === 'restrict');
    const grant = steps.filter((s) => s.kind === 'grant');
    plan = {
      invalid: restrict.filter((s) => s.invalid),
      tool: restrict.filter((s) => s.tool),
      line: restrict.filter((s) => s.line || s.part),
      toolGrants: grant.filter((s) => s.tool),
      lineGrants: grant.filter((s) => s.line || s.part),
    };
    lastPlans.set(mode, plan);
  }
  return plan;
}
