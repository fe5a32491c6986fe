import path from 'node:path';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { blockedReason, reasonOf } from './claude-hook.js';
import { type CursorAnswer, cursorAnswer, cursorRoot } from './cursor-hook.js';
import { type HookProtocol, sentAs } from './hook-protocol.js';
import { type Args, absolute, isArgs, searchPath, workdir } from './tool-args.js';

/**
 * Cursor's generic preToolUse hook (Cursor 2.4+, https://cursor.com/docs/agent/hooks,
 * "preToolUse"): fired before every tool, matched by Cursor's tool type (`Shell`, `Read`,
 * `Write`, `Grep`, `Delete`, `Task`, `MCP:<tool>`), with the base fields plus `tool_name`,
 * `tool_input`, `tool_use_id` and `cwd`; answered with `{permission, user_message,
 * agent_message}` and, for this event only, `updated_input`, which replaces the call's input
 * (enforced mode). Cursor's docs name the tool types but not each tool's argument names, so
 * only these are read: Shell's `command` (and `working_directory`), and `file_path`, the name
 * Cursor's other file hooks use. An argument named otherwise fails the Claude Code tool's shape
 * check, which denies: never a silent allow. Exit 2 blocks.
 */
export const cursorPreToolUse: HookProtocol = {
  name: 'cursor/preToolUse',
  recognises: (p) => p.hook_event_name === 'preToolUse',
  request: cursorToolRequest,
  agentVersion: (p) => (typeof p.cursor_version === 'string' ? p.cursor_version : undefined),
  answer: (decision) => ({ output: toolAnswer(decision), sent: sentAs(decision.behavior) }),
  rewritten: (decision, input) => {
    const answer = toolAnswer(decision);
    const denied = answer.permission === 'deny';
    return {
      output: denied ? answer : { ...answer, updated_input: input },
      sent: sentAs(answer.permission, !denied),
    };
  },
  block: () => 'exit',
  httpBlock: (reason) => cursorAnswer('deny', blockedReason(reason)),
};

function toolAnswer(decision: Decision): CursorAnswer {
  return cursorAnswer(decision.behavior, reasonOf(decision));
}

/**
 * Cursor's tool types -> the Claude Code tool toolgate decides. A Delete is a Write of nothing
 * (as Codex's Delete File is): a rule that keeps a file from being written keeps it from being
 * deleted. Types not listed (Task, MCP:<tool>, ...) keep Cursor's name; an unknown tool asks.
 */
const CURSOR_TOOLS: Readonly<
  Record<string, (a: Args, cwd: string) => Omit<ToolRequest, 'cwd'> & { cwd?: string }>
> = {
  Shell: (a, cwd) => ({ tool: 'Bash', input: { command: a.command }, ...workdir(a.working_directory, cwd) }),
  Read: (a, cwd) => ({ tool: 'Read', input: { file_path: absolute(a.file_path, cwd) } }),
  Write: (a, cwd) => ({
    tool: 'Write',
    input: { file_path: absolute(a.file_path, cwd), content: a.content },
  }),
  Delete: (a, cwd) => ({ tool: 'Write', input: { file_path: absolute(a.file_path, cwd), content: '' } }),
  Grep: (a, cwd) => ({ tool: 'Grep', input: { pattern: a.pattern, ...searchPath(a.path, cwd) } }),
};

function cursorToolRequest(p: Readonly<Record<string, unknown>>): ToolRequest | string {
  const { tool_name: name, tool_input: input } = p;
  if (typeof name !== 'string' || name === '') return 'Cursor preToolUse payload has no tool_name';
  // cwd may be absent or empty at the workspace root, as in beforeShellExecution
  const cwd = typeof p.cwd === 'string' && p.cwd !== '' ? p.cwd : cursorRoot(p);
  if (cwd === undefined || !path.isAbsolute(cwd))
    return 'Cursor preToolUse payload has no absolute cwd or workspace root';
  if (!isArgs(input)) return 'Cursor preToolUse payload has no tool_input object';
  const map = Object.hasOwn(CURSOR_TOOLS, name) ? CURSOR_TOOLS[name] : undefined;
  return {
    cwd,
    ...(map ? map(input, cwd) : { tool: name, input }),
    // Cursor sends no permission mode: toolgate's default mode (asks stay asks)
    mode: 'default',
    ...(typeof p.conversation_id === 'string' ? { sessionId: p.conversation_id } : {}),
  };
}
