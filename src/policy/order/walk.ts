import type { BashPart } from '../bash-parts.js';
import { type Behavior, rank, strictest } from '../behavior.js';
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
  readonly invalid?: (call: InvalidCall) => Verdict | undefined;
  readonly tool?: (call: ToolCall) => Verdict | undefined;
  readonly line?: (line: BashLine) => Verdict | undefined;
  readonly part?: (part: BashPart, line: BashLine) => Verdict | undefined;
}

/** What the walk found: the answer, and the step that gave it. */
export interface Walked {
  readonly verdict: Verdict;
  readonly step: string;
}

type Found = Verdict & { readonly step: string };

/**
 * The one interpreter of the decision order: the strictest answer of all restricting steps
 * and of each subject's first grant; on a tie the earlier step (then the earlier part) gives
 * the reason. So a deny anywhere wins, an ask anywhere asks, and a call is allowed only when
 * nothing restricts it and every part of it is granted.
 */
export function walk(table: readonly Step[], subject: Subject, trace?: string[]): Walked {
  let best: Found | undefined;
  const note = (step: Step, v: Verdict | undefined): void => {
    if (v === undefined) return;
    if (trace) trace.push(`step "${step.name}": ${v.behavior} (${v.reason})`);
    best = strictest([best, { ...v, step: step.name }]);
  };
  for (const step of table) {
    if (step.kind !== 'restrict' || step.notIn?.includes(subject.mode)) continue;
    // Nothing stricter than what is already found can come from this step.
    if (best && rank(step.atMost) <= rank(best.behavior)) continue;
    for (const v of answers(step, subject)) {
      note(step, v);
      if (best && rank(best.behavior) >= rank(step.atMost)) break;
    }
    if (best?.behavior === 'deny') return found(best);
  }
  // A grant is allow or ask: it cannot beat an ask already found (a tie goes to the earlier).
  if (best && rank(best.behavior) >= rank('ask')) return found(best);
  for (const [step, v] of grants(table, subject)) note(step, v);
  if (best === undefined) throw new Error('the decision order has no grant for this call');
  return found(best);
}

function found(f: Found): Walked {
  const { step, ...verdict } = f;
  return { verdict, step };
}

function* answers(step: Step, s: Subject): Generator<Verdict | undefined> {
  switch (s.kind) {
    case 'invalid':
      yield step.invalid?.(s);
      return;
    case 'tool':
      yield step.tool?.(s);
      return;
    case 'bash':
      yield step.line?.(s);
      if (step.part) for (const p of s.parts) yield step.part(p, s);
  }
}

/**
 * Each subject's first grant, in table order. A grant for a Bash line as a whole (a mode)
 * answers for every part not granted yet; a line with no parts is answered by a line grant.
 */
function* grants(table: readonly Step[], s: Subject): Generator<[Step, Verdict]> {
  if (s.kind === 'invalid') return;
  let pending: readonly BashPart[] | undefined = s.kind === 'bash' ? s.parts : undefined;
  let open = true;
  for (const step of table) {
    if (step.kind !== 'grant' || step.notIn?.includes(s.mode)) continue;
    if (s.kind === 'tool') {
      const v = step.tool?.(s);
      if (v) return yield [step, v];
      continue;
    }
    const whole = step.line?.(s);
    if (whole) return yield [step, whole];
    if (!step.part || pending === undefined) continue;
    const rest: BashPart[] = [];
    for (const p of pending) {
      const v = step.part(p, s);
      if (v) {
        open = false;
        yield [step, v];
      } else rest.push(p);
    }
    pending = rest;
    if (pending.length === 0 && !open) return;
  }
}
