import { z } from 'zod';
import {
  type ChildCommand,
  createIsolateRunner,
  createIsolateRunnerFor,
  type IsolateRunner,
} from '../isolate/index.js';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolResult } from '../pipeline/tool.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';

/**
 * JavaScript: runs a script in a V8 isolate (src/isolate) with a memory limit and the call's
 * deadline. The code sees only `input` (its JSON input, copied in); no require, no process,
 * no file system, no network. The value of the last statement is JSON-copied out. When
 * isolated-vm is unavailable the tool refuses: it never falls back to running code in-process.
 */
export const JS_MEMORY_LIMIT_MB = 64;
export const JS_MAX_TIMEOUT_MS = 30_000;

const inputSchema = z.strictObject({
  code: z.string().min(1).describe('JavaScript to run; the value of the last statement is the result'),
  input: z.json().optional().describe('A JSON value the code sees as the global `input`'),
  timeout: z
    .number()
    .int()
    .positive()
    .max(JS_MAX_TIMEOUT_MS)
    .optional()
    .describe('Milliseconds (default and maximum 30000)'),
});

export type JavaScriptOutput = { value: unknown } | Refusal;

export interface JavaScriptToolOptions {
  memoryLimitMb?: number;
  /**
   * How to start a child node for the isolate when this process was started without
   * --no-node-snapshot (see src/isolate/child-runner.ts). Without it such a process refuses.
   */
  isolateChild?: ChildCommand;
}

export function createJavaScriptTool(options: JavaScriptToolOptions = {}) {
  let runner: IsolateRunner | undefined;
  return buildTool({
    name: 'JavaScript',
    searchHint: 'javascript js eval compute calculate script isolate',
    inputSchema,
    maxResultSizeChars: 50_000,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    isDestructive: () => false,
    interruptBehavior: () => 'cancel',
    prompt: () =>
      'Runs JavaScript in an isolated V8 sandbox (no files, network or Node APIs) and returns the value of the last statement as JSON. The JSON `input` is available as the global `input`.',
    description: () => 'Run JavaScript in an isolate',
    toAutoClassifierInput: (input) => input.code,
    async call(input, ctx): Promise<ToolResult<JavaScriptOutput>> {
      const memoryLimitMb = options.memoryLimitMb ?? JS_MEMORY_LIMIT_MB;
      runner ??=
        options.isolateChild === undefined
          ? createIsolateRunner({ memoryLimitMb })
          : createIsolateRunnerFor(options.isolateChild, memoryLimitMb);
      const compiled = await runner.compile(input.code, { kind: 'script' });
      if (!compiled.ok) {
        return {
          data: refuse(
            compiled.kind === 'syntax' ? 'invalid' : 'sandbox',
            `The code did not run: ${compiled.message}.`,
          ),
        };
      }
      const timeoutMs = Math.min(input.timeout ?? JS_MAX_TIMEOUT_MS, ctx.sandbox.timeoutMs);
      const run = await runner.run(compiled.code, { input: input.input ?? null }, { timeoutMs });
      if (!run.ok)
        return {
          data: refuse(
            run.kind === 'threw' ? 'failed' : 'sandbox',
            `The code failed (${run.kind}): ${run.message}.`,
          ),
        };
      return { data: { value: run.value } };
    },
    mapToolResultToToolResultBlockParam(output, toolUseId) {
      if (isRefusal(output)) return refusalBlock(output, toolUseId);
      const text = output.value === undefined ? 'undefined' : JSON.stringify(output.value, null, 2);
      return { type: 'tool_result', tool_use_id: toolUseId, content: text };
    },
    renderToolUseMessage: (input) => `JavaScript(${(input.code ?? '').split('\n')[0]?.slice(0, 60) ?? ''})`,
  });
}
