import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that speaks the Anthropic Messages API (`POST /v1/messages`, JSON or
 * server-sent events when `stream: true`), answering from a script. The real SDK and the real
 * `claude` binary talk to it exactly as they would to the API; nothing leaves the machine.
 * It drives the demo (a scripted agent session) and the end-to-end tests.
 */
export type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface Reply {
  content: Block[];
  stop_reason: 'end_turn' | 'tool_use' | 'max_tokens';
  /** Streaming only: a pause before each content block, so clients see blocks arrive one by one. */
  pauseBeforeBlockMs?: number;
  /** Streaming only: told when each content block has been fully sent. */
  onBlockSent?: (index: number) => void;
}

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  system?: unknown;
  messages?: { role: string; content: unknown }[];
  tools?: { name: string }[];
  [key: string]: unknown;
}

export interface MessagesApi {
  url: string;
  /** Every request body, in arrival order. */
  requests: MessagesRequest[];
  close(): Promise<void>;
}

export async function startMessagesApi(
  respond: (body: MessagesRequest, index: number) => Reply,
): Promise<MessagesApi> {
  const requests: MessagesRequest[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (d: Buffer) => {
      raw += d.toString();
    });
    req.on('end', () => {
      let body: MessagesRequest = {};
      try {
        body = JSON.parse(raw) as MessagesRequest;
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            type: 'error',
            error: { type: 'invalid_request_error', message: 'body is not JSON' },
          }),
        );
        return;
      }
      if (!(req.url ?? '').startsWith('/v1/messages')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: req.url } }));
        return;
      }
      const index = requests.push(body) - 1;
      const reply = respond(body, index);
      const message = {
        id: `msg_${index + 1}`,
        type: 'message',
        role: 'assistant',
        model: body.model ?? 'mock',
        content: reply.content,
        stop_reason: reply.stop_reason,
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      };
      if (body.stream) void writeStream(res, message, reply);
      else {
        res.writeHead(200, { 'content-type': 'application/json', 'request-id': `req_${index + 1}` });
        res.end(JSON.stringify(message));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function writeStream(
  res: http.ServerResponse,
  message: { content: Block[]; stop_reason: string; [k: string]: unknown },
  reply: Reply,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const emit = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  emit('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } });
  for (const [index, block] of message.content.entries()) {
    if (reply.pauseBeforeBlockMs) await new Promise((r) => setTimeout(r, reply.pauseBeforeBlockMs));
    if (block.type === 'text') {
      emit('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'text', text: '' },
      });
      // Split text so clients see real incremental deltas.
      for (const piece of block.text.match(/.{1,16}/gs) ?? ['']) {
        emit('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'text_delta', text: piece },
        });
      }
    } else {
      emit('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      for (let i = 0; i < json.length; i += 24) {
        emit('content_block_delta', {
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: json.slice(i, i + 24) },
        });
      }
    }
    emit('content_block_stop', { type: 'content_block_stop', index });
    reply.onBlockSent?.(index);
  }
  emit('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: 5 },
  });
  emit('message_stop', { type: 'message_stop' });
  res.end();
}

/** The tool_result blocks a request carries back, by tool_use id. */
export function toolResults(body: MessagesRequest): Map<string, { is_error: boolean; text: string }> {
  const out = new Map<string, { is_error: boolean; text: string }>();
  for (const m of body.messages ?? []) {
    if (m.role !== 'user' || !Array.isArray(m.content)) continue;
    for (const c of m.content as {
      type: string;
      tool_use_id?: string;
      is_error?: boolean;
      content?: unknown;
    }[]) {
      if (c.type !== 'tool_result' || c.tool_use_id === undefined) continue;
      const text = typeof c.content === 'string' ? c.content : JSON.stringify(c.content);
      out.set(c.tool_use_id, { is_error: c.is_error === true, text });
    }
  }
  return out;
}
