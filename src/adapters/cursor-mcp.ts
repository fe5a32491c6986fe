import type { ToolRequest } from '../policy/request.js';
import { blockedReason, reasonOf } from './claude-hook.js';
import { cursorAnswer, cursorRoot } from './cursor-hook.js';
import { type HookProtocol, sentAs } from './hook-protocol.js';
import { mcpToolName, sanitizeMcpServerName, serverNameOfLaunch } from './mcp-names.js';
import { isArgs } from './tool-args.js';

/**
 * Cursor's beforeMCPExecution hook (https://cursor.com/docs/agent/hooks, "beforeMCPExecution"):
 * the base fields plus `tool_name`, `tool_input` and the server's `url` (remote) or `command`
 * (stdio), answered with `{permission, user_message, agent_message}`. The call is decided as
 * Claude Code's `mcp__<server>__<tool>`, so one `mcp__github` rule covers Cursor too. Cursor's
 * payload does not carry the name the server has in mcp.json, so the server is named as
 * `toolgate mcp-proxy` names it by default: after what the command launches (`npx -y
 * @modelcontextprotocol/server-filesystem` is `filesystem`), or the url's host. A call whose
 * server cannot be named is blocked: a rule about that server could not be applied to it.
 * Secondary sources disagree on two details, both read here: `tool_input` as an object or as
 * its JSON text, and `tool_name` as `MCP:<server>:<tool>` (then the server is taken from it).
 */
export const cursorBeforeMCPExecution: HookProtocol = {
  name: 'cursor/beforeMCPExecution',
  recognises: (p) => p.hook_event_name === 'beforeMCPExecution',
  request: cursorMcpRequest,
  agentVersion: (p) => (typeof p.cursor_version === 'string' ? p.cursor_version : undefined),
  answer: (decision) => ({
    output: cursorAnswer(decision.behavior, reasonOf(decision)),
    sent: sentAs(decision.behavior),
  }),
  block: () => 'exit',
  httpBlock: (reason) => cursorAnswer('deny', blockedReason(reason)),
};

function cursorMcpRequest(p: Readonly<Record<string, unknown>>): ToolRequest | string {
  const root = cursorRoot(p);
  if (root === undefined) return 'Cursor beforeMCPExecution payload has no absolute workspace root';
  if (typeof p.tool_name !== 'string' || p.tool_name === '')
    return 'Cursor beforeMCPExecution payload has no tool_name';
  let input: unknown = p.tool_input;
  if (typeof input === 'string') {
    try {
      input = JSON.parse(input);
    } catch {
      return 'Cursor beforeMCPExecution tool_input is not JSON';
    }
  }
  if (!isArgs(input)) return 'Cursor beforeMCPExecution payload has no tool_input object';
  const named = /^MCP:([^:]+):(.+)$/.exec(p.tool_name);
  const tool = named ? named[2]! : p.tool_name;
  const server = named ? sanitizeMcpServerName(named[1]!) : serverOf(p);
  if (server === undefined)
    return `Cursor beforeMCPExecution: the server of "${tool.slice(0, 80)}" cannot be named (no command or url), so no rule could be applied to it`;
  return {
    tool: mcpToolName(server, tool),
    input,
    cwd: root,
    mode: 'default',
    ...(typeof p.conversation_id === 'string' ? { sessionId: p.conversation_id } : {}),
  };
}

function serverOf(p: Readonly<Record<string, unknown>>): string | undefined {
  if (typeof p.command === 'string' && p.command.trim() !== '') {
    // the launch line as Cursor shows it; words split on spaces, as mcp.json's command + args were
    const [command, ...args] = p.command.trim().split(/\s+/);
    return serverNameOfLaunch(command!, args);
  }
  if (typeof p.url === 'string') {
    try {
      return sanitizeMcpServerName(new URL(p.url).hostname);
    } catch {
      return undefined;
    }
  }
  return undefined;
}
