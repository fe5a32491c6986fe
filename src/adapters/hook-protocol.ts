import type { SentAnswer } from '../audit/entry.js';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';

/**
 * The hook protocols toolgate answers, as one registry: each entry says how to recognise its
 * payloads, how to read one into a ToolRequest, how to answer a Decision and how to block when
 * toolgate cannot decide. A payload no entry recognises is refused (the hook exits 2): an agent
 * that reads silence as "allow" must never get silence. Adding an agent is adding an entry.
 */
export interface HookAnswer {
  /** The JSON to write on stdout (or send back over HTTP); undefined: nothing at all. */
  readonly output?: unknown;
  /**
   * What that output tells the agent, for the decision log: each protocol says it, because only
   * it knows (Codex's allow is no output, its ask a deny). Required, so no answer goes unsaid.
   */
  readonly sent: SentAnswer;
}

/** What a protocol sends for `behavior`: the answer, jailed when the call was rewritten into the jail. */
export function sentAs(behavior: SentAnswer['answer'], jailed = false): SentAnswer {
  return jailed && behavior !== 'deny' ? { answer: behavior, jailed: true } : { answer: behavior };
}

/** How the user asked toolgate to answer (hook options that apply to several agents). */
export interface AnswerOptions {
  /**
   * `--agent-asks`: where an agent has no way to show toolgate's ask to a person from a hook
   * (Codex, Copilot, Gemini headless), leave the call to the agent's own approval flow instead
   * of denying it. Off by default: an ask nobody can answer is a deny, never a silent allow.
   */
  readonly agentAsks?: boolean;
}

export interface HookProtocol {
  /** `agent/event`, e.g. `claude-code/PreToolUse`: named in errors and logs. */
  readonly name: string;
  /** Whether the payload is this protocol's: exact and cheap, no validation beyond telling them apart. */
  readonly recognises: (payload: Readonly<Record<string, unknown>>) => boolean;
  /** The payload as a request, or what is wrong with it (a payload of this protocol that cannot be read). */
  readonly request: (payload: Readonly<Record<string, unknown>>) => ToolRequest | string;
  /**
   * The toolgate calls one agent call stands for, each decided on its own (the strictest answer
   * is the call's): Codex's apply_patch is a Write, Edit or Read per file it touches. Absent: the
   * call is one part, itself. A string: the call cannot be read as parts (a malformed patch), and
   * it is blocked.
   */
  readonly parts?: (request: ToolRequest) => readonly CallPart[] | string;
  /** The agent's version, where its payload says it (Cursor's `cursor_version`): for the decision log. */
  readonly agentVersion?: (payload: Readonly<Record<string, unknown>>) => string | undefined;
  readonly answer: (decision: Decision, options?: AnswerOptions) => HookAnswer;
  /**
   * Enforced mode, for agents that can run a changed input: the answer to an allowed or asked
   * call that makes the agent run `input` (the jailed command) instead. Absent: the agent cannot
   * rewrite a call, and `--enforce` answers as usual.
   */
  readonly rewritten?: (
    decision: Decision,
    input: Readonly<Record<string, unknown>>,
    options?: AnswerOptions,
  ) => HookAnswer;
  /**
   * How a command hook blocks when toolgate cannot decide: `exit` when the agent treats exit 2
   * as "block", else the answer to print (exit 0) that denies.
   */
  readonly block: (reason: string) => 'exit' | HookAnswer;
  /** The deny an HTTP hook answers (HTTP status codes block nothing). */
  readonly httpBlock: (reason: string) => unknown;
}

/**
 * The agent a payload came from, as the decision log names it: the protocol's agent (its name
 * before the slash) and, if the payload says, its version (bounded: it is the agent's text).
 */
export function agentOf(
  protocol: HookProtocol,
  payload: Readonly<Record<string, unknown>>,
): { name: string; version?: string } {
  const name = protocol.name.slice(0, protocol.name.indexOf('/'));
  const version = protocol.agentVersion?.(payload);
  return version === undefined || version === '' ? { name } : { name, version: version.slice(0, 64) };
}

/** One toolgate call of an agent's call; `label` says which (`*** Update File: src/a.ts`) when there are several. */
export interface CallPart {
  readonly request: ToolRequest;
  readonly label?: string;
}

export type HookPayload =
  | {
      readonly ok: true;
      readonly protocol: HookProtocol;
      /** The call as the agent sent it. */
      readonly request: ToolRequest;
      /** What is decided: `request` itself, or the protocol's parts of it (never empty). */
      readonly parts: readonly CallPart[];
      readonly payload: Readonly<Record<string, unknown>>;
    }
  /** `protocol` when the payload was recognised but is not valid for it. */
  | { readonly ok: false; readonly error: string; readonly protocol?: HookProtocol };

/** Reads hook JSON with the first protocol of `protocols` that recognises it. */
export function readHookPayload(text: string, protocols: readonly HookProtocol[]): HookPayload {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    return {
      ok: false,
      error: `hook input is not JSON: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    return { ok: false, error: 'hook input must be a JSON object' };
  const payload = data as Record<string, unknown>;
  const protocol = protocols.find((p) => p.recognises(payload));
  if (protocol === undefined) return { ok: false, error: unknownPayload(payload, protocols) };
  const request = protocol.request(payload);
  if (typeof request === 'string') return { ok: false, error: request, protocol };
  const parts = protocol.parts ? protocol.parts(request) : [{ request }];
  if (typeof parts === 'string') return { ok: false, error: parts, protocol };
  // a call of no parts would be decided by nothing: never an allow
  if (parts.length === 0)
    return { ok: false, error: `${protocol.name}: the call has nothing to decide`, protocol };
  return { ok: true, protocol, request, parts, payload };
}

function unknownPayload(
  payload: Readonly<Record<string, unknown>>,
  protocols: readonly HookProtocol[],
): string {
  const event = payload.hook_event_name;
  const what =
    typeof event === 'string'
      ? `hook event "${event.slice(0, 80)}"`
      : 'a hook payload without hook_event_name';
  return `unknown hook payload: ${what} is not one toolgate answers (it answers ${protocols.map((p) => p.name).join(', ')}); blocked`;
}
