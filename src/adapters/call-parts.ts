import { strictest } from '../policy/behavior.js';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import type { CallPart } from './hook-protocol.js';

export interface DecidedPart {
  readonly request: ToolRequest;
  readonly decision: Decision;
}

/**
 * An agent call of several parts (Codex's apply_patch: one per file) decided part by part with
 * the same policy, and answered with the strictest: one denied file denies the whole call, one
 * asked file asks. The reason names the part that decided, so the model and the person see which
 * file it was. Every part's own decision is kept for the log.
 */
export async function decideParts(
  parts: readonly CallPart[],
  decideOne: (request: ToolRequest) => Promise<Decision>,
): Promise<{ decision: Decision; decided: readonly DecidedPart[] }> {
  if (parts.length === 0) throw new Error('a call of no parts cannot be decided');
  const decided: (DecidedPart & { label?: string })[] = [];
  for (const part of parts) {
    const decision = await decideOne(part.request);
    decided.push({
      request: part.request,
      decision,
      ...(part.label === undefined ? {} : { label: part.label }),
    });
  }
  const worst = strictest(decided.map((d) => ({ behavior: d.decision.behavior, part: d })))!.part;
  const decision =
    worst.label === undefined
      ? worst.decision
      : { ...worst.decision, reason: `${worst.label}: ${worst.decision.reason}` };
  return { decision, decided: decided.map(({ request, decision }) => ({ request, decision })) };
}
