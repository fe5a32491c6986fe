import path from 'node:path';
import type { SentAnswer } from '../audit/entry.js';
import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { blockedReason, reasonOf } from './claude-hook.js';
import { type AnswerOptions, type HookProtocol, sentAs } from './hook-protocol.js';
import { type Args, absolute, isArgs, searchPath, workdir } from './tool-args.js';
import { unaskable } from './unaskable.js';

/**
 * OpenCode has no hook command, only in-process plugins: toolgate's plugin (opencode-plugin.ts,
 * written by `toolgate init --agent opencode`) hands each `tool.execute.before(input, output)` to
 * `toolgate hook --agent opencode` as `{hook_event_name: "tool.execute.before", tool, sessionID,
 * callID, args, cwd}` (input and output.args as opencode 1.18.33 passed them, observed: `{tool:
 * "bash", sessionID, callID}`, `{command, description}`), and reads back `{decision, reason,
 * args?}`: allow returns (merging `args` into output.args, which opencode then runs, observed),
 * anything else throws the reason, which blocks the call and tells the model (observed). The
 * plugin throws on every failure too (toolgate missing, exit not 0, an answer it cannot read).
 * A plugin cannot ask a person, so toolgate's ask is a deny that says why; with `--agent-asks`
 * it returns, leaving the call to opencode's own `permission` settings.
 */
export const opencodeToolBefore: HookProtocol = {
  name: 'opencode/tool.execute.before',
  recognises: (p) => p.hook_event_name === 'tool.execute.before',
  request: opencodeRequest,
  answer: (decision, options) => {
    const answer = opencodeAnswer(decision, options);
    return { output: answer, sent: opencodeSent(answer) };
  },
  rewritten: (decision, input, options) => {
    const answer = opencodeAnswer(decision, options);
    const denied = answer.decision === 'deny';
    return { output: denied ? answer : { ...answer, args: input }, sent: opencodeSent(answer, !denied) };
  },
  block: () => 'exit',
  httpBlock: (reason) => ({ decision: 'deny', reason: blockedReason(reason) }),
};

export interface OpencodeAnswer {
  readonly decision: 'allow' | 'deny' | 'ask';
  readonly reason: string;
  /** Enforced mode: arguments the plugin merges into output.args (the jailed command). */
  readonly args?: Readonly<Record<string, unknown>>;
}

/** toolgate's plugin throws on deny and returns otherwise: an ask passed on is opencode's `permission` to decide. */
function opencodeSent(answer: OpencodeAnswer, jailed = false): SentAnswer {
  return sentAs(answer.decision === 'ask' ? 'none' : answer.decision, jailed);
}

export function opencodeAnswer(decision: Decision, options?: AnswerOptions): OpencodeAnswer {
  const answered =
    decision.behavior === 'ask' && options?.agentAsks !== true
      ? unaskable(decision, 'opencode', 'a plugin cannot ask a person')
      : decision;
  return { decision: answered.behavior, reason: reasonOf(answered) };
}

/**
 * opencode's built-in tools (names and parameters as its 1.18.33 binary declares them: `bash
 * {command, description, workdir?}`, `read {filePath}`, `write {filePath, content}`, `edit
 * {filePath, oldString, newString, replaceAll}`, `glob`/`grep {pattern, path, include}`, `list
 * {path}`, `webfetch {url}`) -> the Claude Code tool toolgate decides. Others keep their name.
 */
const OPENCODE_TOOLS: Readonly<
  Record<string, (a: Args, cwd: string) => Omit<ToolRequest, 'cwd'> & { cwd?: string }>
> = {
  bash: (a, cwd) => ({ tool: 'Bash', input: { command: a.command }, ...workdir(a.workdir, cwd) }),
  read: (a, cwd) => ({ tool: 'Read', input: { file_path: absolute(a.filePath, cwd) } }),
  write: (a, cwd) => ({ tool: 'Write', input: { file_path: absolute(a.filePath, cwd), content: a.content } }),
  edit: (a, cwd) => ({
    tool: 'Edit',
    input: {
      file_path: absolute(a.filePath, cwd),
      old_string: a.oldString,
      new_string: a.newString,
      ...(a.replaceAll === true ? { replace_all: true } : {}),
    },
  }),
  glob: (a, cwd) => ({ tool: 'Glob', input: { pattern: a.pattern, ...searchPath(a.path, cwd) } }),
  grep: (a, cwd) => ({
    tool: 'Grep',
    input: {
      pattern: a.pattern,
      ...searchPath(a.path, cwd),
      ...(typeof a.include === 'string' ? { glob: a.include } : {}),
    },
  }),
  list: (a, cwd) => ({ tool: 'Glob', input: { pattern: '*', path: absolute(a.path ?? '.', cwd) } }),
  webfetch: (a) => ({ tool: 'WebFetch', input: { url: a.url } }),
};

function opencodeRequest(p: Readonly<Record<string, unknown>>): ToolRequest | string {
  const { tool: name, args, cwd } = p;
  if (typeof name !== 'string' || name === '') return 'opencode tool.execute.before payload has no tool';
  if (typeof cwd !== 'string' || !path.isAbsolute(cwd))
    return 'opencode tool.execute.before payload has no absolute cwd';
  if (!isArgs(args)) return 'opencode tool.execute.before payload has no args object';
  const map = Object.hasOwn(OPENCODE_TOOLS, name) ? OPENCODE_TOOLS[name] : undefined;
  return {
    cwd,
    ...(map ? map(args, cwd) : { tool: name, input: args }),
    mode: 'default',
    ...(typeof p.sessionID === 'string' ? { sessionId: p.sessionID } : {}),
  };
}
