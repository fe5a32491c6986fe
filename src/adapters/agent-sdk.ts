import fs from 'node:fs';
import path from 'node:path';
import type { DecisionLog } from '../audit/log.js';
import { packageRoot } from '../package-root.js';
import type { AutoClassifier } from '../policy/auto.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Decision } from '../policy/decision.js';
import type { Mode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';
import { canonicalToolName } from '../policy/rule.js';
import { claudePreToolUse, type HookOutput, hookFailure, hookOutput } from './claude-hook.js';

/**
 * The Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`, `query()`), guarded in process. The
 * SDK offers two places to decide, and a guard needs both:
 * - a PreToolUse hook callback, called before EVERY tool call. `canUseTool` alone is not a guard:
 *   the SDK never calls it for a call Claude Code allows by itself (a read-only `ls` ran with a
 *   deny-everything canUseTool, observed on 0.3.333), so the hook is where toolgate decides.
 * - `canUseTool`, called when Claude Code would show a permission dialog: for a call its own
 *   rules ask about even after the hook allowed it, or one the hook answered `ask`. It answers
 *   with the hook's decision for that call (or decides afresh) and hands asks to `onAsk`, a
 *   person, if there is one; else they are denied.
 * Both fail closed: any error inside them becomes a deny with the reason, and the hook matcher
 * carries `onFailure: 'block'` so that a callback that throws anyway blocks the call.
 *
 * The SDK's types are restated structurally here so that toolgate does not depend on the SDK.
 */
export const AGENT_SDK = 'claude-agent-sdk';

/** What the SDK passes a hook callback (its HookInput: every event carries hook_event_name). */
export interface AgentSdkHookInput {
  readonly hook_event_name: string;
}

export type AgentSdkHookCallback = (
  input: AgentSdkHookInput,
  toolUseID: string | undefined,
  options: { signal: AbortSignal },
) => Promise<HookOutput | { decision: 'block'; reason: string }>;

export interface AgentSdkHookMatcher {
  matcher?: string;
  hooks: AgentSdkHookCallback[];
  onFailure: 'block';
}

export type AgentSdkPermissionResult =
  | { behavior: 'allow'; updatedInput: Record<string, unknown> }
  | { behavior: 'deny'; message: string };

export type AgentSdkCanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: { signal: AbortSignal; toolUseID?: string; agentID?: string },
) => Promise<AgentSdkPermissionResult>;

export interface AgentSdkGuardOptions {
  /** The directory `canUseTool` decides in (it is not told one): pass the `cwd` given to query(). Default: process.cwd(). */
  readonly cwd?: string;
  /** Decide under this mode instead of the permission_mode the SDK reports. canUseTool alone: default. */
  readonly mode?: Mode;
  /** Every decision is appended here; a decision that cannot be logged is a deny. */
  readonly log?: DecisionLog;
  /** Auto mode's judge (the policy's offline classifier when absent). */
  readonly classifier?: AutoClassifier;
  /**
   * Run allowed and asked Bash calls inside `toolgate jail` (as `toolgate hook --enforce`):
   * their command is rewritten to the jailed form. Needs the built CLI (dist/cli/main.js), a
   * policy loaded from files (the jail decides again under the same files) and bubblewrap;
   * without them such a call is asked, never run unjailed.
   */
  readonly enforce?: boolean;
  /** Who answers an ask: a person. Without one an ask is denied with its reason. */
  readonly onAsk?: AgentSdkCanUseTool;
  /** The SDK's version, for the decision log (the SDK does not tell its callbacks). */
  readonly agentVersion?: string;
}

/** What toolgate answered for one call: the hook's answer, kept for canUseTool's dialog. */
interface Answered {
  readonly request: ToolRequest;
  /** allow / ask / deny with the reason the model reads, and the input to run (jailed under enforce). */
  readonly answer: HookOutput['hookSpecificOutput'];
}

