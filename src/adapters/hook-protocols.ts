import { CLAUDE_PROTOCOLS } from './claude-hook.js';
import { codexPreToolUse } from './codex-hook.js';
import { codexPermissionRequest } from './codex-permission.js';
import { copilotPreToolUse } from './copilot-hook.js';
import { cursorBeforeReadFile, cursorBeforeShellExecution } from './cursor-hook.js';
import { cursorBeforeMCPExecution } from './cursor-mcp.js';
import { cursorPreToolUse } from './cursor-tool.js';
import { geminiBeforeTool } from './gemini-hook.js';
import type { HookProtocol } from './hook-protocol.js';
import { opencodeToolBefore } from './opencode-hook.js';

/**
 * Every hook protocol `toolgate hook` and `serve`'s /hook answer, tried in order; a payload none
 * recognises is blocked. Another agent's adapter (Gemini CLI, Codex, Cursor, ...) adds its entry
 * here, with a `recognises` that cannot take another agent's payload for its own.
 */
export const HOOK_PROTOCOLS: readonly HookProtocol[] = [
  // Codex's PreToolUse and PermissionRequest are Claude-shaped: told apart by turn_id / model
  // (codex-marks.ts), both ways
  codexPreToolUse,
  codexPermissionRequest,
  ...CLAUDE_PROTOCOLS,
  geminiBeforeTool,
  cursorBeforeShellExecution,
  cursorBeforeReadFile,
  cursorBeforeMCPExecution,
  cursorPreToolUse,
  copilotPreToolUse,
  opencodeToolBefore,
];

/**
 * The protocols of one agent (`--agent NAME`, NAME the part of a protocol's name before the
 * slash, e.g. `gemini-cli`): a payload of another agent is then blocked, not read as its own.
 */
export function protocolsOf(agent: string): readonly HookProtocol[] {
  return HOOK_PROTOCOLS.filter((p) => p.name.slice(0, p.name.indexOf('/')) === agent);
}

export function agentNames(): string[] {
  return [...new Set(HOOK_PROTOCOLS.map((p) => p.name.slice(0, p.name.indexOf('/'))))];
}
