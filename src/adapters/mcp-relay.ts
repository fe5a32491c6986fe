import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type ClientRequest,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ResultSchema,
  type ServerCapabilities,
  type ServerNotification,
  type ServerResult,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * Passing MCP traffic through the proxy unchanged: a request from the agent goes to the real
 * server with its cancellation and progress wired through, and the server's notifications
 * (list changes, resource updates, log messages) go back to the agent. What the proxy decides
 * on (tools/call, resources/read) is in mcp-proxy.ts; this file only relays.
 */

/** What a request handler gets from the SDK that relaying needs. */
export interface RelayExtra {
  readonly signal: AbortSignal;
  sendNotification(notification: ServerNotification): Promise<void>;
}

export interface Relay {
  /** Sends `request` to the real server and returns its result as it came. */
  forward(
    request: { method: string; params?: Record<string, unknown> | undefined },
    extra: RelayExtra,
  ): Promise<ServerResult>;
}

/**
 * The capabilities the agent is offered: those of the real server that the proxy can pass on.
 * Tasks and experimental capabilities are left out, since the proxy cannot guard methods it does
 * not know.
 */
export function relayedCapabilities(upstream: ServerCapabilities): ServerCapabilities {
  const caps: ServerCapabilities = {};
  if (upstream.tools) caps.tools = { ...(upstream.tools.listChanged ? { listChanged: true } : {}) };
  if (upstream.resources) {
    caps.resources = {
      ...(upstream.resources.subscribe ? { subscribe: true } : {}),
      ...(upstream.resources.listChanged ? { listChanged: true } : {}),
    };
  }
  if (upstream.prompts) caps.prompts = { ...(upstream.prompts.listChanged ? { listChanged: true } : {}) };
  if (upstream.logging) caps.logging = {};
  if (upstream.completions) caps.completions = {};
  return caps;
}

export function createRelay(
  client: Client,
  options: { timeoutMs: number; isGone: () => string | undefined; onWarning: (message: string) => void },
): Relay {
  return {
    async forward(request, extra) {
      const gone = options.isGone();
      if (gone !== undefined) throw new McpError(ErrorCode.ConnectionClosed, gone);
      const requestOptions: RequestOptions = {
        signal: extra.signal,
        timeout: options.timeoutMs,
        resetTimeoutOnProgress: true,
      };
      // The SDK gives the upstream request its own progress token; progress comes back to the
      // agent under the token the agent chose.
      const token = (request.params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      if (token !== undefined) {
        requestOptions.onprogress = (progress) => {
          extra
            .sendNotification({
              method: 'notifications/progress',
              params: { ...progress, progressToken: token },
            })
            .catch((err) => options.onWarning(`progress could not be passed on: ${describe(err)}`));
        };
      }
      try {
        const message = { method: request.method, params: request.params } as ClientRequest;
        return (await client.request(message, ResultSchema, requestOptions)) as ServerResult;
      } catch (err) {
        // A request cut off by the server's exit says so, instead of a bare "Connection closed".
        const after = options.isGone();
        const answered = err instanceof McpError && err.code !== ErrorCode.ConnectionClosed;
        if (after !== undefined && !answered) throw new McpError(ErrorCode.ConnectionClosed, after);
        throw err;
      }
    },
  };
}

/** The real server's notifications, passed on to the agent when the agent was offered them. */
export function relayNotifications(
  client: Client,
  server: Server,
  onWarning: (message: string) => void,
): void {
  const schemas = [
    ToolListChangedNotificationSchema,
    ResourceListChangedNotificationSchema,
    ResourceUpdatedNotificationSchema,
    PromptListChangedNotificationSchema,
    LoggingMessageNotificationSchema,
  ] as const;
  for (const schema of schemas) {
    client.setNotificationHandler(schema, async (notification) => {
      try {
        await server.notification(notification as ServerNotification);
      } catch (err) {
        onWarning(`${notification.method} could not be passed on: ${describe(err)}`);
      }
    });
  }
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
