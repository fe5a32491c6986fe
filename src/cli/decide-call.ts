import type { CompiledPolicy } from '../policy/compile.js';
import type { Decision } from '../policy/decision.js';
import { nodeFileSystem } from '../policy/fs-view.js';
import type { ToolRequest } from '../policy/request.js';
import type { CliIO } from './io.js';
import { classifierFor } from './policy-args.js';

/**
 * One call decided as the hook decides it: the policy, then, in auto mode, an ask goes to the
 * policy's classifier (the offline one unless `auto:` names another). `toolgate check` uses this
 * too, so what it previews is what the hook would answer.
 */
export async function decideCall(
  request: ToolRequest,
  policy: CompiledPolicy,
  io: CliIO,
  trace?: string[],
): Promise<Decision> {
  const { decideWithClassifier } = await import('../policy/auto.js');
  const classifier = await classifierFor(policy, io);
  return decideWithClassifier(request, policy, {
    // a view of this call's own: no path resolved for an earlier call (a warm process decides many)
    fs: nodeFileSystem(),
    ...(classifier ? { classifier } : {}),
    ...(trace ? { trace } : {}),
  });
}
