import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import type { ResultContentBlock } from '../pipeline/blocks.js';
import { buildTool } from '../pipeline/build-tool.js';
import type { AnyTool } from '../pipeline/tool.js';
import { resourceBlock } from './mcp-content.js';

/**
 * `ListMcpResources` and `ReadMcpResource`: the model's way to the resources of every
 * connected MCP server (Claude Code's ListMcpResourcesTool and ReadMcpResourceTool). They are
 * ordinary tools, so the policy decides them too: `ReadMcpResource` {server, uri} is the same
 * request the MCP proxy decides for a resources/read, and a rule like
 * `ReadMcpResource(uri:file://*secret*)` holds in both places.
 */
export interface ResourceServer {
  readonly name: string;
  readonly client: Client;
}

/** Stops a server that keeps handing out cursors from holding the call forever. */
const MAX_PAGES = 100;

export interface ListedResource {
  server: string;
  uri: string;
  name: string;
  mimeType?: string;
  description?: string;
}

export function mcpResourceTools(servers: () => readonly ResourceServer[]): AnyTool[] {
  const find = (name: string) => servers().find((s) => s.name === name);
  const known = () =>
    servers()
      .map((s) => s.name)
      .join(', ') || '(none)';

  const list = buildTool({
    name: 'ListMcpResources',
    inputSchema: z.strictObject({
      server: z.string().optional().describe('Only this server (default: every connected server)'),
    }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    prompt: () =>
      'Lists the resources (files, records, documents) that the connected MCP servers offer, with their URIs. Read one with ReadMcpResource.',
    description: (input) => `List MCP resources${input.server ? ` of ${input.server}` : ''}`,
    validateInput: async (input) =>
      input.server === undefined || find(input.server)
        ? { result: true }
        : { result: false, message: `No MCP server is called "${input.server}". Connected: ${known()}.` },
    async call(input, ctx): Promise<{ data: ListedResource[] }> {
      const out: ListedResource[] = [];
      for (const s of servers()) {
        if (input.server !== undefined && s.name !== input.server) continue;
        if (!s.client.getServerCapabilities()?.resources) continue;
        let cursor: string | undefined;
        for (let page = 0; page < MAX_PAGES; page++) {
          const r = await s.client.listResources(cursor === undefined ? {} : { cursor }, {
            signal: ctx.signal,
            timeout: ctx.sandbox.timeoutMs,
          });
          for (const res of r.resources) {
            out.push({
              server: s.name,
              uri: res.uri,
              name: res.name,
              ...(res.mimeType ? { mimeType: res.mimeType } : {}),
              ...(res.description ? { description: res.description } : {}),
            });
          }
          cursor = r.nextCursor;
          if (cursor === undefined) break;
        }
      }
      return { data: out };
    },
    mapToolResultToToolResultBlockParam: (output, toolUseId) => ({
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: output.length === 0 ? 'No resources.' : JSON.stringify(output, null, 1),
    }),
  });

  const read = buildTool({
    name: 'ReadMcpResource',
    inputSchema: z.strictObject({
      server: z.string().describe('The MCP server that offers the resource'),
      uri: z.string().describe('The URI of the resource, as ListMcpResources gives it'),
    }),
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    prompt: () => 'Reads one resource of a connected MCP server by its URI.',
    description: (input) => `Read ${input.uri} from ${input.server}`,
    validateInput: async (input) =>
      find(input.server)
        ? { result: true }
        : { result: false, message: `No MCP server is called "${input.server}". Connected: ${known()}.` },
    async call(input, ctx): Promise<{ data: ResultContentBlock[] }> {
      const server = find(input.server);
      if (!server) throw new Error(`the MCP server "${input.server}" is no longer connected`);
      const r = await server.client.readResource(
        { uri: input.uri },
        { signal: ctx.signal, timeout: ctx.sandbox.timeoutMs },
      );
      return { data: r.contents.map((c) => resourceBlock(c)) };
    },
    mapToolResultToToolResultBlockParam: (output, toolUseId) => ({
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: output.length === 0 ? '(the resource is empty)' : output,
    }),
  });
  return [list as AnyTool, read as AnyTool];
}
