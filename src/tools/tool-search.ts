import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import { inputJsonSchema } from '../pipeline/registry.js';
import type { ToolResult } from '../pipeline/tool.js';

/**
 * ToolSearch: how the model finds deferred tools (sent with `defer_loading`, without their
 * schema). `select:A,B` fetches tools by name; other queries rank tools by keyword. The answer
 * is each tool's name, description and input schema, which is what the model needs to call it.
 */
const inputSchema = z.strictObject({
  query: z.string().min(1).describe('"select:Name1,Name2" or keywords'),
  max_results: z.number().int().min(1).max(20).default(5),
});

export interface ToolSearchOutput {
  query: string;
  tools: { name: string; description: string; input_schema: Record<string, unknown> }[];
}

export const ToolSearchTool = buildTool({
  name: 'ToolSearch',
  searchHint: 'find tool search deferred schema',
  inputSchema,
  maxResultSizeChars: 100_000,
  alwaysLoad: true,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  prompt: () =>
    'Finds tools whose definitions were deferred. Query "select:Name1,Name2" for exact names, or keywords. Returns their descriptions and input schemas.',
  description: (input) => `Search tools for ${input.query}`,
  async call(input, ctx): Promise<ToolResult<ToolSearchOutput>> {
    const found = await ctx.tools.search(input.query, input.max_results);
    const tools = await Promise.all(
      found.map(async (t) => ({
        name: t.name,
        description: await t.prompt({ tools: ctx.tools.enabled() }),
        input_schema: inputJsonSchema(t),
      })),
    );
    return { data: { query: input.query, tools } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    const content =
      output.tools.length === 0 ? `No tools match "${output.query}".` : JSON.stringify(output.tools, null, 2);
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
  renderToolResultMessage: (output) =>
    `Found ${output.tools.length} tools: ${output.tools.map((t) => t.name).join(', ')}`,
});
