import path from 'node:path';

/**
 * The names MCP tools have in rules and in the registry: `mcp__<server>__<tool>`, as in Claude
 * Code. A rule `mcp__server` matches every tool whose name starts with `mcp__server__`, so the
 * server part must never contain `__` nor end with `_`: otherwise `mcp__a_` + `__b` and
 * `mcp__a` + `___b` would be the same name, and a rule written for one server would reach
 * another's tools.
 */
const SERVER_NAME = /^[A-Za-z0-9-](?:[A-Za-z0-9-]|_(?!_))*$/;

/** Whether `name` can be the server part of an MCP tool name (what `--name` accepts). */
export function isMcpServerName(name: string): boolean {
  return SERVER_NAME.test(name) && !name.endsWith('_');
}

/**
 * Any text (a command, a configured name) -> a server name in `[a-z0-9_-]` that rules match
 * exactly, or undefined when nothing usable is left (the caller must then ask for a name).
 */
export function sanitizeMcpServerName(raw: string): string | undefined {
  const name = raw
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_+|_+$/g, '');
  return name === '' ? undefined : name;
}

/** The default server name of a command: its basename without an extension, sanitized. */
export function serverNameOfCommand(command: string): string | undefined {
  const base = path.basename(command).replace(/\.(?:exe|cmd|bat|js|mjs|cjs|ts|py|sh)$/i, '');
  return sanitizeMcpServerName(base);
}

/**
 * The tool part as Claude Code normalizes it: anything outside `[A-Za-z0-9_-]` becomes `_`.
 * Two tools can end up with the same part (`a.b`, `a_b`); callers must treat that as ambiguous.
 */
export function mcpToolPart(tool: string): string {
  return tool.replace(/[^A-Za-z0-9_-]/g, '_');
}

export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${mcpToolPart(tool)}`;
}