/**
 * The hook's answers by tool_use id, until canUseTool asks for one. Most calls never reach
 * canUseTool, so only the latest are kept: a call whose answer was dropped is decided afresh.
 */
class Answers {
  private readonly byId = new Map<string, Answered>();
  set(id: string, answered: Answered): void {
    this.byId.delete(id);
    this.byId.set(id, answered);
    if (this.byId.size > 256) this.byId.delete(this.byId.keys().next().value as string);
  }
  take(id: string): Answered | undefined {
    const answered = this.byId.get(id);
    this.byId.delete(id);
    return answered;
  }
}

/** The hook callback and canUseTool together, sharing what the hook decided for each call. */
export interface AgentSdkGuard {
  readonly canUseTool: AgentSdkCanUseTool;
  readonly hooks: { PreToolUse: AgentSdkHookMatcher[] };
}

/**
 * `query({ prompt, options: { cwd, ...agentSdkGuard(policy, { cwd }) } })`: the PreToolUse hook
 * decides every call; canUseTool answers the dialogs Claude Code would show for them.
 */
export function agentSdkGuard(policy: CompiledPolicy, options: AgentSdkGuardOptions = {}): AgentSdkGuard {
  const byToolUse = new Answers();
  const hook = hookWith(policy, options, byToolUse);
  return {
    canUseTool: canUseToolWith(policy, options, byToolUse),
    hooks: { PreToolUse: [{ hooks: [hook], onFailure: 'block' }] },
  };
}

/** The PreToolUse hook callback alone (register it with `onFailure: 'block'`). */
export function preToolUseHookFrom(
  policy: CompiledPolicy,
  options: AgentSdkGuardOptions = {},
): AgentSdkHookCallback {
  return hookWith(policy, options, undefined);
}

