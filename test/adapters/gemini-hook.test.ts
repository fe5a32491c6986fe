import { describe, expect, it } from 'vitest';
import { geminiAnswer, geminiBeforeTool } from '../../src/adapters/gemini-hook.js';
import { readHookPayload } from '../../src/adapters/hook-protocol.js';
import { HOOK_PROTOCOLS } from '../../src/adapters/hook-protocols.js';
import type { Decision } from '../../src/policy/decision.js';

/**
 * Contract: Gemini CLI's BeforeTool payloads read as the Claude Code requests they stand for.
 * Payload shape: https://geminicli.com/docs/hooks/reference (base fields session_id,
 * transcript_path, cwd, hook_event_name, timestamp; BeforeTool adds tool_name, tool_input),
 * and the payload observed from @google/gemini-cli 0.61.0 (../shared/research/agents.md).
 * Tool and parameter names: @google/gemini-cli 0.61.0 bundle constants SHELL_TOOL_NAME =
 * "run_shell_command", EDIT_TOOL_NAME = "replace", READ_FILE_TOOL_NAME = "read_file",
 * WRITE_FILE_TOOL_NAME = "write_file", GLOB_TOOL_NAME = "glob", GREP_TOOL_NAME = "grep_search",
 * LS_TOOL_NAME = "list_directory"; PARAM_FILE_PATH = "file_path", PARAM_DIR_PATH = "dir_path",
 * PARAM_OLD_STRING / PARAM_NEW_STRING, PARAM_ALLOW_MULTIPLE = "allow_multiple",
 * PARAM_INCLUDE_PATTERN = "include_pattern".
 */
const base = {
  session_id: 'c1b3e7d2-5f4a-4f6b-9a0e-2d8c7b6a5f41',
  transcript_path: '/home/u/.gemini/tmp/abc/chats/session.json',
  cwd: '/home/u/proj',
  hook_event_name: 'BeforeTool',
  timestamp: '2026-12-01T10:00:00.000Z',
};
const read = (tool_name: string, tool_input: unknown) =>
  readHookPayload(JSON.stringify({ ...base, tool_name, tool_input }), HOOK_PROTOCOLS);

describe('Gemini CLI BeforeTool', () => {
  it('is recognised by the registry, and only BeforeTool is', () => {
    const r = read('run_shell_command', { command: 'ls' });
    expect(r.ok && r.protocol).toBe(geminiBeforeTool);
    const after = readHookPayload(JSON.stringify({ ...base, hook_event_name: 'AfterTool' }), HOOK_PROTOCOLS);
    expect(after.ok).toBe(false);
  });

  const cases: [string, unknown, { tool: string; input: unknown; cwd?: string }][] = [
    [
      'run_shell_command',
      { command: 'rm -rf ~', description: 'clean up' },
      { tool: 'Bash', input: { command: 'rm -rf ~' } },
    ],
    [
      'run_shell_command',
      { command: 'make', dir_path: 'sub' },
      { tool: 'Bash', input: { command: 'make' }, cwd: '/home/u/proj/sub' },
    ],
    [
      'read_file',
      { file_path: 'src/a.ts', start_line: 1 },
      { tool: 'Read', input: { file_path: '/home/u/proj/src/a.ts' } },
    ],
    [
      'write_file',
      { file_path: '/home/u/proj/b.txt', content: 'x' },
      { tool: 'Write', input: { file_path: '/home/u/proj/b.txt', content: 'x' } },
    ],
    [
      'replace',
      { file_path: 'a.ts', old_string: 'a', new_string: 'b', allow_multiple: true, instruction: 'rename' },
      {
        tool: 'Edit',
        input: { file_path: '/home/u/proj/a.ts', old_string: 'a', new_string: 'b', replace_all: true },
      },
    ],
    [
      'glob',
      { pattern: '**/*.ts', dir_path: 'src' },
      { tool: 'Glob', input: { pattern: '**/*.ts', path: '/home/u/proj/src' } },
    ],
    [
      'grep_search',
      { pattern: 'TODO', include_pattern: '*.ts' },
      { tool: 'Grep', input: { pattern: 'TODO', glob: '*.ts' } },
    ],
    ['list_directory', { dir_path: '.' }, { tool: 'Glob', input: { pattern: '*', path: '/home/u/proj' } }],
    // not a built-in it maps: kept under its own name (an unknown tool asks unless a rule names it)
    ['mcp_github_create_issue', { title: 't' }, { tool: 'mcp_github_create_issue', input: { title: 't' } }],
  ];
  for (const [tool, input, want] of cases) {
    it(`reads ${tool} ${JSON.stringify(input)} as ${want.tool}`, () => {
      const r = read(tool, input);
      if (!r.ok) throw new Error(r.error);
      expect(r.request).toEqual({
        tool: want.tool,
        input: want.input,
        cwd: want.cwd ?? base.cwd,
        mode: 'default',
        sessionId: base.session_id,
      });
    });
  }

  it('refuses a BeforeTool payload it cannot read, naming what is missing', () => {
    for (const [payload, why] of [
      [{ ...base, tool_input: {} }, /no tool_name/],
      [{ ...base, cwd: 'proj', tool_name: 'read_file', tool_input: {} }, /no absolute cwd/],
      [{ ...base, tool_name: 'read_file', tool_input: 'x' }, /no tool_input object/],
      [{ ...base, tool_name: 'read_file', tool_input: [] }, /no tool_input object/],
    ] as const) {
      const r = readHookPayload(JSON.stringify(payload), HOOK_PROTOCOLS);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(why);
        expect(r.protocol).toBe(geminiBeforeTool);
      }
    }
  });

  it('answers the top-level {decision, reason} Gemini reads, and blocks failures with exit 2', () => {
    for (const behavior of ['allow', 'deny', 'ask'] as const) {
      const decision = { behavior, reason: 'because' } as Decision;
      const options = { agentAsks: true };
      expect(geminiAnswer(decision, options)).toEqual({ decision: behavior, reason: 'toolgate: because' });
      expect(geminiBeforeTool.answer(decision, options).output).toEqual(geminiAnswer(decision, options));
    }
    // without --agent-asks an ask is a deny: headless, Gemini would wait for ever
    expect(geminiAnswer({ behavior: 'ask', reason: 'because' } as Decision)).toEqual({
      decision: 'deny',
      reason: expect.stringMatching(/^toolgate: because; a person would have to approve it/),
    });
    expect(geminiBeforeTool.block('x')).toBe('exit');
    expect(geminiBeforeTool.httpBlock('x')).toEqual({
      decision: 'deny',
      reason: 'toolgate could not decide, so the call is blocked: x',
    });
  });
});
