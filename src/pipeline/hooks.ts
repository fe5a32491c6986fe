import { type Answer, stricter } from '../policy/behavior.js';
import type { Mode } from '../policy/mode.js';
import { DEFAULT_HOOK_TIMEOUT_MS, runCommandHook } from './hook-command.js';
import { type HookJsonOutput, type HookOpinion, parseHookOutput, parseHookStdout } from './hook-output.js';

/**
 * PreToolUse and PostToolUse hooks: in-process functions and external commands speaking
 * Claude Code's hook JSON. All hooks whose matcher fits the tool run in parallel; an identical
 * handler listed twice runs once.
 *
 * How a hook's failure counts, following Claude Code (research notes §4.1, §4.3):
 * - command hook exit 2 blocks (even if its JSON says allow); stderr or the JSON reason is
 *   the reason the model sees;
 * - command hook with any other non-zero exit, a timeout, unparseable JSON or a missing
 *   program: a non-blocking error, the call goes on to the policy (which still decides);
 * - function hook that throws or times out: blocks (like an Agent SDK callback hook).
 */
export type { HookJsonOutput } from './hook-output.js';

interface CommonHookInput {
  session_id: string;
  transcript_path: string;
  cwd: string;
  permission_mode: Mode;
  agent_id?: string;
}

export interface PreToolUseHookInput extends CommonHookInput {
  hook_event_name: 'PreToolUse';
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_use_id: string;
}

export interface PostToolUseHookInput extends CommonHookInput {
  hook_event_name: 'PostToolUse';
  tool_name: string;
  tool_input: Record<string, unknown>;
  tool_response: unknown;
  tool_use_id: string;
  duration_ms: number;
}

export type HookInput = PreToolUseHookInput | PostToolUseHookInput;

export type HookFunction = (
  input: HookInput,
  signal: AbortSignal,
) => HookJsonOutput | undefined | Promise<HookJsonOutput | undefined>;

export type HookHandler =
  | { type: 'function'; fn: HookFunction; timeoutMs?: number; name?: string }
  | { type: 'command'; command: string; timeoutMs?: number };

export interface HookMatcher {
  /** `*`, empty or absent: every tool; `A|B` or `A, B`: those names; anything else: a regex. */
  matcher?: string;
  hooks: HookHandler[];
}

export interface HookConfig {
  PreToolUse?: HookMatcher[];
  PostToolUse?: HookMatcher[];
}

/** The hooks' combined verdict on one call, before the policy has spoken. */
export interface PreHookVerdict {
  /** Strictest of the hooks' decisions (policy/behavior.ts: deny > defer > ask > allow). */
  permission?: Answer;
  reason?: string;
  updatedInput?: Record<string, unknown>;
  /** Two hooks rewrote the input differently: the call must not run. */
  conflict?: string;
  additionalContext: string[];
  stop?: string;
  /** Non-blocking errors and system messages, for the person running the session. */
  notes: string[];
}

export interface PostHookVerdict {
  /** Text for the model, appended to the result: feedback and additional context. */
  feedback: string[];
  stop?: string;
  notes: string[];
}

const SIMPLE = /^[A-Za-z0-9_\- ,|]*$/;

/** Claude Code's matcher semantics; an invalid regex is reported, never silently skipped. */
export function matcherFits(matcher: string | undefined, tool: string): boolean | { invalid: string } {
  if (matcher === undefined || matcher === '' || matcher === '*') return true;
  if (SIMPLE.test(matcher)) {
    return matcher
      .split(/[,|]/)
      .map((s) => s.trim())
      .includes(tool);
  }
  try {
    return new RegExp(matcher).test(tool);
  } catch (err) {
    return {
      invalid: `the hook matcher ${JSON.stringify(matcher)} is not a valid regex: ${(err as Error).message}`,
    };
  }
}

type HookRun =
  | { kind: 'ok'; opinion: HookOpinion }
  | { kind: 'blocked'; reason: string; opinion?: HookOpinion }
  | { kind: 'error'; message: string };

function selectHandlers(
  matchers: readonly HookMatcher[] | undefined,
  tool: string,
): { handlers: HookHandler[]; invalid: string[] } {
  const handlers: HookHandler[] = [];
  const invalid: string[] = [];
  const seen = new Set<unknown>();
  for (const m of matchers ?? []) {
    const fits = matcherFits(m.matcher, tool);
    if (typeof fits === 'object') {
      invalid.push(fits.invalid);
      continue;
    }
    if (!fits) continue;
    for (const h of m.hooks) {
      const key = h.type === 'command' ? `command:${h.command}` : h.fn;
      if (seen.has(key)) continue;
      seen.add(key);
      handlers.push(h);
    }
  }
  return { handlers, invalid };
}

