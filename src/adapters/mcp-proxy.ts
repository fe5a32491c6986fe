import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ServerResult,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { ENGINE_VERSION } from '../version.js';
import { type GateOptions, gate } from './mcp-gate.js';
import { mcpToolName } from './mcp-names.js';
import {
  createRelay,
  describe,
  type RelayExtra,
  relayedCapabilities,
  relayNotifications,
} from './mcp-relay.js';
import { denyingRule } from './mcp-visibility.js';

/**
 * An MCP server that guards another one. The agent talks MCP to the proxy; the proxy talks MCP
 * to the real server. Every `tools/call` is decided as `mcp__<server>__<tool>` with the call's
 * arguments as input, and only an allowed (and logged) call reaches the real server; a denied
 * one comes back as a tool result with `isError: true` and toolgate's reason, which is what the
 * model reads. `tools/list` leaves out tools a deny rule removes entirely. Resource reads are
 * decided as `ReadMcpResource` {server, uri}, the tool an agent would use for them. Everything
 * else the real server offers (resources, prompts, completions, logging, list changes,
 * progress, cancellation) is passed through unchanged. When the agent leaves, every call still
 * in flight is cancelled at the real server before the proxy ends.
 */
export interface McpProxyOptions extends GateOptions {
  /** The server part of tool names (already valid: see isMcpServerName). */
  readonly serverName: string;
  /** The real server (a StdioClientTransport in the CLI; any SDK transport in tests). */
  readonly upstream: Transport;
  /** How long a relayed request may wait for the real server (reset by progress). Default 1 hour. */
  readonly requestTimeoutMs?: number;
  /**
   * How long the real server may take to answer the MCP handshake (initialize). Default 60 s:
   * a server started through npx may download itself first; a silent one is refused then.
   */
  readonly handshakeTimeoutMs?: number;
  /** Problems that have no request to answer (a notification that could not be passed on). */
  readonly onWarning?: (message: string) => void;
}

export type McpProxyEnd =
  /** The agent went away (or close() was called). */
  | { readonly by: 'client' }
  /** The real server went away: the proxy cannot guard what is not there, so it stops too. */
  | { readonly by: 'server'; readonly message: string };

export interface McpProxy {
  /** Settles once either side is gone and the proxy has shut both down. */
  readonly done: Promise<McpProxyEnd>;
  /** The real server's name and version, as it reported them. */
  readonly upstreamInfo: { name: string; version: string };
  close(): Promise<void>;
}

/** The real server could not be started or did not complete the MCP handshake. */
export class McpUpstreamError extends Error {
  override name = 'McpUpstreamError';
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 60 * 60 * 1000;
export const DEFAULT_HANDSHAKE_TIMEOUT_MS = 60 * 1000;

export async function startMcpProxy(downstream: Transport, options: McpProxyOptions): Promise<McpProxy> {
  const warn = options.onWarning ?? (() => undefined);
  const client = new Client({ name: 'toolgate-mcp-proxy', version: ENGINE_VERSION }, { capabilities: {} });
  const handshakeMs = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
  try {
    await client.connect(options.upstream, { timeout: handshakeMs });
  } catch (err) {
    await client.close().catch(() => undefined);
    const timedOut = err instanceof McpError && err.code === ErrorCode.RequestTimeout;
    throw new McpUpstreamError(
      timedOut
        ? `the MCP server did not answer the handshake (initialize) within ${handshakeMs} ms`
        : `the MCP server could not be started: ${describe(err)}`,
    );
  }
  const upstreamInfo = client.getServerVersion() ?? { name: options.serverName, version: '0' };
  const instructions = client.getInstructions();
  const capabilities = relayedCapabilities(client.getServerCapabilities() ?? {});
  const server = new Server(
    { name: upstreamInfo.name, version: upstreamInfo.version },
    { capabilities, ...(instructions ? { instructions } : {}) },
  );

  let gone: string | undefined;
  let closing = false;
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    inFlight.add(work);
    void work.finally(() => inFlight.delete(work)).catch(() => undefined);
    return work;
  };
  const relay = createRelay(client, {
    timeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    isGone: () => gone,
    onWarning: warn,
  });
  // Aborted when the agent leaves (or close() is called): the real server is told to cancel
  // every relayed request still in flight (notifications/cancelled), instead of the proxy
  // waiting up to the request timeout for answers no one will read.
  const leaving = new AbortController();
  const forward = (
    request: { method: string; params?: Record<string, unknown> | undefined },
    extra: RelayExtra,
  ) => track(relay.forward(request, { ...extra, signal: AbortSignal.any([extra.signal, leaving.signal]) }));

