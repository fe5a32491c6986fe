import { starGlob } from './glob.js';

/**
 * The tool part of a rule: an exact name, `mcp__server` (every tool of that server), or a
 * pattern with `*` (`mcp__server__get_*`, `mcp__*`, `*`). With `ignoreCase` (deny and ask
 * rules on MCP tools), `mcp__github__delete_*` also names `mcp__GitHub__Delete_repo`: server
 * and tool names come from configuration and servers, not from the rule's author.
 */
export function compileToolName(tool: string, ignoreCase = false): (name: string) => boolean {
  const fold = ignoreCase ? (s: string) => s.toLowerCase() : (s: string) => s;
  const t = fold(tool);
  if (t.includes('*')) {
    const re = starGlob(t);
    return (name) => re.test(fold(name));
  }
  const server = /^mcp__([^_](?:[^_]|_(?!_))*)$/.exec(t);
  if (server) return (name) => fold(name) === t || fold(name).startsWith(`${t}__`);
  return (name) => fold(name) === t;
}
