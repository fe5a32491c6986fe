import { analyzeBash } from '../bash/classify.js';
import { decideWithClassifier, offlineClassifier } from '../policy/auto.js';
import { decide } from '../policy/decide.js';
import type { Decision } from '../policy/decision.js';
import { nodeFileSystem } from '../policy/fs-view.js';
import type { SandboxProfile } from '../policy/obligations.js';
import { sandboxProfile } from '../policy/profile.js';
import type { ToolRequest } from '../policy/request.js';
import { toolInfo } from '../policy/tools.js';
import { workspaceFor } from '../policy/workspace.js';
import type { ToolUseContext } from './context.js';
import type { PreHookVerdict } from './hooks.js';
import type { PermissionCheck } from './tool.js';

/**
 * How hooks, the tool's own check and the policy combine into one decision. The exact order
 * (Claude Code's, research notes §3 "Agent SDK evaluation order" and §4.3):
 *
 *  1. PreToolUse hooks have run (and any `updatedInput` is already the call's input).
 *  2. The policy decides on that input: decide(request) with the call's cwd and mode.
 *  3. A hook deny -> deny. Nothing lifts it.
 *  4. A policy deny -> deny, whatever the hooks said (a hook allow or ask never beats a deny
 *     rule). One exception from dontAsk mode: there a hook allow is a pre-approval, so a call
 *     the policy denied *only* because dontAsk turns asks into denies (no rule, no guard) is
 *     allowed, exactly as in step 7.
 *  5. The tool's own checkPermissions: deny -> deny; ask -> at least ask.
 *  6. A hook ask (or defer, which toolgate cannot pause for) -> at least ask.
 *  7. A hook allow turns a policy ask into allow only when the ask came from the default
 *     (no ask rule matched, no guard fired, the tool's own check did not ask).
 *  8. What still asks: dontAsk -> deny. auto -> the classifier; for an ask forced by a hook
 *     or by the tool's check, the classifier may deny but never approve.
 *  9. (run-tool-use) Anything still asking goes to canUseTool.
 *
 * Every allow carries the sandbox profile the call runs under.
 */
export async function decidePermission(
  request: ToolRequest,
  ctx: ToolUseContext,
  hook: PreHookVerdict,
  check: PermissionCheck,
): Promise<Decision> {
  const { policy, fs } = ctx.permission;
  const options = fs ? { fs } : {};
  const base = decide(request, policy, options);
  const mode = base.mode;
  const hookReason = hook.reason ? `: ${hook.reason}` : '';

  if (hook.permission === 'deny') {
    return withBehavior(base, 'deny', 'hook', `Blocked by a PreToolUse hook${hookReason}`);
  }
  if (base.behavior === 'deny') {
    if (
      base.dontAskDenied &&
      base.decidedBy === 'default' &&
      hook.permission === 'allow' &&
      check.behavior === 'passthrough'
    ) {
      return allowByHook(base, request, ctx, hookReason);
    }
    return base;
  }
  if (check.behavior === 'deny') return withBehavior(base, 'deny', 'guard', check.message);

  let decision = base;
  let forced = false;
  if (check.behavior === 'ask') {
    forced = true;
    decision = withBehavior(decision, 'ask', 'guard', check.message);
  }
  if (hook.permission === 'ask' || hook.permission === 'defer') {
    forced = true;
    if (decision.behavior === 'allow') {
      decision = withBehavior(decision, 'ask', 'hook', `A PreToolUse hook asks for approval${hookReason}`);
    }
  }
  if (decision.behavior === 'allow') return decision;

  if (hook.permission === 'allow' && !forced && decision.decidedBy === 'default') {
    return allowByHook(decision, request, ctx, hookReason);
  }
  if (mode === 'dontAsk') {
    return withBehavior(
      decision,
      'deny',
      decision.decidedBy,
      `${decision.reason} (dontAsk mode denies what would need approval)`,
    );
  }
  if (mode !== 'auto') return decision;

  const classifier = ctx.permission.classifier ?? offlineClassifier;
  if (!forced) {
    const classified = await decideWithClassifier(request, policy, { ...options, classifier });
    if (classified.behavior === 'allow' && classified.sandbox === undefined) {
      classified.sandbox = approvedProfile(request, ctx);
    }
    return classified;
  }
  let verdict: { behavior: 'allow' | 'deny'; reason: string };
  try {
    verdict = await classifier.classify(request, decision);
  } catch (err) {
    verdict = { behavior: 'deny', reason: `Blocked: the classifier failed (${(err as Error).message})` };
  }
  return verdict.behavior === 'deny'
    ? withBehavior(decision, 'deny', 'classifier', verdict.reason)
    : decision;
}

/**
 * The limits for a call the policy did not allow by itself but a hook, the classifier or a
 * person approved. First choice: what the policy attaches when no mode stands in the way
 * (bypass); when an ask rule or a guard holds even there, the same computation directly,
 * with network access only for tools whose job is the network.
 */
export function approvedProfile(request: ToolRequest, ctx: ToolUseContext): SandboxProfile {
  const { policy } = ctx.permission;
  const fs = ctx.permission.fs ?? nodeFileSystem();
  const bypass = decide({ ...request, mode: 'bypassPermissions' }, policy, { fs });
  if (bypass.sandbox) return bypass.sandbox;
  const workspace = workspaceFor(request.cwd, policy, fs);
  return sandboxProfile(policy, request, workspace, needsNetwork(request), fs.home);
}

function needsNetwork(request: ToolRequest): boolean {
  const cls = toolInfo(request.tool).class;
  if (cls === 'fetch' || cls === 'network') return true;
  if (cls !== 'shell') return false;
  const command = (request.input as { command?: unknown } | undefined)?.command;
  return typeof command === 'string' && analyzeBash(command).reports.some((r) => r.network);
}

function allowByHook(
  base: Decision,
  request: ToolRequest,
  ctx: ToolUseContext,
  hookReason: string,
): Decision {
  const out = withBehavior(base, 'allow', 'hook', `Allowed by a PreToolUse hook${hookReason}`);
  out.sandbox = base.sandbox ?? approvedProfile(request, ctx);
  return out;
}

export function withBehavior(
  base: Decision,
  behavior: Decision['behavior'],
  decidedBy: Decision['decidedBy'],
  reason: string,
): Decision {
  const out: Decision = { ...base, behavior, decidedBy, reason };
  if (decidedBy !== base.decidedBy) delete out.rule;
  // An ask keeps the limits an approval would run it under; a deny runs nothing.
  if (behavior === 'deny') {
    delete out.sandbox;
    delete out.dontAskDenied;
  }
  return out;
}
