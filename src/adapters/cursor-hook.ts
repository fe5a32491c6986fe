import path from 'node:path';
import type { ToolRequest } from '../policy/request.js';
import { blockedReason, reasonOf } from './claude-hook.js';
import { type HookProtocol, sentAs } from './hook-protocol.js';

/**
 * Cursor's beforeShellExecution hook (https://cursor.com/docs/agent/hooks, `.cursor/hooks.json`):
 * `{hook_event_name: "beforeShellExecution", conversation_id, generation_id, workspace_roots,
 * command, cwd}` read as a Claude Code Bash call, so the same policy applies; answered with the
 * `{"permission": "allow"|"deny"|"ask", "user_message", "agent_message"}` Cursor reads. Cursor
 * treats exit 2 as a block; other failures proceed unless the hook entry has `failClosed: true`.
 */
export const cursorBeforeShellExecution: HookProtocol = {
  name: 'cursor/beforeShellExecution',
  recognises: (p) => p.hook_event_name === 'beforeShellExecution',
  request: cursorShellRequest,
  // an optional base field of every Cursor hook payload (https://cursor.com/docs/agent/hooks)
  agentVersion: (p) => (typeof p.cursor_version === 'string' ? p.cursor_version : undefined),
  answer: (decision) => ({
    output: cursorAnswer(decision.behavior, reasonOf(decision)),
    sent: sentAs(decision.behavior),
  }),
  block: () => 'exit',
  httpBlock: (reason) => cursorAnswer('deny', blockedReason(reason)),
};

export interface CursorAnswer {
  readonly permission: 'allow' | 'deny' | 'ask';
  /** Shown to the person; agent_message goes to the model. */
  readonly user_message: string;
  readonly agent_message: string;
}

export function cursorAnswer(permission: CursorAnswer['permission'], reason: string): CursorAnswer {
  return { permission, user_message: reason, agent_message: reason };
}

function cursorShellRequest(p: Readonly<Record<string, unknown>>): ToolRequest | string {
  if (typeof p.command !== 'string') return 'Cursor beforeShellExecution payload has no command';
  // cwd may be empty when the command runs at the workspace root: the first root is where it runs
  const roots = Array.isArray(p.workspace_roots) ? p.workspace_roots : [];
  const cwd = typeof p.cwd === 'string' && p.cwd !== '' ? p.cwd : roots[0];
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd))
    return 'Cursor beforeShellExecution payload has no absolute cwd or workspace root';
  return {
    tool: 'Bash',
    input: { command: p.command },
    cwd,
    // Cursor sends no permission mode: toolgate's default mode (asks stay asks)
    mode: 'default',
    ...(typeof p.conversation_id === 'string' ? { sessionId: p.conversation_id } : {}),
  };
}

/**
 * Cursor's beforeReadFile hook: `{hook_event_name: "beforeReadFile", conversation_id,
 * generation_id, workspace_roots, file_path, content, attachments}` (content is the file's text,
 * not needed to decide) read as a Claude Code Read of file_path, so `Read(**\/.env*)` denies it
 * too; answered with `{permission}` (the only field this event reads, per Cursor's docs). A
 * relative file_path is resolved against the first workspace root.
 */
export const cursorBeforeReadFile: HookProtocol = {
  name: 'cursor/beforeReadFile',
  recognises: (p) => p.hook_event_name === 'beforeReadFile',
  request: cursorReadRequest,
  answer: (decision) => ({
    output: cursorAnswer(decision.behavior, reasonOf(decision)),
    sent: sentAs(decision.behavior),
  }),
  block: () => 'exit',
  httpBlock: (reason) => cursorAnswer('deny', blockedReason(reason)),
};

function cursorReadRequest(p: Readonly<Record<string, unknown>>): ToolRequest | string {
  const root = cursorRoot(p);
  if (root === undefined) return 'Cursor beforeReadFile payload has no absolute workspace root';
  if (typeof p.file_path !== 'string' || p.file_path === '')
    return 'Cursor beforeReadFile payload has no file_path';
  return {
    tool: 'Read',
    input: { file_path: path.resolve(root, p.file_path) },
    cwd: root,
    mode: 'default',
    ...(typeof p.conversation_id === 'string' ? { sessionId: p.conversation_id } : {}),
  };
}

/** The first workspace root of a Cursor payload (where relative paths are read), if absolute. */
export function cursorRoot(p: Readonly<Record<string, unknown>>): string | undefined {
  const roots = Array.isArray(p.workspace_roots) ? p.workspace_roots : [];
  const root: unknown = roots[0];
  return typeof root === 'string' && path.isAbsolute(root) ? root : undefined;
}
