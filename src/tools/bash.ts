import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolResult } from '../pipeline/tool.js';
import { checkWriteTargets } from '../sandbox/paths.js';
import { runSandboxed } from '../sandbox/run.js';
import { bashFacts, exitOneIsSuccess } from './bash-facts.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';

/**
 * Bash: runs a command line through runSandboxed with exactly the Decision's profile
 * (deadline, output limits, env allow list, writable roots, OS isolation). The timeout the
 * model asks for (default 2 minutes, at most 10) is already in the profile: the policy put it
 * there. Write targets the classifier can see are checked with the path guard first, because
 * without OS isolation nothing else would stop them.
 *
 * Not supported (refused, never silently ignored): run_in_background (no background shells
 * here) and dangerouslyDisableSandbox (toolgate never runs a command outside its limits).
 * A command that times out is stopped, not moved to the background as Claude Code does.
 */
export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;

const inputSchema = z.strictObject({
  command: z.string().min(1).describe('The command line to run'),
  description: z.string().optional().describe('What the command does, in a few words'),
  timeout: z
    .number()
    .positive()
    .optional()
    .describe(`Timeout in ms (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS})`),
  run_in_background: z.boolean().optional(),
  dangerouslyDisableSandbox: z.boolean().optional(),
});

export type BashOutput =
  | {
      exitCode: number | null;
      text: string;
      failed: boolean;
      timedOut: boolean;
      interrupted: boolean;
      notes: string[];
      spillPath?: string;
    }
  | Refusal;

export interface BashProgress {
  stream: 'stdout' | 'stderr';
  text: string;
}

export const BashTool = buildTool<typeof inputSchema, BashOutput, BashProgress>({
  name: 'Bash',
  searchHint: 'shell command run execute terminal',
  inputSchema,
  // The sandbox already bounds the output (maxOutputChars inline, the rest in a spill file whose
  // path the result names); a second bound here would spill the excerpt again. Read does the same.
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  isReadOnly: (input) => bashFacts(input.command).readOnly,
  isConcurrencySafe: (input) => bashFacts(input.command).concurrencySafe,
  isDestructive: (input) => bashFacts(input.command).destructive,
  interruptBehavior: () => 'cancel',
  prompt: () =>
    `Runs a bash command line in the working directory, inside the sandbox the policy sets (writable directories, network, environment). Timeout: default ${BASH_DEFAULT_TIMEOUT_MS / 60_000} minutes, at most ${BASH_MAX_TIMEOUT_MS / 60_000}. Prefer Read, Glob, Grep and Edit for files.`,
  description: (input) => input.description ?? `Run ${input.command}`,
  userFacingName: () => 'Bash',
  toAutoClassifierInput: (input) => input.command,
  validateInput: async (input) => {
    if (input.run_in_background)
      return {
        result: false,
        message:
          'run_in_background is not supported here; run the command in the foreground (with a timeout).',
      };
    if (input.dangerouslyDisableSandbox)
      return {
        result: false,
        message: 'toolgate never runs a command outside its sandbox; drop dangerouslyDisableSandbox.',
      };
    if (input.command.includes('\0')) return { result: false, message: 'The command contains a NUL byte.' };
    return { result: true };
  },
  async call(input, ctx, _canUseTool, _parent, onProgress): Promise<ToolResult<BashOutput>> {
    const facts = bashFacts(input.command);
    if (facts.writes.length > 0) {
      const verdict = checkWriteTargets(facts.writes, { cwd: ctx.cwd, profile: ctx.sandbox });
      if (!verdict.ok)
        return { data: refuse('path-denied', 'reason' in verdict ? verdict.reason : verdict.message) };
    }
    const run = await runSandboxed({
      script: input.command,
      cwd: ctx.cwd,
      profile: ctx.sandbox,
      signal: ctx.signal,
      onOutput: (chunk, stream) =>
        onProgress({ toolUseId: ctx.toolUseId, data: { stream, text: chunk.toString('utf8') } }),
    });
    if (!run.ok) return { data: refuse('sandbox', `The command did not run: ${run.message}`) };
    const success = run.exitCode === 0 || (run.exitCode === 1 && exitOneIsSuccess(facts));
    const failed = !success || run.timedOut || run.aborted;
    const out: BashOutput = {
      exitCode: run.exitCode,
      text: run.output.inline,
      failed,
      timedOut: run.timedOut,
      interrupted: run.aborted,
      notes: run.notes,
    };
    if (run.output.spillPath) out.spillPath = run.output.spillPath;
    return { data: out };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    const parts = [output.text.replace(/\n+$/, '')];
    const status = output.exitCode === null ? 'killed by a signal' : `exit code ${output.exitCode}`;
    if (output.failed || output.exitCode !== 0) parts.push(`[${status}]`);
    for (const note of output.notes) parts.push(`[${note}]`);
    const content = parts.filter((p) => p !== '').join('\n') || '(no output)';
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content,
      ...(output.failed ? { is_error: true } : {}),
    };
  },
  renderToolUseMessage: (input) => `Bash(${input.command ?? ''})`,
  renderToolUseProgressMessage: (progress) => {
    const last = progress[progress.length - 1]?.data;
    return last?.text ? last.text.trimEnd().split('\n').slice(-3).join('\n') : '';
  },
  renderToolResultMessage: (output) =>
    isRefusal(output)
      ? `✗ ${output.message}`
      : `${output.failed ? '✗' : '✓'} exit ${output.exitCode ?? 'signal'}\n${output.text.trimEnd().split('\n').slice(0, 10).join('\n')}`,
});
