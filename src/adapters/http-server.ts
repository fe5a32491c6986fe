import http from 'node:http';
import type { DecisionLog } from '../audit/log.js';
import { type AutoClassifier, decideWithClassifier } from '../policy/auto.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Decision } from '../policy/decision.js';
import { parseMode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';
import { decideParts } from './call-parts.js';
import { claudePreToolUse } from './claude-hook.js';
import { agentOf, type HookProtocol, readHookPayload } from './hook-protocol.js';
import { HOOK_PROTOCOLS } from './hook-protocols.js';

/**
 * The same decisions from a warm process over HTTP:
 *   POST /hook    a Claude Code http hook (PreToolUse or PermissionRequest; hook-protocols.ts):
 *                 hook JSON in, hook JSON out. HTTP hooks cannot block with a status code, so
 *                 every failure, and a payload of no known protocol, answers 200 with a deny.
 *   POST /decide  {"tool", "input", "cwd", "mode"?} -> a Decision.
 *   GET  /health  {"ok": true, "policyDigest"}.
 * Bodies are bounded; requests run concurrently; the decision log serializes its own appends.
 */
export interface DecisionServerOptions {
  policy: () => CompiledPolicy;
  log?: DecisionLog | undefined;
  /** auto mode's classifier for the current policy (undefined: the offline one). */
  classifier?: () => AutoClassifier | undefined;
  maxBodyBytes?: number;
}

export const DEFAULT_MAX_BODY = 1024 * 1024;

export function createDecisionServer(options: DecisionServerOptions): http.Server {
  const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const decide = (request: ToolRequest): Promise<Decision> => {
    const classifier = options.classifier?.();
    return decideWithClassifier(request, options.policy(), classifier ? { classifier } : {});
  };
  const decideAndLog = async (request: ToolRequest): Promise<Decision> => {
    const decision = await decide(request);
    await options.log?.append({ request, decision });
    return decision;
  };

  return http.createServer((req, res) => {
    const send = (status: number, body: unknown): void => {
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(text),
        'cache-control': 'no-store',
      });
      res.end(text);
    };
    const route = `${req.method} ${(req.url ?? '').split('?')[0]}`;
    if (route === 'GET /health') {
      try {
        send(200, { ok: true, policyDigest: options.policy().digest });
      } catch (err) {
        // No policy to decide with (a bundle expired): not healthy, and never a crash.
        send(503, { ok: false, error: err instanceof Error ? err.message : String(err) });
      }
      return;
    }
    if (route !== 'POST /hook' && route !== 'POST /decide') {
      send(404, { error: 'not found: use POST /hook, POST /decide or GET /health' });
      return;
    }
    const isHook = route === 'POST /hook';
    // The protocol the body turned out to be; until it is known, Claude Code's PreToolUse deny.
    let protocol: HookProtocol | undefined;
    const block = (reason: string): unknown => (protocol ?? claudePreToolUse).httpBlock(reason);
    readBody(req, maxBody).then(
      async (body) => {
        try {
          if (isHook) {
            const parsed = readHookPayload(body, HOOK_PROTOCOLS);
            protocol = parsed.protocol;
            if (!parsed.ok) return send(200, block(parsed.error));
            const agent = agentOf(parsed.protocol, parsed.payload);
            const decided = await decideParts(parsed.parts, decide);
            const answer = parsed.protocol.answer(decided.decision);
            // recorded with the answer the agent is sent, before it is sent (unrecorded: blocked)
            for (const d of decided.decided) await options.log?.append({ ...d, agent, sent: answer.sent });
            return send(200, answer.output ?? {});
          }
          const request = toolRequest(body);
          if (typeof request === 'string') return send(400, { error: request });
          return send(200, await decideAndLog(request));
        } catch (err) {
          // A refused policy says so itself; anything else is a bug in toolgate.
          const refused = err instanceof Error && err.name === 'PolicyLoadFailed';
          const reason = refused
            ? err.message
            : `internal error: ${err instanceof Error ? err.message : String(err)}`;
          return isHook ? send(200, block(reason)) : send(500, { error: reason });
        }
      },
      (err: Error & { status?: number }) => {
        if (isHook) send(200, block(err.message));
        else send(err.status ?? 400, { error: err.message });
      },
    );
  });
}

function toolRequest(body: string): ToolRequest | string {
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (err) {
    return `body is not JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  const r = data as Partial<ToolRequest> & { mode?: string };
  if (r === null || typeof r !== 'object') return 'body must be a JSON object';
  if (typeof r.tool !== 'string') return 'missing "tool"';
  if (typeof r.cwd !== 'string') return 'missing "cwd" (an absolute path)';
  const mode = r.mode === undefined ? undefined : parseMode(r.mode);
  if (r.mode !== undefined && mode === undefined) return `unknown mode "${r.mode}"`;
  return {
    tool: r.tool,
    input: r.input ?? {},
    cwd: r.cwd,
    ...(mode ? { mode } : {}),
    ...(typeof r.sessionId === 'string' ? { sessionId: r.sessionId } : {}),
    ...(typeof r.agentId === 'string' ? { agentId: r.agentId } : {}),
  };
}

function readBody(req: http.IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        const err = Object.assign(new Error(`request body larger than ${max} bytes`), { status: 413 });
        req.removeAllListeners('data');
        req.resume();
        reject(err);
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
