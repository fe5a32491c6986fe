import type { Decision } from '../policy/decision.js';
import { blockedReason, permissionRequestOutput, reasonOf } from './claude-hook.js';
import { codexParts, codexRequest } from './codex-hook.js';
import { codexShaped } from './codex-marks.js';
import { type HookProtocol, sentAs } from './hook-protocol.js';

/**
 * Codex CLI's PermissionRequest hook: fired when Codex would ask for an approval (a command that
 * wants to leave its sandbox, under an approval policy that asks: observed with codex-cli 0.171.0
 * `exec --approve-for-me` and a `require_escalated` exec_command), before its own reviewer or the
 * person sees it. Payload (observed): `{session_id, turn_id, transcript_path, cwd,
 * hook_event_name: "PermissionRequest", model, permission_mode, tool_name: "Bash", tool_input:
 * {command, description}}`, no tool_use_id; told from Claude Code's by turn_id / model.
 *
 * What Codex honours (observed, and its binary's output schema): `{hookSpecificOutput:
 * {hookEventName: "PermissionRequest", decision: {behavior: "allow" | "deny", message}}}`: an
 * allow runs the call with the escalation it asked for, a deny rejects it and the model gets
 * the message; exit 2 rejects it with stderr as the message; no answer (or exit 1) leaves it
 * to Codex's own approval. updatedInput is refused ("fail closed if present"), so no enforced mode.
 *
 * So: a deny denies; an ask says nothing, which is exactly Codex's own approval; an allow lifts
 * Codex's sandbox for the call, so it is given only where a rule (or a mode set with --mode)
 * allows the call. A default allow is toolgate's prediction that the call only reads: that is
 * enforced by a jail elsewhere, here nothing would hold it once Codex's sandbox is lifted, so it
 * says nothing either. Codex's permission_mode is not taken (as for PreToolUse).
 */
export const codexPermissionRequest: HookProtocol = {
  name: 'codex/PermissionRequest',
  recognises: (p) => p.hook_event_name === 'PermissionRequest' && codexShaped(p),
  request: (p) => codexRequest(p, 'PermissionRequest'),
  parts: codexParts,
  answer: (decision) => {
    if (decision.behavior === 'deny')
      return { output: permissionRequestOutput('deny', reasonOf(decision)), sent: sentAs('deny') };
    return granted(decision)
      ? { output: permissionRequestOutput('allow', reasonOf(decision)), sent: sentAs('allow') }
      : { sent: sentAs('none') };
  },
  // Codex rejects the call on exit 2, with stderr as the message (observed)
  block: () => 'exit',
  httpBlock: (reason) => permissionRequestOutput('deny', blockedReason(reason)),
};

/** An allow a policy author wrote (a rule, or a mode chosen with --mode), not one toolgate predicted. */
function granted(decision: Decision): boolean {
  return decision.behavior === 'allow' && (decision.decidedBy === 'rule' || decision.decidedBy === 'mode');
}
