import { decideParts } from '../adapters/call-parts.js';
import { agentOf, type HookProtocol, readHookPayload } from '../adapters/hook-protocol.js';
import { agentNames, HOOK_PROTOCOLS, protocolsOf } from '../adapters/hook-protocols.js';
import type { PolicyCache } from '../policy/parse-cache.js';
import { parseCliArgs } from './args.js';
import { decideCall } from './decide-call.js';
import { type CliIO, UsageError } from './io.js';
import { logFor, logPathsOf, modeOf, POLICY_OPTIONS, PolicyLoadFailed, policyFor } from './policy-args.js';
import { Reexecuted } from './reexec.js';
import { failureMessage } from './run-command.js';
import { readStdin, writeStdout } from './stdio.js';

const HELP = `usage: toolgate hook [--policy F]... [--log FILE [--log-key KEY] [--log-verbatim] [--otlp URL]] [--warm] [--enforce] [--agent NAME]

A Claude Code PreToolUse or PermissionRequest hook: reads the hook JSON on stdin, decides with
the policy, and writes Claude Code's answer on stdout: for PreToolUse
{"hookSpecificOutput": {"permissionDecision": "allow"|"deny"|"ask", ...}}; for PermissionRequest
{"hookSpecificOutput": {"decision": {"behavior": "allow"|"deny", ...}}}, or nothing on ask (the
dialog shows). On any error (bad input, a broken policy, a crash) it exits 2 with the reason on
stderr, which Claude Code treats as "block" (for PermissionRequest, which ignores exit 2, it
answers deny). Gemini CLI's BeforeTool payload is answered too, as {"decision", "reason"}, with its
tool names read as Claude Code's (run_shell_command as Bash, replace as Edit, ...), and Cursor's
beforeShellExecution, beforeReadFile, beforeMCPExecution (as mcp__<server>__<tool>) and preToolUse,
as {"permission", "user_message", "agent_message"}, and Codex CLI's
PreToolUse (told apart by its turn_id; an allow is answered with nothing, as Codex refuses a bare
allow, and its permission_mode is ignored: codex exec always sends bypassPermissions; its apply_patch
is decided file by file; its PermissionRequest answered allow only where a rule allows). Any other
payload (another event, an agent toolgate does not answer) is blocked with exit 2. --agent NAME
(claude-code, gemini-cli, cursor, codex, copilot, opencode) answers only that agent's protocols and
blocks every other payload. Copilot CLI's preToolUse ({toolName, toolArgs}) is answered with
{permissionDecision, permissionDecisionReason}, and a failure with a deny (Copilot skips a failed
hook); opencode's calls come from toolgate's plugin (toolgate init --agent opencode).
Where an agent cannot put toolgate's ask to a person (Codex ignores it, headless Gemini waits for
ever), the ask is answered as a deny with the reason; --agent-asks passes it on instead (Gemini:
its prompt; Codex: no answer, so its own approval settings decide).
What toolgate cannot close itself (it cannot start, it is killed, it times out) the hook entry's
"onFailure": "block" closes (Claude Code 2.1.295 and later).

--warm hands each call to a warm toolgate process of the same build (started by the first
call, it exits after 15 idle minutes), which answers as this process would: node still starts
per call, but nothing else loads. Without one, or if it fails, the call is decided here.

--enforce (or \`sandbox: { enforce: true }\` in a policy) answers an allowed or asked Bash
call with its command rewritten to \`toolgate jail ... -- '<command>'\` (Claude Code and Codex:
updatedInput; Gemini CLI: hookSpecificOutput.tool_input; Cursor's preToolUse: updated_input):
the line is decided again and runs inside the jail its decision names (read-only for a call
predicted read-only). Where bubblewrap cannot run, such a call is asked, never run unjailed.

In .claude/settings.json (toolgate init --claude writes it):
  {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "toolgate hook --warm", "onFailure": "block"}]}],
             "PermissionRequest": [{"matcher": "*", "hooks": [{"type": "command", "command": "toolgate hook --warm", "onFailure": "block"}]}]}}
`;

