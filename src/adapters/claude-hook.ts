import path from 'node:path';
import type { Decision } from '../policy/decision.js';
import { type Mode, parseMode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';

/**
 * Claude Code's PreToolUse hook protocol: the hook JSON Claude Code sends on stdin (or POSTs to
 * an http hook), turned into a ToolRequest; and a Decision turned into the JSON it reads back.
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
  | { ok: true; event: 'PreToolUse'; request: ToolRequest; toolUseId?: string }
  /** Another event: toolgate has no opinion and says nothing. */
  | { ok: true; event: 'other'; name: string }
  | { ok: false; error: string };

export function parseHookInput(text: string): ParsedHook {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return {
      ok: false,
      error: `hook input is not JSON: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return { ok: false, error: 'hook input must be a JSON object' };
  const h = data as Partial<HookInput>;
  if (typeof h.hook_event_name !== 'string') return { ok: false, error: 'hook input has no hook_event_name' };
  if (h.hook_event_name !== 'PreToolUse') return { ok: true, event: 'other', name: h.hook_event_name };
  if (typeof h.tool_name !== 'string' || h.tool_name === '')
    return { ok: false, error: 'hook input has no tool_name' };
  if (typeof h.cwd !== 'string' || !path.isAbsolute(h.cwd))
    return { ok: false, error: 'hook input has no absolute cwd' };
  if (h.tool_input === undefined || h.tool_input === null || typeof h.tool_input !== 'object') {
    return { ok: false, error: 'hook input has no tool_input object' };
  }
  const request: ToolRequest = {
    tool: h.tool_name,
    input: h.tool_input,
    cwd: h.cwd,
    mode: hookMode(h.permission_mode),
    ...(typeof h.session_id === 'string' ? { sessionId: h.session_id } : {}),
    ...(typeof h.agent_id === 'string' ? { agentId: h.agent_id } : {}),
  };
  return {
    ok: true,
    event: 'PreToolUse',
    request,
    ...(typeof h.tool_use_id === 'string' ? { toolUseId: h.tool_use_id } : {}),
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
  };
}

export function hookOutput(decision: Decision): HookOutput {
  const rule = decision.rule
    ? ` [${decision.rule.text}${decision.rule.line === undefined ? '' : ` @ ${decision.rule.source}:${decision.rule.line}`}]`
    : '';
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: decision.behavior,
      permissionDecisionReason: `toolgate: ${decision.reason}${decision.behavior === 'deny' ? '' : rule}`,
    },
  };
}

/** For http hooks, which cannot block with a status code: a deny that says why. */
export function hookFailure(reason: string): HookOutput {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: `toolgate could not decide, so the call is blocked: ${reason}`,
    },
  };
}
