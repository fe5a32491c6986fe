import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Loopback stand-ins for the model APIs other agents speak, so that their real binaries can be
 * driven headless and offline: each main-loop request (one that declares the scripted call's tool)
 * gets the next scripted tool call, everything after them plain text "done". Every request body
 * is kept, so a test can read what the model was told (the tool results, toolgate's reasons).
 */
export type ScriptedCall =
  | {
      /** The tool name as the agent declares it (run_shell_command, exec_command, bash). */
      readonly name: string;
      readonly args: Readonly<Record<string, unknown>>;
    }
  /** A freeform (Responses API `custom`) tool's call, e.g. Codex's apply_patch: its text input. */
  | { readonly name: string; readonly input: string };

export interface ModelServer {
  readonly url: string;
  /** Every request body received, in order. */
  readonly requests: unknown[];
  close(): Promise<void>;
}

function serve(
  handle: (path: string, body: Record<string, unknown>, res: http.ServerResponse) => void,
): Promise<ModelServer> {
  const requests: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
      } catch {
        // a body that is not JSON is kept as nothing: the answer is "done"
      }
      requests.push(body);
      handle((req.url ?? '').split('?')[0] ?? '', body, res);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function json(res: http.ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** A scripted queue: the next call when the request declares its tool. */
function script(calls: readonly ScriptedCall[]) {
  let step = 0;
  return (declared: readonly string[]): ScriptedCall | undefined => {
    const next = calls[step];
    if (next === undefined || !declared.includes(next.name)) return undefined;
    step++;
    return next;
  };
}

/**
 * The Gemini API (generativelanguage v1beta) as Gemini CLI 0.61.0 calls it: streamGenerateContent
 * over SSE, generateContent for its side requests (a JSON reply filled from the response schema),
 * countTokens.
 */
export function startGeminiApi(calls: readonly ScriptedCall[]): Promise<ModelServer> {
  const next = script(calls);
  const reply = (body: Record<string, unknown>) => {
    const tools = (body.tools as { functionDeclarations?: { name: string }[] }[] | undefined) ?? [];
    const declared = tools.flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
    const config = (body.generationConfig ?? {}) as Record<string, unknown>;
    const call = next(declared);
    const parts = call
      ? [{ functionCall: { name: call.name, args: 'args' in call ? call.args : { input: call.input } } }]
      : config.responseMimeType === 'application/json'
        ? [{ text: JSON.stringify(fill(config.responseJsonSchema ?? config.responseSchema)) }]
        : [{ text: 'done' }];
    return {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      modelVersion: 'mock',
    };
  };
  return serve((path, body, res) => {
    if (path.endsWith(':countTokens')) return json(res, { totalTokens: 1 });
    if (path.endsWith(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify(reply(body))}\r\n\r\n`);
      return;
    }
    if (path.endsWith(':generateContent')) return json(res, reply(body));
    json(res, {});
  });
}

/** A value for a JSON response schema (Gemini's router and next-speaker checks). */
function fill(schema: unknown, key?: string): unknown {
  const preferred: Record<string, string> = { next_speaker: 'user', model_choice: 'flash' };
  if (key !== undefined && key in preferred) return preferred[key];
  if (schema === null || typeof schema !== 'object') return 'mock';
  const s = schema as {
    enum?: unknown[];
    type?: string;
    properties?: Record<string, unknown>;
    minimum?: number;
  };
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = String(s.type ?? '').toLowerCase();
  if (type === 'object' || s.properties)
    return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, fill(v, k)]));
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'number' || type === 'integer') return s.minimum ?? 1;
  return 'mock';
}

/**
 * The OpenAI Responses API (`POST /v1/responses`, SSE) as Codex CLI 0.171.0 and opencode 1.18.33
 * call it: one output item per response, a function_call or a text message.
 */
export function startResponsesApi(calls: readonly ScriptedCall[]): Promise<ModelServer> {
  const next = script(calls);
  let n = 0;
  return serve((path, body, res) => {
    if (path.endsWith('/models')) return json(res, { object: 'list', data: [], models: [] });
    if (!path.endsWith('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `no route ${path}`, type: 'invalid_request_error' } }));
      return;
    }
    n++;
    const tools = (body.tools as { name?: string; function?: { name?: string } }[] | undefined) ?? [];
    const declared = tools.map((t) => t.name ?? t.function?.name ?? '').filter((x) => x !== '');
    const call = next(declared);
    const callId = `call_${String(n).padStart(3, '0')}`;
    const item = call
      ? 'input' in call
        ? {
            type: 'custom_tool_call',
            id: `ctc_${n}`,
            call_id: callId,
            name: call.name,
            input: call.input,
            status: 'completed',
          }
        : {
            type: 'function_call',
            id: `fc_${n}`,
            call_id: callId,
            name: call.name,
            arguments: JSON.stringify(call.args),
            status: 'completed',
          }
      : {
          type: 'message',
          id: `msg_${n}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'done', annotations: [] }],
        };
    const usage = {
      input_tokens: 1,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 1,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 2,
    };
    const base = {
      id: `resp_${n}`,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      model: body.model ?? 'mock',
      output: [],
    };
    if (body.stream === false) return json(res, { ...base, status: 'completed', output: [item], usage });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let seq = 0;
    const emit = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
    emit('response.created', { response: { ...base, status: 'in_progress' } });
    emit('response.in_progress', { response: { ...base, status: 'in_progress' } });
    if (item.type === 'message') {
      const part = { type: 'output_text', text: 'done', annotations: [] };
      emit('response.output_item.added', {
        output_index: 0,
        item: { ...item, status: 'in_progress', content: [] },
      });
      emit('response.content_part.added', {
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        part: { ...part, text: '' },
      });
      emit('response.output_text.delta', {
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        delta: 'done',
      });
      emit('response.output_text.done', {
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        text: 'done',
      });
      emit('response.content_part.done', { item_id: item.id, output_index: 0, content_index: 0, part });
    } else if (item.type === 'custom_tool_call') {
      emit('response.output_item.added', {
        output_index: 0,
        item: { ...item, input: '', status: 'in_progress' },
      });
    } else {
      const args = (item as { arguments: string }).arguments;
      emit('response.output_item.added', {
        output_index: 0,
        item: { ...item, arguments: '', status: 'in_progress' },
      });
      emit('response.function_call_arguments.delta', { item_id: item.id, output_index: 0, delta: args });
      emit('response.function_call_arguments.done', { item_id: item.id, output_index: 0, arguments: args });
    }
    emit('response.output_item.done', { output_index: 0, item });
    emit('response.completed', { response: { ...base, status: 'completed', output: [item], usage } });
    res.end();
  });
}
