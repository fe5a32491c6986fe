import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import type { ToolUseContext } from './context.js';
import { describeError, failure, type ToolFailure } from './failure.js';

/**
 * Every decision goes to the decision log, when the session has one, before the call runs. A
 * decision that cannot be recorded is a call that does not run: an audit trail with holes in
 * it would be worse than a refused call.
 */
export /** Appends the decision to the log; a failure to record stops the call (returns why). */
async function recordDecision(
  ctx: ToolUseContext,
  request: ToolRequest,
  decision: Decision,
): Promise<ToolFailure | undefined> {
  const log = ctx.options.decisionLog;
  if (!log) return undefined;
  try {
    await log.append({ request, decision });
    return undefined;
  } catch (err) {
    return failure(
      'log-failed',
      `The decision could not be recorded in the decision log (${describeError(err)}), so the call did not run.`,
    );
  }
}
