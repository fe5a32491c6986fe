import type { AnswerOptions, HookAnswer, HookProtocol } from '../adapters/hook-protocol.js';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { canonicalToolName } from '../policy/rule.js';
import type { CliIO } from './io.js';
import { policyPath } from './policy-args.js';

/**
 * `toolgate hook --enforce` (or `sandbox: { enforce: true }`), for the agents whose protocol can
 * rewrite a call (`HookProtocol.rewritten`: Claude Code's updatedInput, Gemini CLI's
 * hookSpecificOutput.tool_input, Codex's allow + updatedInput): an allowed or asked Bash call is
 * answered with its command rewritten to run inside `toolgate jail`, which decides it again and
 * runs it in the jail of that decision. Where no jail can be built the answer is ask, never an
 * unjailed allow; a command that cannot be quoted byte for byte is denied.
 */
export async function enforcedAnswer(
  protocol: HookProtocol & Required<Pick<HookProtocol, 'rewritten'>>,
  decision: Decision,
  request: ToolRequest,
  policies: readonly string[],
  io: Pick<CliIO, 'cwd'>,
  options: AnswerOptions,
  /**
   * What starts toolgate for the jail. Default: the same toolgate as this hook (node, its flags,
   * a loader when run from source, main.js); a library caller (the Agent SDK guard) runs in
   * someone else's program and names the package's own CLI.
   */
  toolgate: readonly string[] = [process.execPath, ...process.execArgv, process.argv[1]!],
  /** The hook's log and key (absolute), for the jail to hold read-only as toolgate's own files. */
  logs: { readonly log?: string | undefined; readonly logKey?: string | undefined } = {},
): Promise<HookAnswer> {
  if (decision.behavior === 'deny' || canonicalToolName(request.tool) !== 'Bash')
    return protocol.answer(decision, options);
  const unjailable = (why: string) =>
    protocol.answer(
      {
        ...decision,
        behavior: 'ask',
        reason: `${decision.reason}; but it cannot run in the jail (${why}), so a person must approve it running unjailed`,
      },
      options,
    );
  if (decision.sandbox?.os === 'off') return unjailable('sandbox.os is off in the policy');
  const { probeBwrap } = await import('../sandbox/bwrap.js');
  const probe = await probeBwrap();
  if (!probe.available) return unjailable(probe.reason ?? 'bubblewrap does not work here');
  const { jailRewrite } = await import('../adapters/jail-rewrite.js');
  const rewrite = jailRewrite(request.input, {
    toolgate,
    policies: policies.map((f) => policyPath(f, io.cwd)),
    cwd: request.cwd,
    ...(request.mode ? { mode: request.mode } : {}),
    ...(logs.log ? { log: logs.log } : {}),
    ...(logs.logKey ? { logKey: logs.logKey } : {}),
  });
  if (!rewrite.ok) {
    return protocol.answer(
      { ...decision, behavior: 'deny', reason: `the command cannot be run in the jail: ${rewrite.reason}` },
      options,
    );
  }
  return protocol.rewritten(decision, rewrite.input, options);
}
