import path from 'node:path';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { blockedReason, reasonOf } from './claude-hook.js';
import { type AnswerOptions, type HookProtocol, sentAs } from './hook-protocol.js';
import { type Args, absolute, isArgs, searchPath } from './tool-args.js';
import { unaskable } from './unaskable.js';

/**
 * GitHub Copilot CLI's `preToolUse` command hook (`.github/hooks/*.json`, camelCase event name),
 * as its CLI hooks reference documents it (github/docs, content/copilot/reference/
 * copilot-cli-reference/cli-hooks-reference.md): `{sessionId, timestamp, cwd, toolName, toolArgs}`
 * with `toolArgs` the tool's arguments as a JSON string; it has no `hook_event_name`. The answer
 * is `{permissionDecision, permissionDecisionReason, modifiedArgs?}` (a reason is required on
 * deny). Copilot logs and skips a hook that fails, exits non-zero or times out ("they never block
 * agent execution"), so toolgate blocks by printing a deny with exit 0; a toolgate that cannot
 * start at all is not blocked by Copilot. Its `ask` prompts only in an interactive session, so
 * toolgate's ask is a deny that says why unless `--agent-asks` passes it on.
 */
export const copilotPreToolUse: HookProtocol = {
  name: 'copilot/preToolUse',
  recognises: (p) => p.hook_event_name === undefined && typeof p.toolName === 'string' && 'toolArgs' in p,
  request: copilotRequest,
  answer: (decision, options) => {
    const answer = copilotAnswer(decision, options);
    return { output: answer, sent: sentAs(answer.permissionDecision) };
  },
  rewritten: (decision, input, options) => {
    const answer = copilotAnswer(decision, options);
    const denied = answer.permissionDecision === 'deny';
    // modifiedArgs replaces the arguments: Copilot's bash tool reads `command` as Claude's Bash does
    return {
      output: denied ? answer : { ...answer, modifiedArgs: input },
      sent: sentAs(answer.permissionDecision, !denied),
    };
  },
  block: (reason) => ({ output: denyAnswer(blockedReason(reason)), sent: sentAs('deny') }),
  httpBlock: (reason) => denyAnswer(blockedReason(reason)),
};

export interface CopilotAnswer {
  readonly permissionDecision: 'allow' | 'deny' | 'ask';
  readonly permissionDecisionReason: string;
  readonly modifiedArgs?: Readonly<Record<string, unknown>>;
}

function denyAnswer(reason: string): CopilotAnswer {
  return { permissionDecision: 'deny', permissionDecisionReason: reason };
}

export function copilotAnswer(decision: Decision, options?: AnswerOptions): CopilotAnswer {
  const answered =
    decision.behavior === 'ask' && options?.agentAsks !== true
      ? unaskable(decision, 'Copilot CLI', "Copilot CLI shows a hook's ask only in an interactive session")
      : decision;
  return { permissionDecision: answered.behavior, permissionDecisionReason: reasonOf(answered) };
}

/**
 * Copilot CLI's tools (the reference's "Tool names for hook matching") -> the Claude Code tool
 * toolgate decides. Argument names as in Copilot CLI's file tools (`path`, `file_text`, `old_str`,
 * `new_str`); not checked against a real binary, so a name that differs makes the input fail the
 * tool's shape check, which denies. Tools not listed keep their name (an unknown tool asks).
 */
const COPILOT_TOOLS: Readonly<Record<string, (a: Args, cwd: string) => Omit<ToolRequest, 'cwd'>>> = {
  bash: (a) => ({ tool: 'Bash', input: { command: a.command } }),
  view: (a, cwd) => ({ tool: 'Read', input: { file_path: absolute(a.path, cwd) } }),
  create: (a, cwd) => ({ tool: 'Write', input: { file_path: absolute(a.path, cwd), content: a.file_text } }),
  edit: (a, cwd) => ({
    tool: 'Edit',
    input: { file_path: absolute(a.path, cwd), old_string: a.old_str, new_string: a.new_str },
  }),
  glob: (a, cwd) => ({ tool: 'Glob', input: { pattern: a.pattern, ...searchPath(a.path, cwd) } }),
  grep: (a, cwd) => ({ tool: 'Grep', input: { pattern: a.pattern, ...searchPath(a.path, cwd) } }),
  web_fetch: (a) => ({ tool: 'WebFetch', input: { url: a.url } }),
};

function copilotRequest(p: Readonly<Record<string, unknown>>): ToolRequest | string {
  const { toolName: name, cwd } = p;
  if (typeof name !== 'string' || name === '') return 'Copilot preToolUse payload has no toolName';
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd))
    return 'Copilot preToolUse payload has no absolute cwd';
  let args: unknown = p.toolArgs;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return 'Copilot preToolUse toolArgs is not JSON';
    }
  }
  if (!isArgs(args)) return 'Copilot preToolUse toolArgs is not a JSON object';
  const map = Object.hasOwn(COPILOT_TOOLS, name) ? COPILOT_TOOLS[name] : undefined;
  return {
    cwd,
    ...(map ? map(args, cwd) : { tool: name, input: args }),
    // Copilot sends no permission mode: toolgate's default mode
    mode: 'default',
    ...(typeof p.sessionId === 'string' ? { sessionId: p.sessionId } : {}),
  };
}
