import { decide } from '../policy/decide.js';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import type { ToolUseContext } from './context.js';
import { failure, type ToolFailure } from './failure.js';
import { checkInput } from './input.js';
import { approvedProfile, withBehavior } from './permission.js';
import type { AnyTool, CanUseTool } from './tool.js';

/**
 * Step 9 of the permission order: a call the policy leaves asking goes to canUseTool (a
 * prompt on a terminal; a structured denial when nobody can be asked). An approval may come
 * with an edited input; that input is checked again (schema, validateInput) and decided again,
 * and a deny for the edited input still denies: a person can approve a call, not a deny rule
 * away.
 *
 * The answer is recorded as decidedBy 'user': a person, or whatever stands in for one behind
 * the SDK's canUseTool callback.
 */
export type Approval =
  | { ok: true; decision: Decision; input: unknown; observable: Record<string, unknown> }
  | { ok: false; decision: Decision; failure: ToolFailure };

export async function askForApproval(
  tool: AnyTool,
  request: ToolRequest,
  asked: Decision,
  current: { input: unknown; observable: Record<string, unknown> },
  ctx: ToolUseContext,
  canUseTool: CanUseTool,
  question: { toolUseId: string; signal: AbortSignal },
): Promise<Approval> {
  let answer: Awaited<ReturnType<CanUseTool>>;
  try {
    answer = await canUseTool(tool, current.observable, ctx, { ...question, decision: asked });
  } catch (err) {
    answer = {
      behavior: 'deny',
      message: `the permission prompt failed: ${(err as Error)?.message ?? String(err)}`,
    };
  }
  if (question.signal.aborted) {
    const decision = withBehavior(asked, 'deny', 'user', 'The call was aborted while waiting for approval');
    return {
      ok: false,
      decision,
      failure: failure('aborted', 'The call was not run: the run was aborted while it waited for approval.'),
    };
  }
  if (answer.behavior !== 'allow') {
    const message = answer.message || 'approval was refused';
    const decision = withBehavior(
      asked,
      'deny',
      'user',
      `canUseTool refused it: ${message} (the policy asked: ${asked.reason})`,
    );
    return {
      ok: false,
      decision,
      failure: failure(
        'ask-refused',
        `${tool.name} needs approval and did not get it: ${message}. The policy says: ${asked.reason}. Do not retry the same call; choose another way or ask the user.`,
      ),
    };
  }
  let { input, observable } = current;
  let redecided: Decision | undefined;
  if (answer.updatedInput !== undefined) {
    const checked = await checkInput(
      tool,
      answer.updatedInput,
      ctx,
      'The input edited at the permission prompt',
    );
    if (!checked.ok)
      return {
        ok: false,
        decision: withBehavior(asked, 'deny', 'error', checked.failure.message),
        failure: checked.failure,
      };
    ({ input, observable } = checked);
    redecided = decide(
      { ...request, input: observable },
      ctx.permission.policy,
      ctx.permission.fs ? { fs: ctx.permission.fs } : {},
    );
    if (redecided.behavior === 'deny') {
      return {
        ok: false,
        decision: redecided,
        failure: failure('denied', `The edited input is denied: ${redecided.reason}`),
      };
    }
  }
  const approved = withBehavior(
    redecided ?? asked,
    'allow',
    'user',
    `Approved through canUseTool${answer.message ? ` (${answer.message})` : ''}; the policy asked: ${asked.reason}`,
  );
  approved.sandbox =
    redecided?.sandbox ?? asked.sandbox ?? approvedProfile({ ...request, input: observable }, ctx);
  return { ok: true, decision: approved, input, observable };
}
