import type { CompiledPolicy, CompiledRule } from '../policy/compile.js';

/**
 * Which MCP tools a deny rule removes entirely, so that `tools/list` need not show them:
 * a deny that matches the tool's name (`mcp__server`, `mcp__server__tool`, `mcp__server__get_*`,
 * `mcp__*`, `*`) with no specifier and no `when:` condition. A rule that denies only some
 * inputs (a parameter rule, a condition) leaves the tool listed: its calls are still decided
 * one by one, and hiding is only a courtesy to the model, never the guard itself.
 */
export function denyingRule(policy: CompiledPolicy, toolName: string): CompiledRule | undefined {
  return policy
    .ruleSetForTool(toolName)
    .deny.find((r) => r.rule.specifier.type === 'any' && r.when === undefined && r.matchTool(toolName));
}