/** Claude Code reads exit 2 as "block the call"; every other failure would let it proceed. */
export const BLOCK = 2;
const MAX_INPUT_BYTES = 16 * 1024 * 1024;

export interface HookOptions {
  /** Parsed policy files kept between calls (the bundled command passes one; see parse-cache.ts). */
  readonly policyCache?: PolicyCache;
}

export async function hookCommand(argv: string[], io: CliIO, options: HookOptions = {}): Promise<number> {
  let protocol: HookProtocol | undefined;
  try {
    const { values } = parseCliArgs(argv, {
      ...POLICY_OPTIONS,
      // main.js acts on it before this runs (warm-client.ts); here it only has to be accepted
      warm: { type: 'boolean' },
      enforce: { type: 'boolean' },
      agent: { type: 'string' },
      'agent-asks': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    });
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    const text = await readStdin(io, MAX_INPUT_BYTES, 'hook input');
    const protocols = values.agent === undefined ? HOOK_PROTOCOLS : protocolsOf(values.agent);
    if (protocols.length === 0)
      return block(
        io,
        `--agent ${values.agent}: no such agent (known: ${agentNames().join(', ')})`,
        undefined,
      );
    const parsed = readHookPayload(text, protocols);
    protocol = parsed.protocol;
    if (!parsed.ok) return block(io, parsed.error, protocol);
    const policy = await policyFor(
      { ...values, cwd: values.cwd ?? parsed.request.cwd },
      io,
      text,
      options.policyCache,
    );
    // --mode overrides the mode Claude Code reports (e.g. to force dontAsk in CI).
    const forced = modeOf(values.mode);
    const parts = forced
      ? parsed.parts.map((p) => ({ ...p, request: { ...p.request, mode: forced } }))
      : parsed.parts;
    let decided: Awaited<ReturnType<typeof decideParts>>;
    try {
      decided = await decideParts(parts, (r) => decideCall(r, policy, io));
    } finally {
      policy.conditions?.dispose?.();
    }
    const { decision } = decided;
    const answerOptions = { agentAsks: values['agent-asks'] === true };
    const { rewritten } = parsed.protocol;
    // a call of several parts is not one command to jail (the jail rewrites a Bash call)
    const [only] = parts.length === 1 ? parts : [];
    const answer =
      (values.enforce === true || policy.sandbox.enforce === true) && rewritten !== undefined && only
        ? await (await import('./hook-enforce.js')).enforcedAnswer(
            { ...parsed.protocol, rewritten },
            decision,
            only.request,
            values.policy ?? [],
            io,
            answerOptions,
            undefined,
            logPathsOf(values, io, parsed.request.cwd),
          )
        : parsed.protocol.answer(decision, answerOptions);
    // Logged before it is written: an answer that cannot be recorded is not given (the catch blocks).
    // Each part records the call's answer, which is what the agent acts on, not its own decision.
    const log = await logFor(values, io, parsed.request.cwd);
    if (log) {
      try {
        const agent = agentOf(parsed.protocol, parsed.payload);
        for (const d of decided.decided) await log.append({ ...d, agent, sent: answer.sent });
      } finally {
        await log.close();
      }
    }
    if (answer.output !== undefined) writeStdout(io, `${JSON.stringify(answer.output)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof Reexecuted) return err.code;
    if (err instanceof UsageError) return block(io, failureMessage('hook', err, io.env), protocol);
    return block(
      io,
      err instanceof PolicyLoadFailed
        ? err.message
        : `internal error: ${err instanceof Error ? err.message : String(err)}`,
      protocol,
    );
  }
}

/**
 * Exit 2 with the reason on stderr; for a protocol whose agent does not honour exit 2
 * (PermissionRequest), the deny it reads instead, with exit 0.
 */
function block(io: CliIO, reason: string, protocol: HookProtocol | undefined): number {
  io.stderr.write(`toolgate hook: ${reason}\n`);
  const how = protocol?.block(reason) ?? 'exit';
  if (how === 'exit') return BLOCK;
  writeStdout(io, `${JSON.stringify(how.output)}\n`);
  return 0;
}
