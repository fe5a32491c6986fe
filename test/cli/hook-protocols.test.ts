import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, runCli } from '../helpers/cli.js';

/**
 * Issue 14 item 5 through the real CLI: `toolgate hook` and `serve`'s /hook answer the hook
 * protocols they know (Claude Code's PreToolUse and PermissionRequest) and block everything
 * else. Gemini CLI and Cursor read a hook's silence and exit 0 as "allow": before, their
 * payloads got exactly that, so `rm -rf ~` passed.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-protocols-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const env = {
  HOME: path.join(work, 'home'),
  XDG_CONFIG_HOME: path.join(work, 'home', '.config'),
  CLAUDE_PROJECT_DIR: '',
  TOOLGATE_MANAGED_POLICY: '',
  TOOLGATE_LOG: '',
};

const FOREIGN: Record<string, unknown> = {
  // a Cursor event that decides no tool call (beforeMCPExecution was the example until toolgate answered it)
  'Cursor beforeSubmitPrompt': {
    hook_event_name: 'beforeSubmitPrompt',
    conversation_id: 'c1',
    workspace_roots: [work],
    prompt: 'hi',
  },
  'Claude Code PostToolUse': { hook_event_name: 'PostToolUse', cwd: work, tool_name: 'Bash', tool_input: {} },
  'no hook_event_name': { tool_name: 'Bash', tool_input: { command: 'rm -rf ~' }, cwd: work },
};

const claude = (event: string, command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 's1',
    cwd: work,
    permission_mode: 'default',
    hook_event_name: event,
    tool_name: 'Bash',
    tool_input: { command },
    ...(event === 'PreToolUse' ? { tool_use_id: 'toolu_1' } : { permission_suggestions: [] }),
    ...extra,
  });

type PermissionAnswer = {
  hookSpecificOutput: { hookEventName: string; decision: { behavior: string; message?: string } };
};

describe('toolgate hook', () => {
  for (const [name, payload] of Object.entries(FOREIGN)) {
    it(`blocks a payload it does not answer: ${name}`, async () => {
      const r = await runCli(['hook'], { stdin: JSON.stringify(payload), cwd: work, env });
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /unknown hook payload: .* is not one toolgate answers \(it answers [^)]*claude-code\/PreToolUse, claude-code\/PermissionRequest, gemini-cli\/BeforeTool, [^)]*\)/,
      );
    });
  }

  it('answers PermissionRequest in its own shape: allow, deny with the reason, and nothing on ask', async () => {
    const deny = await runCli(['hook'], {
      stdin: claude('PermissionRequest', 'git push --force origin main'),
      cwd: work,
      env,
    });
    expect(deny.code, deny.stderr).toBe(0);
    const denied = JSON.parse(deny.stdout) as PermissionAnswer;
    expect(denied.hookSpecificOutput.hookEventName).toBe('PermissionRequest');
    expect(denied.hookSpecificOutput.decision.behavior).toBe('deny');
    expect(denied.hookSpecificOutput.decision.message).toMatch(/Force pushes/);
    const allow = await runCli(['hook'], {
      stdin: claude('PermissionRequest', 'git status'),
      cwd: work,
      env,
    });
    expect((JSON.parse(allow.stdout) as PermissionAnswer).hookSpecificOutput.decision).toEqual({
      behavior: 'allow',
    });
    // toolgate's ask: the dialog Claude Code was about to show is the person's to answer.
    const ask = await runCli(['hook'], {
      stdin: claude('PermissionRequest', 'rm -rf build'),
      cwd: work,
      env,
    });
    expect(ask.code).toBe(0);
    expect(ask.stdout).toBe('');
  });

  it('a PermissionRequest it cannot decide is denied in the answer (Claude Code ignores exit 2 there)', async () => {
    const broken = path.join(work, 'broken.yaml');
    fs.writeFileSync(broken, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const r = await runCli(['hook', '--policy', broken], {
      stdin: claude('PermissionRequest', 'git status'),
      cwd: work,
      env,
    });
    expect(r.code).toBe(0);
    const answer = JSON.parse(r.stdout) as PermissionAnswer;
    expect(answer.hookSpecificOutput.decision.behavior).toBe('deny');
    expect(answer.hookSpecificOutput.decision.message).toMatch(/could not decide.*the policy was refused/s);
    expect(r.stderr).toMatch(/the policy was refused/);
    const invalid = await runCli(['hook'], {
      stdin: JSON.stringify({ hook_event_name: 'PermissionRequest', cwd: work, tool_input: {} }),
      cwd: work,
      env,
    });
    expect((JSON.parse(invalid.stdout) as PermissionAnswer).hookSpecificOutput.decision.behavior).toBe(
      'deny',
    );
  });
});

describe('toolgate serve: POST /hook', () => {
  let url = '';
  let stop = (): void => {};
  beforeAll(async () => {
    const tsx = path.join(path.dirname(MAIN), '..', '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
    const child = spawn(process.execPath, ['--import', tsx, MAIN, 'serve', '--port', '0'], {
      cwd: work,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stop = () => child.kill('SIGTERM');
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const line = out.split('\n')[0];
        if (out.includes('\n') && line) resolve((JSON.parse(line) as { listening: string }).listening);
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
  }, 120_000);
  afterAll(() => stop());

  const post = async (body: string) =>
    (await (
      await fetch(`${url}/hook`, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
    ).json()) as {
      hookSpecificOutput?: {
        permissionDecision?: string;
        permissionDecisionReason?: string;
        decision?: { behavior: string };
      };
    };

  it('denies a payload of no protocol it answers (it answered {} before, which allows)', async () => {
    for (const [name, payload] of Object.entries(FOREIGN)) {
      const body = await post(JSON.stringify(payload));
      expect(body.hookSpecificOutput?.permissionDecision, name).toBe('deny');
      expect(body.hookSpecificOutput?.permissionDecisionReason).toMatch(/unknown hook payload/);
    }
  });

  it('answers PermissionRequest', async () => {
    expect(
      (await post(claude('PermissionRequest', 'git push --force'))).hookSpecificOutput?.decision?.behavior,
    ).toBe('deny');
    expect(
      (await post(claude('PermissionRequest', 'git status'))).hookSpecificOutput?.decision?.behavior,
    ).toBe('allow');
    expect(await post(claude('PermissionRequest', 'rm -rf build'))).toEqual({});
  });
});
