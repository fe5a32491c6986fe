import path from 'node:path';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { blockedReason, reasonOf } from './claude-hook.js';
import { codexShaped } from './codex-marks.js';
import { patchParts } from './codex-patch-parts.js';
import { shellPatch } from './codex-patch-shell.js';
import {
  type AnswerOptions,
  type CallPart,
  type HookAnswer,
  type HookProtocol,
  sentAs,
} from './hook-protocol.js';
import { unaskable } from './unaskable.js';

/**
 * Codex CLI's PreToolUse command hook (`$CODEX_HOME/hooks.json` or `[hooks]` in config.toml). Its
 * payload is shaped like Claude Code's, `{session_id, turn_id, transcript_path, cwd,
 * hook_event_name: "PreToolUse", model, permission_mode, tool_name: "Bash", tool_input:
 * {command}, tool_use_id}` (observed from codex-cli 0.171.0, ../shared/research/agents.md), and
 * told apart by `turn_id`, which Claude Code does not send.
 *
 * What Codex honours, from its 0.171.0 binary's messages and observed runs: a deny with a
 * non-empty reason (`permissionDecision: "deny"`), exit 2 with stderr, and an allow that carries
 * `updatedInput` (the rewritten command runs). A bare allow or an ask is "unsupported": the
 * hook is marked failed and the command runs anyway. So toolgate answers an allow with nothing
 * (Codex's own sandbox and approval settings then apply, as they would without the hook) and an
 * ask with a deny that says why, unless `--agent-asks` leaves it to Codex's approval. Every
 * failure exits 2; exit 1 or empty output would let the call run.
 *
 * Codex sends `permission_mode: "bypassPermissions"` in every `codex exec` run whatever its
 * sandbox or approval setting (observed), so it is not the user's intent: the call is decided in
 * toolgate's default mode, and `--mode` sets another.
 */
export const codexPreToolUse: HookProtocol = {
  name: 'codex/PreToolUse',
  recognises: (p) => p.hook_event_name === 'PreToolUse' && codexShaped(p),
  request: (p) => codexRequest(p, 'PreToolUse'),
  parts: codexParts,
  answer: codexAnswer,
  rewritten: (decision, input, options) => {
    const answered = asked(decision, options);
    return answered.behavior === 'deny'
      ? codexAnswer(answered)
      : {
          output: {
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'allow',
              updatedInput: input,
            },
          },
          // an ask passed on (--agent-asks) is sent as this allow too: Codex has no other way to run it jailed
          sent: sentAs('allow', true),
        };
  },
  block: () => 'exit',
  httpBlock: (reason) => denyOutput(blockedReason(reason)),
};

function asked(decision: Decision, options: AnswerOptions | undefined): Decision {
  if (decision.behavior !== 'ask' || options?.agentAsks === true) return decision;
  return unaskable(decision, 'Codex', "Codex cannot show a hook's ask (it runs the call)");
}

function codexAnswer(decision: Decision, options?: AnswerOptions): HookAnswer {
  const answered = asked(decision, options);
  // an allow (or an ask left to Codex) is no answer at all: a bare allow is refused as unsupported
  return answered.behavior === 'deny'
    ? { output: denyOutput(reasonOf(answered)), sent: sentAs('deny') }
    : { sent: sentAs('none') };
}

export interface CodexDeny {
  readonly hookSpecificOutput: {
    readonly hookEventName: 'PreToolUse';
    readonly permissionDecision: 'deny';
    readonly permissionDecisionReason: string;
  };
}

function denyOutput(reason: string): CodexDeny {
  return {
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'deny',
      permissionDecisionReason: reason,
    },
  };
}

export function codexRequest(p: Readonly<Record<string, unknown>>, event: string): ToolRequest | string {
  const { tool_name: name, tool_input: input, cwd } = p;
  if (typeof name !== 'string' || name === '') return `Codex ${event} payload has no tool_name`;
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd)) return `Codex ${event} payload has no absolute cwd`;
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return `Codex ${event} payload has no tool_input object`;
  return {
    // Codex names its shell tool Bash, as Claude Code does; other tools keep their names
    tool: name,
    input,
    cwd,
    mode: 'default',
    ...(typeof p.session_id === 'string' ? { sessionId: p.session_id } : {}),
  };
}

/**
 * Codex's apply_patch (`tool_input: {command: <patch>}`, observed from 0.171.0) is decided file
 * by file as the Write, Edit and Read it stands for (codex-patch-parts.ts), and so is the shell
 * spelling Codex applies itself, `apply_patch <<'EOF'` (codex-patch-shell.ts); every other call
 * is one part, itself.
 */
export function codexParts(request: ToolRequest): readonly CallPart[] | string {
  const { command } = request.input as { command?: unknown };
  if (request.tool === 'apply_patch') {
    if (typeof command !== 'string')
      return 'Codex apply_patch payload has no patch text (tool_input.command)';
    return patchParts(command, request);
  }
  const spelled = request.tool === 'Bash' && typeof command === 'string' ? shellPatch(command) : undefined;
  if (spelled === undefined) return [{ request }];
  const files = patchParts(spelled.patch, {
    ...request,
    cwd: spelled.dir === undefined ? request.cwd : path.resolve(request.cwd, spelled.dir),
  });
  if (typeof files === 'string') return files;
  return spelled.shell ? [{ request, label: 'the line as Bash' }, ...files] : files;
}
