import path from 'node:path';
import type { Decision } from '../policy/decision.js';
import { type Mode, parseMode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';
import { codexShaped } from './codex-marks.js';
import { type HookProtocol, readHookPayload, sentAs } from './hook-protocol.js';

/**
 * Claude Code's hook protocols, PreToolUse and PermissionRequest: the hook JSON Claude Code sends
 * on stdin (or POSTs to an http hook), turned into a ToolRequest; and a Decision turned into the
 * JSON it reads back. Both are entries of the hook protocol registry (hook-protocols.ts).
 * Claude Code treats a failed hook as "proceed", so the caller must turn every error into a
 * block (exit 2, or a deny for http hooks): this module only reports errors as values.
 */
export interface HookInput {
  readonly session_id?: string;
  readonly transcript_path?: string;
  readonly cwd: string;
  readonly permission_mode?: string;
  readonly hook_event_name: string;
  readonly tool_name: string;
  readonly tool_input: unknown;
  readonly tool_use_id?: string;
  readonly agent_id?: string;
  readonly agent_type?: string;
}

export type ParsedHook =
  | { ok: true; event: ClaudeHookEvent; request: ToolRequest; toolUseId?: string }
  | { ok: false; error: string };

export type ClaudeHookEvent = 'PreToolUse' | 'PermissionRequest';

/** Claude Code's hook JSON, PreToolUse or PermissionRequest; any other payload is an error. */
export function parseHookInput(text: string): ParsedHook {
  const read = readHookPayload(text, CLAUDE_PROTOCOLS);
  if (!read.ok) return { ok: false, error: read.error };
  const event = read.protocol === claudePermissionRequest ? 'PermissionRequest' : 'PreToolUse';
  const toolUseId = read.payload.tool_use_id;
  return {
    ok: true,
    event,
    request: read.request,
    ...(typeof toolUseId === 'string' ? { toolUseId } : {}),
  };
}

/** The fields both events carry, read the same way (PermissionRequest has no tool_use_id). */
function claudeRequest(h: Readonly<Partial<HookInput>>): ToolRequest | string {
  if (typeof h.tool_name !== 'string' || h.tool_name === '') return 'hook input has no tool_name';
  if (typeof h.cwd !== 'string' || !path.isAbsolute(h.cwd)) return 'hook input has no absolute cwd';
  if (h.tool_input === undefined || h.tool_input === null || typeof h.tool_input !== 'object')
    return 'hook input has no tool_input object';
  return {
    tool: h.tool_name,
    input: h.tool_input,
    cwd: h.cwd,
    mode: hookMode(h.permission_mode),
    ...(typeof h.session_id === 'string' ? { sessionId: h.session_id } : {}),
    ...(typeof h.agent_id === 'string' ? { agentId: h.agent_id } : {}),
  };
}

/**
 * PreToolUse: before every call. Claude Code reads exit 2 as "block"; the answer's `ask` shows
 * its dialog (or, headless, denies), but cannot lift an ask or deny rule of Claude Code's own.
 */
export const claudePreToolUse: HookProtocol = {
  name: 'claude-code/PreToolUse',
  // not Codex's Claude-shaped payload (codex-marks.ts)
  recognises: (p) => p.hook_event_name === 'PreToolUse' && !codexShaped(p),
  request: claudeRequest,
  answer: (decision) => ({ output: hookOutput(decision), sent: sentAs(decision.behavior) }),
  rewritten: (decision, input) => ({
    output: hookOutput(decision, { ...input }),
    sent: sentAs(decision.behavior, true),
  }),
  block: () => 'exit',
  httpBlock: (reason) => hookFailure(reason),
};

/**
 * PermissionRequest: when Claude Code would show a permission dialog (a rule of its own asks,
 * or headless it would deny). toolgate's allow and deny answer the dialog; its ask says nothing,
 * so the dialog shows as it would have. Exit 2 is not honoured for this event, so a failure
 * answers with a deny.
 */
export const claudePermissionRequest: HookProtocol = {
  name: 'claude-code/PermissionRequest',
  // not Codex's, which has the same event name and shape (codex-marks.ts)
  recognises: (p) => p.hook_event_name === 'PermissionRequest' && !codexShaped(p),
  request: claudeRequest,
  answer: (decision) =>
    decision.behavior === 'ask'
      ? { sent: sentAs('none') }
      : {
          output: permissionRequestOutput(decision.behavior, reasonOf(decision)),
          sent: sentAs(decision.behavior),
        },
  block: (reason) => ({
    output: permissionRequestOutput('deny', blockedReason(reason)),
    sent: sentAs('deny'),
  }),
  httpBlock: (reason) => permissionRequestOutput('deny', blockedReason(reason)),
};

export const CLAUDE_PROTOCOLS: readonly HookProtocol[] = [claudePreToolUse, claudePermissionRequest];

export interface PermissionRequestOutput {
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest';
    decision: { behavior: 'allow' | 'deny'; message?: string };
  };
}

export function permissionRequestOutput(
  behavior: 'allow' | 'deny',
  message: string,
): PermissionRequestOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PermissionRequest',
      decision: behavior === 'deny' ? { behavior, message } : { behavior },
    },
  };
}

/**
 * Claude Code's permission_mode -> toolgate's mode. A mode toolgate does not know is passed on
 * as it is, and decide() denies under it: a new mode may be stricter than any known one.
 */
export function hookMode(permissionMode: string | undefined): Mode {
  if (permissionMode === undefined) return 'default';
  return parseMode(permissionMode) ?? (permissionMode as Mode);
}

export interface HookOutput {
  hookSpecificOutput: {
    hookEventName: 'PreToolUse';
    permissionDecision: 'allow' | 'deny' | 'ask';
    permissionDecisionReason: string;
    /** The whole tool input Claude Code runs instead (enforcement: the jailed command). */
    updatedInput?: Record<string, unknown>;
  };
}

export function hookOutput(decision: Decision, updatedInput?: Record<string, unknown>): HookOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision.behavior,
      permissionDecisionReason: reasonOf(decision),
      ...(updatedInput && decision.behavior !== 'deny' ? { updatedInput } : {}),
    },
  };
}

/** The reason the agent sees: toolgate's sentence, and on allow and ask the rule that decided. */
export function reasonOf(decision: Decision): string {
  const rule = decision.rule
    ? ` [${decision.rule.text}${decision.rule.line === undefined ? '' : ` @ ${decision.rule.source}:${decision.rule.line}`}]`
    : '';
  return `toolgate: ${decision.reason}${decision.behavior === 'deny' ? '' : rule}`;
}

export function blockedReason(reason: string): string {
  return `toolgate could not decide, so the call is blocked: ${reason}`;
}

/** For http hooks, which cannot block with a status code: a deny that says why. */
export function hookFailure(reason: string): HookOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: blockedReason(reason),
    },
  };
}