function hookWith(
  policy: CompiledPolicy,
  options: AgentSdkGuardOptions,
  shared: Answers | undefined,
): AgentSdkHookCallback {
  return async (input, toolUseID) => {
    try {
      if (input.hook_event_name !== 'PreToolUse')
        return {
          decision: 'block',
          reason: `toolgate's PreToolUse callback got a ${String(input.hook_event_name).slice(0, 80)} event; blocked`,
        };
      const read = claudePreToolUse.request(input as unknown as Readonly<Record<string, unknown>>);
      if (typeof read === 'string') return hookFailure(read);
      const request = options.mode ? { ...read, mode: options.mode } : read;
      const output = await answerFor(request, policy, options);
      if (shared && toolUseID !== undefined)
        shared.set(toolUseID, { request, answer: output.hookSpecificOutput });
      return output;
    } catch (err) {
      return hookFailure(`internal error: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

/**
 * canUseTool alone. Not a guard by itself (see above): Claude Code does not ask it about the
 * calls it allows on its own. Use it with the hook callback, or `agentSdkGuard`.
 */
export function canUseToolFrom(
  policy: CompiledPolicy,
  options: AgentSdkGuardOptions = {},
): AgentSdkCanUseTool {
  return canUseToolWith(policy, options, undefined);
}

function canUseToolWith(
  policy: CompiledPolicy,
  options: AgentSdkGuardOptions,
  shared: Answers | undefined,
): AgentSdkCanUseTool {
  return async (toolName, input, sdk) => {
    try {
      const earlier = sdk.toolUseID === undefined ? undefined : shared?.take(sdk.toolUseID);
      // The hook's own answer for this call (the SDK may show the jailed input it was given).
      let answered: Answered;
      if (
        earlier &&
        (sameJson(earlier.request.input, input) || sameJson(earlier.answer.updatedInput, input))
      ) {
        answered = earlier;
      } else {
        const request: ToolRequest = {
          tool: toolName,
          input,
          cwd: path.resolve(options.cwd ?? process.cwd()),
          mode: options.mode ?? 'default',
          ...(sdk.agentID !== undefined ? { agentId: sdk.agentID } : {}),
        };
        answered = { request, answer: (await answerFor(request, policy, options)).hookSpecificOutput };
      }
      const { answer } = answered;
      const runs = answer.updatedInput ?? (answered.request.input as Record<string, unknown>);
      if (answer.permissionDecision === 'allow') return { behavior: 'allow', updatedInput: runs };
      if (answer.permissionDecision === 'deny')
        return { behavior: 'deny', message: answer.permissionDecisionReason };
      if (options.onAsk === undefined)
        return {
          behavior: 'deny',
          message: `${answer.permissionDecisionReason} (this needs a person's approval, and no one was given to ask: canUseTool's onAsk)`,
        };
      const person = await options.onAsk(toolName, answered.request.input as Record<string, unknown>, sdk);
      // What the person approved is the call toolgate decided: an edited input would be a call
      // nobody decided, so it is not taken; under enforce it runs jailed.
      return person.behavior === 'allow' ? { behavior: 'allow', updatedInput: runs } : person;
    } catch (err) {
      return {
        behavior: 'deny',
        message: `toolgate could not decide, so the call is denied: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
  };
}

/** Decided, logged, and answered as Claude Code's PreToolUse reads it (jailed under enforce). */
async function answerFor(
  request: ToolRequest,
  policy: CompiledPolicy,
  options: AgentSdkGuardOptions,
): Promise<HookOutput> {
  const { decideWithClassifier } = await import('../policy/auto.js');
  const { nodeFileSystem } = await import('../policy/fs-view.js');
  const decision = await decideWithClassifier(request, policy, {
    fs: nodeFileSystem(),
    ...(options.classifier ? { classifier: options.classifier } : {}),
  });
  // A decision that cannot be recorded is not given: the error reaches the caller's catch (deny).
  await options.log?.append({
    request,
    decision,
    agent: { name: AGENT_SDK, ...(options.agentVersion ? { version: options.agentVersion } : {}) },
  });
  return options.enforce === true ? enforced(decision, request, policy) : hookOutput(decision);
}

/** The hook answer under enforce: Bash allowed or asked runs inside `toolgate jail`. */
async function enforced(
  decision: Decision,
  request: ToolRequest,
  policy: CompiledPolicy,
): Promise<HookOutput> {
  if (decision.behavior === 'deny' || canonicalToolName(request.tool) !== 'Bash') return hookOutput(decision);
  const cli = path.join(packageRoot(), 'dist', 'cli', 'main.js');
  const files = jailPolicyFiles(policy);
  const why = !fs.existsSync(cli)
    ? `toolgate's CLI is not built (${cli})`
    : typeof files === 'string'
      ? files
      : undefined;
  if (why !== undefined || typeof files === 'string')
    return hookOutput({
      ...decision,
      behavior: 'ask',
      reason: `${decision.reason}; but it cannot run in the jail (${why}), so a person must approve it running unjailed`,
    });
  const { enforcedAnswer } = await import('../cli/hook-enforce.js');
  const answer = await enforcedAnswer(
    { ...claudePreToolUse, rewritten: claudePreToolUse.rewritten! },
    decision,
    request,
    files,
    { cwd: request.cwd },
    {},
    [process.execPath, cli],
  );
  return answer.output as HookOutput;
}

/**
 * The `--policy` files the jail decides under: the policy's own files given by name (its `cli`
 * layer). The other layers (managed, project, user, the default) the jail discovers itself, as
 * loadPolicy() did. A policy made from text has no file the jail could read: it cannot be enforced.
 */
function jailPolicyFiles(policy: CompiledPolicy): string[] | string {
  const named = policy.files.filter((f) => f.layer === 'cli' && !f.source.startsWith('builtin:'));
  const unreadable = named.find((f) => !path.isAbsolute(f.source) || !fs.existsSync(f.source));
  if (unreadable) return `the policy "${unreadable.source}" is not a file the jail can read`;
  return [...new Set(named.map((f) => f.source))];
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return a !== undefined && JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}
