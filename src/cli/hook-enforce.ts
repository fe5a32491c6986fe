import { type HookOutput, hookOutput } from '../adapters/claude-hook.js';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { canonicalToolName } from '../policy/rule.js';
import type { CliIO } from './io.js';
import { policyPath } from './policy-args.js';

/**
 * `toolgate hook --enforce` (or `sandbox: { enforce: true }`), for Claude Code's PreToolUse: an
 * allowed or asked Bash call is answered with its command rewritten (updatedInput) to run
 * inside `toolgate jail`, which decides it again and runs it in the jail of that decision.
 * Where no jail can be built the answer is ask, never an unjailed allow; a command that cannot
 * be quoted byte for byte is denied.
 */
export async function enforcedAnswer(
  decision: Decision,
  request: ToolRequest,
  policies: readonly string[],
  io: CliIO,
): Promise<{ output: HookOutput }> {
  if (decision.behavior === 'deny' || canonicalToolName(request.tool) !== 'Bash')
    return { output: hookOutput(decision) };
  const unjailable = (why: string) => ({
    output: hookOutput({
      ...decision,
      behavior: 'ask',
      reason: `${decision.reason}; but it cannot run in the jail (${why}), so a person must approve it running unjailed`,
    }),
  });
  if (decision.sandbox?.os === 'off') return unjailable('sandbox.os is off in the policy');
  const { probeBwrap } = await import('../sandbox/bwrap.js');
  const probe = await probeBwrap();
  if (!probe.available) return unjailable(probe.reason ?? 'bubblewrap does not work here');
  const { jailRewrite } = await import('../adapters/jail-rewrite.js');
  const rewrite = jailRewrite(request.input, {
    // The same toolgate as this hook: node, its flags (a loader when run from source), main.js.
    toolgate: [process.execPath, ...process.execArgv, process.argv[1]!],
    policies: policies.map((f) => policyPath(f, io.cwd)),
    cwd: request.cwd,
    ...(request.mode ? { mode: request.mode } : {}),
  });
  if (!rewrite.ok) {
    return {
      output: hookOutput({
        ...decision,
        behavior: 'deny',
        reason: `the command cannot be run in the jail: ${rewrite.reason}`,
      }),
    };
  }
  return { output: hookOutput(decision, rewrite.input) };
}
