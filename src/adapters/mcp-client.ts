import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type Tool as McpToolDef,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpClientRef } from '../pipeline/context.js';
import type { AnyTool } from '../pipeline/tool.js';
import { ENGINE_VERSION } from '../version.js';
import { isMcpServerName } from './mcp-names.js';
import { mcpResourceTools } from './mcp-resource-tools.js';
import { type McpToolInfo, mcpTool } from './mcp-tool.js';

/**
 * MCP servers inside the pipeline: connect to each server (a stdio command, or any SDK
 * transport), and turn its tools into toolgate Tools named `mcp__<server>__<tool>`, plus
 * ListMcpResources and ReadMcpResource for their resources. Put them in the session's
 * ToolRegistry and they are validated, decided, logged and paired like built-in tools.
 *
 * A tool whose name cannot be used is left out, with the reason in `skipped`: a name that two
 * tools normalize to (`a.b` and `a_b`), since a rule for one would silently cover the other,
 * and a name longer than the registry accepts.
 */
export type McpServerSpec =
  | {
      /** The server part of tool names (letters, digits, - and _; see isMcpServerName). */
      readonly name: string;
      readonly command: string;
      readonly args?: readonly string[];
      /** Added to the SDK's default environment (HOME, PATH, USER, ...): secrets are opt-in. */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
      /** Where the server's stderr goes (default: inherit). */
      readonly stderr?: 'inherit' | 'pipe' | 'ignore';
    }
  | { readonly name: string; readonly transport: Transport };

export interface McpConnection extends McpClientRef {
  readonly name: string;
  readonly client: Client;
  /** The server's tools as toolgate Tools (changes after refresh()). */
  readonly tools: readonly AnyTool[];
  readonly toolInfo: readonly McpToolInfo[];
  readonly skipped: readonly { mcpName: string; reason: string }[];
  /** Reads the server's tool list again (the server said it changed, say). */
  refresh(): Promise<readonly AnyTool[]>;
  close(): Promise<void>;
}

export interface McpConnectOptions {
  /** Called after the tool list was re-read because the server announced a change. */
  onToolsChanged?: (connection: McpConnection) => void;
  /** Problems with no call to report them to (a failed refresh). */
  onWarning?: (message: string) => void;
}

export class McpConnectError extends Error {
  override name = 'McpConnectError';
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
  }
}

const MAX_NAME = 128;
const MAX_PAGES = 100;

export async function connectMcpServer(
  spec: McpServerSpec,
  options: McpConnectOptions = {},
): Promise<McpConnection> {
  if (!isMcpServerName(spec.name)) {
    throw new McpConnectError(
      spec.name,
      `"${spec.name}" cannot name an MCP server: rules could not match its tools exactly (letters, digits, - and _, no "__", no leading or trailing _)`,
    );
  }
  const client = new Client({ name: 'toolgate', version: ENGINE_VERSION }, { capabilities: {} });
  try {
    await client.connect(await transportOf(spec));
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new McpConnectError(
      spec.name,
      `the MCP server "${spec.name}" could not be started: ${describe(err)}`,
    );
  }
  let current: Built = { tools: [], toolInfo: [], skipped: [] };
  const refresh = async (): Promise<readonly AnyTool[]> => {
    current = client.getServerCapabilities()?.tools
      ? build(spec.name, client, await listAll(client))
      : current;
    return current.tools;
  };
  const connection: McpConnection = {
    name: spec.name,
    client,
    get tools() {
      return current.tools;
    },
    get toolInfo() {
      return current.toolInfo;
    },
    get skipped() {
      return current.skipped;
    },
    refresh,
    close: () => client.close(),
  };
  try {
    await refresh();
  } catch (err) {
    await client.close().catch(() => undefined);
    throw new McpConnectError(
      spec.name,
      `the MCP server "${spec.name}" did not list its tools: ${describe(err)}`,
    );
  }
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    try {
      await refresh();
      options.onToolsChanged?.(connection);
    } catch (err) {
      options.onWarning?.(`the tools of "${spec.name}" could not be read again: ${describe(err)}`);
    }
  });
  return connection;
}

export interface McpServers {
  readonly connections: readonly McpConnection[];
  /** Servers that could not be connected; their tools are simply absent. */
  readonly failures: readonly McpConnectError[];
  /** Every tool of every connection, plus ListMcpResources and ReadMcpResource when any server has resources. */
  tools(): AnyTool[];
  close(): Promise<void>;
}

/** Connects to several servers at once; one that fails does not stop the others. */
export async function connectMcpServers(
  specs: readonly McpServerSpec[],
  options: McpConnectOptions = {},
): Promise<McpServers> {
  const seen = new Set<string>();
  const settled = await Promise.allSettled(
    specs.map((spec) => {
      if (seen.has(spec.name)) {
        return Promise.reject(new McpConnectError(spec.name, `two MCP servers are called "${spec.name}"`));
      }
      seen.add(spec.name);
      return connectMcpServer(spec, options);
    }),
  );
  const connections: McpConnection[] = [];
  const failures: McpConnectError[] = [];
  settled.forEach((s, i) => {
    if (s.status === 'fulfilled') connections.push(s.value);
    else
      failures.push(
        s.reason instanceof McpConnectError
          ? s.reason
          : new McpConnectError(specs[i]!.name, describe(s.reason)),
      );
  });
  const withResources = () => connections.filter((c) => c.client.getServerCapabilities()?.resources);
  const resourceTools = mcpResourceTools(withResources);
  return {
    connections,
    failures,
    tools: () => [
      ...connections.flatMap((c) => c.tools),
      ...(withResources().length > 0 ? resourceTools : []),
    ],
    close: async () => {
      await Promise.allSettled(connections.map((c) => c.close()));
    },
  };
}

interface Built {
  tools: AnyTool[];
  toolInfo: McpToolInfo[];
  skipped: { mcpName: string; reason: string }[];
}

function build(server: string, client: Client, defs: readonly McpToolDef[]): Built {
  const made = defs.map((def) => mcpTool(server, client, def));
  const count = new Map<string, number>();
  for (const m of made) count.set(m.info.name, (count.get(m.info.name) ?? 0) + 1);
  const out: Built = { tools: [], toolInfo: [], skipped: [] };
  for (const m of made) {
    if (count.get(m.info.name)! > 1) {
      out.skipped.push({
        mcpName: m.info.mcpName,
        reason: `another tool of "${server}" is also named ${m.info.name} after normalization, so rules could not tell them apart`,
      });
    } else if (m.info.name.length > MAX_NAME) {
      out.skipped.push({
        mcpName: m.info.mcpName,
        reason: `${m.info.name} is longer than ${MAX_NAME} characters`,
      });
    } else {
      out.tools.push(m.tool);
      out.toolInfo.push(m.info);
    }
  }
  return out;
}

async function listAll(client: Client): Promise<McpToolDef[]> {
  const tools: McpToolDef[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.listTools(cursor === undefined ? {} : { cursor });
    tools.push(...r.tools);
    cursor = r.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}

async function transportOf(spec: McpServerSpec): Promise<Transport> {
  if ('transport' in spec) return spec.transport;
  const { StdioClientTransport, getDefaultEnvironment } = await import(
    '@modelcontextprotocol/sdk/client/stdio.js'
  );
  return new StdioClientTransport({
    command: spec.command,
    args: [...(spec.args ?? [])],
    env: { ...getDefaultEnvironment(), ...spec.env },
    ...(spec.cwd ? { cwd: spec.cwd } : {}),
    stderr: spec.stderr ?? 'inherit',
  });
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