  if (capabilities.tools) {
    server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
      const listed = (await forward(request, extra)) as { tools?: unknown };
      const tools = Array.isArray(listed.tools) ? listed.tools : [];
      return { ...listed, tools: tools.filter((t) => isListed(t, options)) } as ServerResult;
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const params = request.params;
      if (params.task !== undefined) {
        // Task results arrive later through tasks/* methods the proxy does not relay.
        throw new McpError(
          ErrorCode.InvalidParams,
          'toolgate mcp-proxy does not relay task-augmented tool calls',
        );
      }
      const name = mcpToolName(options.serverName, params.name);
      const verdict = await track(gate(name, params.arguments ?? {}, options));
      if (!verdict.allowed) return refusal(verdict.message);
      return forward(request, extra);
    });
  }
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (request, extra) => forward(request, extra));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (request, extra) => forward(request, extra));
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      const input = { server: options.serverName, uri: request.params.uri };
      const verdict = await track(gate('ReadMcpResource', input, options));
      // resources/read has no error result: a refusal is a protocol error carrying the reason.
      if (!verdict.allowed) throw new McpError(ErrorCode.InvalidRequest, verdict.message);
      return forward(request, extra);
    });
    if (capabilities.resources.subscribe) {
      server.setRequestHandler(SubscribeRequestSchema, (request, extra) => forward(request, extra));
      server.setRequestHandler(UnsubscribeRequestSchema, (request, extra) => forward(request, extra));
    }
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (request, extra) => forward(request, extra));
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) => forward(request, extra));
  }
  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, (request, extra) => forward(request, extra));
  }
  // The level is the real server's business: it is the one that sends the messages.
  if (capabilities.logging)
    server.setRequestHandler(SetLevelRequestSchema, (request, extra) => forward(request, extra));
  relayNotifications(client, server, warn);

  let settle!: (end: McpProxyEnd) => void;
  const done = new Promise<McpProxyEnd>((resolve) => {
    settle = resolve;
  });
  const shutDown = async (end: McpProxyEnd): Promise<void> => {
    if (closing) return;
    closing = true;
    leaving.abort(
      end.by === 'client' ? 'the agent left the MCP proxy' : 'the MCP server behind toolgate exited',
    );
    // Answer what is in flight (an error: cancelled, or the server died) before the agent's side closes.
    await Promise.allSettled([...inFlight]);
    // The SDK sends a handler's reply a few promise turns after the handler settles.
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.allSettled([server.close(), client.close()]);
    settle(end);
  };
  client.onclose = () => {
    gone ??= 'the MCP server behind toolgate exited, so the proxy is shutting down';
    void shutDown({ by: 'server', message: gone });
  };
  client.onerror = (err) => warn(`MCP server connection: ${describe(err)}`);
  server.onclose = () => void shutDown({ by: 'client' });
  server.onerror = (err) => warn(`MCP client connection: ${describe(err)}`);

  try {
    await server.connect(downstream);
  } catch (err) {
    await client.close().catch(() => undefined);
    throw err;
  }
  return {
    done,
    upstreamInfo: { name: upstreamInfo.name, version: upstreamInfo.version },
    close: async () => {
      await shutDown({ by: 'client' });
    },
  };
}

/** A tool stays listed unless a deny rule removes it for every input (a malformed entry never is). */
function isListed(tool: unknown, options: McpProxyOptions): boolean {
  if (tool === null || typeof tool !== 'object') return false;
  const name = (tool as { name?: unknown }).name;
  if (typeof name !== 'string' || name === '') return false;
  return denyingRule(options.policy, mcpToolName(options.serverName, name)) === undefined;
}

function refusal(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
