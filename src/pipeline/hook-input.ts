import type { ToolUseContext } from './context.js';
import type { PreToolUseHookInput } from './hooks.js';

/** The common fields of Claude Code's hook input, from the session context. */
export function hookCommon(ctx: ToolUseContext) {
  return {
    session_id: ctx.permission.sessionId ?? '',
    transcript_path: '',
    cwd: ctx.permission.cwd,
    permission_mode: ctx.permission.mode,
    ...(ctx.permission.agentId ? { agent_id: ctx.permission.agentId } : {}),
  };
}

export function hookInput(
  ctx: ToolUseContext,
  tool: string,
  observable: Record<string, unknown>,
  id: string,
): PreToolUseHookInput {
  return {
    ...hookCommon(ctx),
    hook_event_name: 'PreToolUse' as const,
    tool_name: tool,
    tool_input: observable,
    tool_use_id: id,
  };
}
