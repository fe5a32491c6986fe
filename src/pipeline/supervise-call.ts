import type { Decision } from '../policy/decision.js';
import type { SandboxProfile } from '../policy/obligations.js';
import type { ToolUseContext } from './context.js';
import { describeError, failure, type ToolFailure } from './failure.js';
import type {
  AnyTool,
  CanUseTool,
  ParentMessage,
  ToolCallContext,
  ToolProgress,
  ToolResult,
} from './tool.js';

/**
 * The call itself, under a deadline and the run's abort signal. The deadline is the profile's
 * timeout plus a grace period: tools that spawn processes stop them at the timeout through
 * the sandbox, and the grace lets that finish; a tool that hangs anyway is abandoned (its
 * signal aborted) and the model is told. Whatever the tool does after that is not waited for.
 */
export const DEFAULT_DEADLINE_GRACE_MS = 5_000;

export interface CallSpec {
  toolUseId: string;
  decision: Decision;
  sandbox: SandboxProfile;
  signal: AbortSignal;
  graceMs: number | undefined;
  parentMessage: ParentMessage | undefined;
  onProgress: ((progress: ToolProgress<unknown> & { tool: string }) => void) | undefined;
}

export type Called = { ok: true; output: ToolResult<unknown> } | { ok: false; failure: ToolFailure };

export async function callWithDeadline(
  tool: AnyTool,
  input: unknown,
  ctx: ToolUseContext,
  canUseTool: CanUseTool,
  spec: CallSpec,
): Promise<Called> {
  const controller = new AbortController();
  const stop = () => controller.abort(spec.signal.reason);
  if (spec.signal.aborted) stop();
  spec.signal.addEventListener('abort', stop, { once: true });
  const callCtx: ToolCallContext = {
    ...ctx,
    toolUseId: spec.toolUseId,
    decision: spec.decision,
    sandbox: spec.sandbox,
    signal: controller.signal,
    cwd: ctx.permission.cwd,
  };
  const limit = spec.sandbox.timeoutMs + (spec.graceMs ?? DEFAULT_DEADLINE_GRACE_MS);
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const interrupted = new Promise<Called>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('deadline'));
      resolve({
        ok: false,
        failure: failure(
          'timeout',
          `${tool.name} did not finish within ${limit} ms and was stopped. Try a smaller task or a longer timeout.`,
        ),
      });
    }, limit);
    onAbort = () =>
      resolve({
        ok: false,
        failure: failure('aborted', `${tool.name} was interrupted: the run was aborted while it ran.`),
      });
    spec.signal.addEventListener('abort', onAbort, { once: true });
    if (spec.signal.aborted) onAbort();
  });
  const onProgress = (p: ToolProgress<unknown>) => {
    try {
      spec.onProgress?.({ ...p, tool: tool.name });
    } catch {
      // A failing progress listener must not fail the call.
    }
  };
  const running = (async (): Promise<Called> => {
    try {
      const output = await tool.call(input, callCtx, canUseTool, spec.parentMessage, onProgress);
      if (output === null || typeof output !== 'object' || !('data' in output)) {
        return { ok: false, failure: failure('internal', `${tool.name} returned no result.`) };
      }
      return { ok: true, output };
    } catch (err) {
      if (spec.signal.aborted) {
        return {
          ok: false,
          failure: failure('aborted', `${tool.name} was interrupted: the run was aborted while it ran.`),
        };
      }
      return { ok: false, failure: failure('threw', `${tool.name} failed: ${describeError(err)}`) };
    }
  })();
  try {
    return await Promise.race([running, interrupted]);
  } finally {
    clearTimeout(timer);
    spec.signal.removeEventListener('abort', stop);
    if (onAbort) spec.signal.removeEventListener('abort', onAbort);
  }
}
