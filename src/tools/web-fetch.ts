import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolCallContext, ToolResult } from '../pipeline/tool.js';
import { htmlToText } from './html-text.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';

/**
 * WebFetch: GET a URL and hand back its text. The policy decides which domains may be fetched
 * (`WebFetch(domain:...)` rules); the call runs only when its sandbox profile grants network.
 * A redirect is followed only within the same host: a redirect elsewhere would reach a domain
 * the policy never judged, so the model is told the new URL and must make a new call (which
 * the policy then decides). Bodies are capped, so a huge response cannot fill memory.
 *
 * Claude Code runs the page through a small model with the `prompt`; toolgate has no model
 * here, so it returns the page text with the prompt, for the calling model to apply.
 */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
export const MAX_REDIRECTS = 5;

const inputSchema = z.strictObject({
  url: z.string().min(1).describe('The http(s) URL to fetch'),
  prompt: z.string().default('').describe('What to look for in the page'),
});

export type WebFetchOutput =
  | {
      url: string;
      status: number;
      contentType: string;
      text: string;
      bytes: number;
      truncated: boolean;
      prompt: string;
    }
  | { redirect: string; from: string; status: number }
  | Refusal;

export const WebFetchTool = buildTool({
  name: 'WebFetch',
  searchHint: 'fetch url http web page download',
  inputSchema,
  maxResultSizeChars: 100_000,
  isReadOnly: () => false,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => 'cancel',
  prompt: () =>
    'Fetches an http(s) URL and returns its text (HTML converted to text). Redirects to another host are not followed: you get the new URL and can fetch it with a new call.',
  description: (input) => `Fetch ${input.url}`,
  validateInput: async (input) => {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      return { result: false, message: `"${input.url}" is not a valid URL.` };
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return { result: false, message: 'Only http and https URLs can be fetched.' };
    if (url.username || url.password)
      return { result: false, message: 'URLs with credentials in them are not fetched.' };
    return { result: true };
  },
  toAutoClassifierInput: (input) => input.url,
  async call(input, ctx): Promise<ToolResult<WebFetchOutput>> {
    if (!ctx.sandbox.network) {
      return {
        data: refuse('network', 'The policy gives this call no network access; nothing was fetched.'),
      };
    }
    return { data: await fetchFollowingSameHost(input.url, input.prompt, ctx) };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    if ('redirect' in output) {
      return {
        type: 'tool_result',
        tool_use_id: toolUseId,
        content: `REDIRECT DETECTED: ${output.from} redirects (HTTP ${output.status}) to a different host: ${output.redirect}\nTo follow it, call WebFetch again with that URL.`,
      };
    }
    const head = `${output.url} (HTTP ${output.status}, ${output.contentType || 'unknown type'}, ${output.bytes} bytes${output.truncated ? `, cut at ${MAX_BODY_BYTES}` : ''})`;
    const ask = output.prompt ? `\nPrompt: ${output.prompt}` : '';
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: `${head}${ask}\n\n${output.text}`,
      ...(output.status >= 400 ? { is_error: true } : {}),
    };
  },
  renderToolUseMessage: (input) => `WebFetch(${input.url ?? ''})`,
  renderToolResultMessage: (output) =>
    isRefusal(output)
      ? `✗ ${output.message}`
      : 'redirect' in output
        ? `→ ${output.redirect}`
        : `HTTP ${output.status}, ${output.bytes} bytes`,
});

async function fetchFollowingSameHost(
  start: string,
  prompt: string,
  ctx: ToolCallContext,
): Promise<WebFetchOutput> {
  let url = new URL(start);
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(ctx.sandbox.timeoutMs)]);
  for (let hops = 0; ; hops++) {
    let response: Response;
    try {
      response = await fetch(url, {
        redirect: 'manual',
        signal,
        headers: { 'user-agent': 'toolgate-webfetch' },
      });
    } catch (err) {
      return refuse('network', `Fetching ${url.href} failed: ${(err as Error).message}.`);
    }
    const location = response.headers.get('location');
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return refuse('network', `${url.href} redirects to an invalid location: ${location}.`);
      }
      if (next.host !== url.host || next.protocol !== url.protocol)
        return { redirect: next.href, from: url.href, status: response.status };
      if (hops >= MAX_REDIRECTS)
        return refuse('network', `${start} redirected more than ${MAX_REDIRECTS} times.`);
      url = next;
      continue;
    }
    const { bytes, body, truncated } = await readCapped(response);
    const contentType = response.headers.get('content-type') ?? '';
    const raw = body.toString('utf8');
    const text = /html/i.test(contentType) ? htmlToText(raw) : raw;
    return { url: url.href, status: response.status, contentType, text, bytes, truncated, prompt };
  }
}

async function readCapped(response: Response): Promise<{ bytes: number; body: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  if (!response.body) return { bytes: 0, body: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const room = MAX_BODY_BYTES - bytes;
    chunks.push(Buffer.from(value.subarray(0, Math.max(0, room))));
    bytes += value.length;
    if (bytes >= MAX_BODY_BYTES) {
      await reader.cancel();
      return { bytes, body: Buffer.concat(chunks), truncated: true };
    }
  }
  return { bytes, body: Buffer.concat(chunks), truncated: false };
}
