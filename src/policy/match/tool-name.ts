import { starGlob } from './glob.js';

/**
 * The tool part of a rule: an exact name, `mcp__server` (every tool of that server), or a
 * pattern with `*` (`mcp__server__get_*`, `mcp__*`, `*`).
 */
export function compileToolName(tool: string): (name: string) => boolean {
  if (tool.includes('*')) {
    const re = starGlob(tool);
    return (name) => re.test(name);
  }
  const server = /^mcp__([^_](?:[^_]|_(?!_))*)$/.exec(tool);
  if (server) return (name) => name === tool || name.startsWith(`${tool}__`);
  return (name) => name === tool;
}
