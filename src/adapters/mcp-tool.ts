import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  CallToolResult,
  Progress as McpProgress,
  Tool as McpToolDef,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ToolResultBlock } from '../pipeline/blocks.js';
import { buildTool, summarize } from '../pipeline/build-tool.js';
import type { AnyTool } from '../pipeline/tool.js';
import { mcpContentBlocks } from './mcp-content.js';
import { mcpToolName } from './mcp-names.js';
import { inputSchemaOf, type SchemaSource } from './mcp-schema.js';

/**
 * One tool of an MCP server as a toolgate Tool named `mcp__<server>__<tool>`, so it goes
 * through the same validation, decision, log, limits and result pairing as a built-in tool.
 * It is read-only (and may run beside other calls) only when the server says so with
 * `readOnlyHint: true` and does not also say `destructiveHint: true`; any other combination,
 * or no annotations at all, is treated as a tool that changes things.
 */
export interface McpToolInfo {
  /** The name in the registry and in rules. */
  readonly name: string;
  /** The name the server knows it by. */
  readonly mcpName: string;
  readonly server: string;
  readonly readOnly: boolean;
  /** Whether input is checked against the server's schema here, or only by the server. */
  readonly schema: SchemaSource;
}

export function mcpTool(
  server: string,
  client: Client,
  def: McpToolDef,
): { tool: AnyTool; info: McpToolInfo } {
  const name = mcpToolName(server, def.name);
  const { schema, source } = inputSchemaOf(def.inputSchema);
  const readOnly = def.annotations?.readOnlyHint === true && def.annotations?.destructiveHint !== true;
  const title = def.title ?? def.annotations?.title ?? def.name;
  const tool = buildTool<z.ZodType, CallToolResult, McpProgress>({
    name,
    inputSchema: schema,
    searchHint: `mcp ${server} ${def.name} ${title}`,
    isReadOnly: () => readOnly,
    isConcurrencySafe: () => readOnly,
    prompt: () => def.description ?? `${title} (a tool of the MCP server "${server}")`,
    description: () => `${server}: ${title}`,
    userFacingName: () => `${server} - ${title} (MCP)`,
    renderToolUseMessage: (input) => `${server} - ${title} (MCP)(${summarize(input)})`,
    async call(input, ctx, _canUseTool, _parent, onProgress): Promise<{ data: CallToolResult }> {
      const result = await client.callTool(
        { name: def.name, arguments: input as Record<string, unknown> },
        undefined,
        {
          signal: ctx.signal,
          // The policy's deadline for the call; progress does not extend it.
          timeout: ctx.sandbox.timeoutMs,
          onprogress: (progress) => onProgress({ toolUseId: ctx.toolUseId, data: progress }),
        },
      );
      return { data: result as CallToolResult };
    },
    mapToolResultToToolResultBlockParam: (output, toolUseId) => callToolResultBlock(output, toolUseId),
  });
  return { tool: tool as AnyTool, info: { name, mcpName: def.name, server, readOnly, schema: source } };
}

/** A tools/call result -> one tool_result; the server's `isError` becomes `is_error`. */
export function callToolResultBlock(output: CallToolResult, toolUseId: string): ToolResultBlock {
  const content = mcpContentBlocks(Array.isArray(output.content) ? output.content : []);
  // A tool with an output schema may answer with structured content only.
  if (content.length === 0 && output.structuredContent !== undefined) {
    content.push({ type: 'text', text: JSON.stringify(output.structuredContent) });
  }
  return {
    type: 'tool_result',
    tool_use_id: toolUseId,
    content,
    ...(output.isError === true ? { is_error: true } : {}),
  };
}