async function runHandler(
  handler: HookHandler,
  input: HookInput,
  cwd: string,
  signal: AbortSignal,
): Promise<HookRun> {
  const event = input.hook_event_name;
  const timeoutMs = handler.timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  if (handler.type === 'command') {
    const run = await runCommandHook(handler.command, input, { cwd, timeoutMs, signal });
    const name = `hook "${handler.command}"`;
    if (run.spawnError) return { kind: 'error', message: `${name} could not start: ${run.spawnError}` };
    if (run.timedOut) return { kind: 'error', message: `${name} did not answer within ${timeoutMs} ms` };
    if (run.aborted) return { kind: 'error', message: `${name} was stopped: the call was aborted` };
    if (run.exitCode === 2) {
      const parsed = parseHookStdout(run.stdout, event);
      const json = parsed.ok ? parsed.opinion.reason : undefined;
      const reason = json ?? (run.stderr.trim() || `${name} blocked the call (exit 2)`);
      return parsed.ok ? { kind: 'blocked', reason, opinion: parsed.opinion } : { kind: 'blocked', reason };
    }
    if (run.exitCode !== 0) {
      const err = run.stderr.trim();
      return { kind: 'error', message: `${name} failed with exit ${run.exitCode}${err ? `: ${err}` : ''}` };
    }
    const parsed = parseHookStdout(run.stdout, event);
    return parsed.ok
      ? { kind: 'ok', opinion: parsed.opinion }
      : { kind: 'error', message: `${name}: ${parsed.message}` };
  }
  const name = `hook ${handler.name ?? handler.fn.name ?? '(function)'}`;
  const timeout = new AbortController();
  const onAbort = () => timeout.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  try {
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => {
        timeout.abort();
        resolve('timeout');
      }, timeoutMs);
    });
    const value = await Promise.race([Promise.resolve(handler.fn(input, timeout.signal)), expired]);
    if (value === 'timeout')
      return { kind: 'blocked', reason: `${name} did not answer within ${timeoutMs} ms` };
    const parsed = parseHookOutput(value, event);
    return parsed.ok
      ? { kind: 'ok', opinion: parsed.opinion }
      : { kind: 'blocked', reason: `${name}: ${parsed.message}` };
  } catch (err) {
    return { kind: 'blocked', reason: `${name} failed: ${err instanceof Error ? err.message : String(err)}` };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

export async function runPreToolUseHooks(
  config: HookConfig | undefined,
  input: PreToolUseHookInput,
  signal: AbortSignal,
): Promise<PreHookVerdict> {
  const verdict: PreHookVerdict = { additionalContext: [], notes: [] };
  const { handlers, invalid } = selectHandlers(config?.PreToolUse, input.tool_name);
  if (invalid.length > 0) {
    // A hook that cannot be matched is a hook that cannot guard: refuse rather than skip it.
    verdict.permission = 'deny';
    verdict.reason = invalid.join('; ');
    return verdict;
  }
  if (handlers.length === 0) return verdict;
  const runs = await Promise.all(handlers.map((h) => runHandler(h, input, input.cwd, signal)));
  const reasons: Partial<Record<Answer, string[]>> = {};
  const note = (p: Answer, reason: string | undefined) => {
    verdict.permission = verdict.permission === undefined ? p : stricter(verdict.permission, p);
    if (reason) {
      reasons[p] ??= [];
      reasons[p].push(reason);
    }
  };
  let rewritten: string | undefined;
  for (const run of runs) {
    if (run.kind === 'error') {
      verdict.notes.push(run.message);
      continue;
    }
    if (run.kind === 'blocked') note('deny', run.reason);
    const o = run.opinion;
    if (!o) continue;
    if (run.kind === 'ok' && o.permission) note(o.permission, o.reason);
    if (o.additionalContext) verdict.additionalContext.push(o.additionalContext);
    if (o.systemMessage) verdict.notes.push(o.systemMessage);
    if (o.stop !== undefined) verdict.stop ??= o.stop;
    if (o.updatedInput && run.kind === 'ok') {
      const text = JSON.stringify(o.updatedInput);
      if (rewritten !== undefined && rewritten !== text) {
        verdict.conflict = 'two PreToolUse hooks rewrote the input differently';
      }
      rewritten = text;
      verdict.updatedInput = o.updatedInput;
    }
  }
  if (verdict.permission) {
    const list = reasons[verdict.permission];
    if (list && list.length > 0) verdict.reason = list.join('; ');
  }
  return verdict;
}

export async function runPostToolUseHooks(
  config: HookConfig | undefined,
  input: PostToolUseHookInput,
  signal: AbortSignal,
): Promise<PostHookVerdict> {
  const verdict: PostHookVerdict = { feedback: [], notes: [] };
  const { handlers, invalid } = selectHandlers(config?.PostToolUse, input.tool_name);
  verdict.notes.push(...invalid);
  if (handlers.length === 0) return verdict;
  const runs = await Promise.all(handlers.map((h) => runHandler(h, input, input.cwd, signal)));
  for (const run of runs) {
    if (run.kind === 'error') {
      verdict.notes.push(run.message);
      continue;
    }
    // The tool already ran: a block (exit 2 or decision "block") can only tell the model.
    if (run.kind === 'blocked') verdict.feedback.push(`PostToolUse hook: ${run.reason}`);
    const o = run.opinion;
    if (!o) continue;
    if (o.block) verdict.feedback.push(`PostToolUse hook: ${o.block}`);
    if (o.additionalContext) verdict.feedback.push(o.additionalContext);
    if (o.systemMessage) verdict.notes.push(o.systemMessage);
    if (o.stop !== undefined) verdict.stop ??= o.stop;
  }
  return verdict;
}
