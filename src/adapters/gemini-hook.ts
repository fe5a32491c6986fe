import path from 'node:path';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { blockedReason, reasonOf } from './claude-hook.js';
import { type AnswerOptions, type HookProtocol, sentAs } from './hook-protocol.js';
import { type Args, absolute, searchPath, workdir } from './tool-args.js';
import { unaskable } from './unaskable.js';

/**
 * Gemini CLI's BeforeTool command hook (https://geminicli.com/docs/hooks/reference): the JSON it
 * sends on stdin, `{session_id, transcript_path, cwd, hook_event_name: "BeforeTool", timestamp,
 * tool_name, tool_input}`, read as a request for the Claude Code tool it stands for, so one
 * policy in Claude Code's rule syntax applies to both agents unchanged; and a Decision turned
 * into the top-level `{"decision", "reason"}` Gemini reads (it ignores Claude Code's
 * hookSpecificOutput.permissionDecision). Gemini treats exit 2 as a block with stderr as the
 * reason, and every other failure (exit 1, empty output) as "proceed", so a failure exits 2.
 * Two limits of Gemini's, not toolgate's: an allow does not lift a deny or ask of Gemini's own
 * policy engine, and an ask in headless mode waits for a person who is not there (observed with
 * 0.61.0: the run hangs until killed), while the hook cannot tell headless from interactive. So
 * toolgate's ask is answered as a deny that says so, unless `--agent-asks` (for people at
 * Gemini's prompt) passes it on. Enforced mode: `hookSpecificOutput.tool_input` is merged into
 * the call's arguments (observed: the rewritten command runs instead).
 */
export const geminiBeforeTool: HookProtocol = {
  name: 'gemini-cli/BeforeTool',
  recognises: (p) => p.hook_event_name === 'BeforeTool',
  request: geminiRequest,
  answer: (decision, options) => {
    const answer = geminiAnswer(decision, options);
    return { output: answer, sent: sentAs(answer.decision) };
  },
  rewritten: (decision, input, options) => {
    const answer = geminiAnswer(decision, options);
    const denied = answer.decision === 'deny';
    return {
      output: denied ? answer : { ...answer, hookSpecificOutput: { tool_input: input } },
      sent: sentAs(answer.decision, !denied),
    };
  },
  block: () => 'exit',
  httpBlock: (reason) => ({ decision: 'deny', reason: blockedReason(reason) }),
};

export interface GeminiAnswer {
  readonly decision: 'allow' | 'deny' | 'ask';
  readonly reason: string;
}

export function geminiAnswer(decision: Decision, options?: AnswerOptions): GeminiAnswer {
  const answered =
    decision.behavior === 'ask' && options?.agentAsks !== true
      ? unaskable(
          decision,
          'Gemini CLI',
          "a hook cannot tell whether anyone is at Gemini CLI's prompt (headless, its ask waits forever)",
        )
      : decision;
  return { decision: answered.behavior, reason: reasonOf(answered) };
}

/**
 * Gemini's built-in tools (names and parameters as in @google/gemini-cli 0.61.0's
 * `*_TOOL_NAME` / `PARAM_*` constants; the name mapping is Gemini's own `hooks migrate
 * --from-claude`) -> the Claude Code tool and input toolgate decides. A tool not listed keeps
 * its Gemini name: the policy can name it, and otherwise it is an unknown tool, which asks.
 */
const GEMINI_TOOLS: Readonly<
  Record<string, (args: Args, cwd: string) => Omit<ToolRequest, 'cwd'> & { cwd?: string }>
> = {
  // dir_path is where the command runs: the policy must see that directory, not Gemini's cwd
  run_shell_command: (a, cwd) => ({
    tool: 'Bash',
    input: { command: a.command },
    ...workdir(a.dir_path, cwd),
  }),
  read_file: (a, cwd) => ({ tool: 'Read', input: { file_path: absolute(a.file_path, cwd) } }),
  write_file: (a, cwd) => ({
    tool: 'Write',
    input: { file_path: absolute(a.file_path, cwd), content: a.content },
  }),
  replace: (a, cwd) => ({
    tool: 'Edit',
    input: {
      file_path: absolute(a.file_path, cwd),
      old_string: a.old_string,
      new_string: a.new_string,
      ...(a.allow_multiple === true ? { replace_all: true } : {}),
    },
  }),
  glob: (a, cwd) => ({ tool: 'Glob', input: { pattern: a.pattern, ...searchPath(a.dir_path, cwd) } }),
  grep_search: (a, cwd) => ({
    tool: 'Grep',
    input: {
      pattern: a.pattern,
      ...searchPath(a.dir_path, cwd),
      ...(typeof a.include_pattern === 'string' ? { glob: a.include_pattern } : {}),
    },
  }),
  // listing a directory reads what a Glob of `*` there reads, and toolgate has no LS tool
  list_directory: (a, cwd) => ({ tool: 'Glob', input: { pattern: '*', path: absolute(a.dir_path, cwd) } }),
};

function geminiRequest(p: Readonly<Record<string, unknown>>): ToolRequest | string {
  const { tool_name: name, tool_input: input, cwd } = p;
  if (typeof name !== 'string' || name === '') return 'Gemini BeforeTool payload has no tool_name';
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd))
    return 'Gemini BeforeTool payload has no absolute cwd';
  if (input === null || typeof input !== 'object' || Array.isArray(input))
    return 'Gemini BeforeTool payload has no tool_input object';
  const map = Object.hasOwn(GEMINI_TOOLS, name) ? GEMINI_TOOLS[name] : undefined;
  const mapped = map ? map(input as Args, cwd) : { tool: name, input };
  return {
    cwd,
    ...mapped,
    // Gemini sends no permission mode: toolgate's default mode (asks stay asks)
    mode: 'default',
    ...(typeof p.session_id === 'string' ? { sessionId: p.session_id } : {}),
  };
}
