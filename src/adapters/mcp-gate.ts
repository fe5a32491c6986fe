import type { DecisionSink } from '../pipeline/context.js';
import { type AutoClassifier, decideWithClassifier } from '../policy/auto.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Decision } from '../policy/decision.js';
import type { Mode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';

/**
 * The MCP proxy's decision for one call. A proxy has no person to ask, so an `ask` becomes a
 * deny unless the proxy was started with `--ask allow` (then the caller is trusted to ask its
 * own user, as Claude Code does for MCP tools). Every final decision is logged before anything
 * is forwarded; a decision that cannot be logged, or a decision that cannot be made, stops the
 * call: the real server only ever sees calls that were allowed and recorded.
 */
export type AskHandling = 'deny' | 'allow';

export interface GateOptions {
  readonly policy: CompiledPolicy;
  /** The working directory decisions are made for (the proxy's cwd). */
  readonly cwd: string;
  /** Overrides the policy's mode. */
  readonly mode?: Mode;
  /** What an `ask` becomes (default: deny). */
  readonly ask?: AskHandling;
  readonly decisionLog?: DecisionSink;
  /** auto mode's classifier (default: the offline one). */
  readonly classifier?: AutoClassifier;
}

export type GateVerdict =
  | { readonly allowed: true; readonly decision: Decision }
  /** `message` is for the model: why the call did not run and what to do instead. */
  | { readonly allowed: false; readonly decision?: Decision; readonly message: string };

export async function gate(tool: string, input: unknown, options: GateOptions): Promise<GateVerdict> {
  const request: ToolRequest = {
    tool,
    input,
    cwd: options.cwd,
    ...(options.mode ? { mode: options.mode } : {}),
  };
  let decision: Decision;
  try {
    decision = await decideWithClassifier(
      request,
      options.policy,
      options.classifier ? { classifier: options.classifier } : {},
    );
  } catch (err) {
    return {
      allowed: false,
      message: `toolgate could not decide on ${tool}, so it did not run: ${text(err)}`,
    };
  }
  if (decision.behavior === 'ask') decision = settleAsk(decision, options.ask ?? 'deny');
  if (options.decisionLog) {
    try {
      await options.decisionLog.append({ request, decision });
    } catch (err) {
      return {
        allowed: false,
        decision,
        message: `toolgate could not record its decision on ${tool} in the decision log (${text(err)}), so the call did not run.`,
      };
    }
  }
  if (decision.behavior === 'allow') return { allowed: true, decision };
  return { allowed: false, decision, message: denialMessage(tool, decision) };
}

function settleAsk(decision: Decision, ask: AskHandling): Decision {
  // The rule (or default) that asked still explains the decision; only the behavior changes.
  return ask === 'allow'
    ? {
        ...decision,
        behavior: 'allow',
        reason: `${decision.reason} (approved without asking: the proxy runs with --ask allow)`,
      }
    : {
        ...decision,
        behavior: 'deny',
        reason: `${decision.reason}; it needs approval, and the MCP proxy has no one to ask, so it is denied`,
      };
}

/** What the model reads in the tool result (a rule's reason already names the rule and its file). */
export function denialMessage(tool: string, d: Decision): string {
  return `toolgate denied ${tool}: ${d.reason}. The call did not run; do not retry it unchanged.`;
}

function text(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
