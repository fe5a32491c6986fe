import { runToolUse, type ToolUseOutcome } from '../../src/pipeline/run-tool-use.js';
import type { CanUseTool } from '../../src/pipeline/tool.js';
import type { Mode } from '../../src/policy/mode.js';
import { builtinTools } from '../../src/tools/index.js';
import { refuseAll, testContext, use } from '../pipeline/fixture.js';

/** One call of a built-in tool through the whole pipeline. */
export async function call(
  root: string,
  name: string,
  input: unknown,
  opts: { policy?: string; sandbox?: string; mode?: Mode; canUseTool?: CanUseTool } = {},
): Promise<ToolUseOutcome & { text: string }> {
  const ctx = await testContext(builtinTools(), root, {
    ...(opts.policy !== undefined ? { policy: opts.policy } : {}),
    ...(opts.sandbox !== undefined ? { sandbox: opts.sandbox } : {}),
    ...(opts.mode ? { mode: opts.mode } : {}),
  });
  const outcome = await runToolUse(use(name, input, `toolu_${name}`), ctx, opts.canUseTool ?? refuseAll);
  const content = outcome.result.content;
  const text =
    typeof content === 'string'
      ? content
      : content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  return { ...outcome, text };
}
