import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MessagesApi, startMessagesApi } from '../../src/demo/scripted-model.js';
import { MAIN, runCli } from '../helpers/cli.js';

/**
 * A policy with `auto: {classifier: anthropic}` is honoured by every way in: the hook, the
 * HTTP server. The model is a loopback server speaking the Messages API.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-auto-cli-'));
let api: MessagesApi;
let policyFile = '';
beforeAll(async () => {
  api = await startMessagesApi(() => ({
    content: [{ type: 'text', text: '{"decision": "deny", "reason": "the loopback model says no"}' }],
    stop_reason: 'end_turn',
  }));
  policyFile = path.join(work, 'policy.yaml');
  fs.writeFileSync(
    policyFile,
    `version: 1\nmode: auto\nauto:\n  classifier: anthropic\n  model: claude-test\n  baseURL: ${api.url}\n`,
  );
});
afterAll(async () => {
  await api.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const env = { ANTHROPIC_API_KEY: 'sk-test-loopback' };

describe('auto mode with the Anthropic classifier, through the CLI', () => {
  it('toolgate hook asks the model about what the policy leaves open, and follows it', async () => {
    const before = api.requests.length;
    const r = await runCli(['hook', '--policy', policyFile], {
      cwd: work,
      env,
      stdin: JSON.stringify({
        session_id: 's',
        cwd: work,
        permission_mode: 'auto',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'npm install left-pad' },
      }),
    });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout).hookSpecificOutput;
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toContain('the loopback model says no');
    expect(api.requests.length).toBe(before + 1);
    expect(api.requests.at(-1)?.model).toBe('claude-test');
  });

  it('toolgate hook does not ask the model about read-only work', async () => {
    const before = api.requests.length;
    const r = await runCli(['hook', '--policy', policyFile], {
      cwd: work,
      env,
      stdin: JSON.stringify({
        cwd: work,
        permission_mode: 'auto',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'ls -la' },
      }),
    });
    expect(JSON.parse(r.stdout).hookSpecificOutput.permissionDecision).toBe('allow');
    expect(api.requests.length).toBe(before);
  });

  it('toolgate serve answers /decide through the same classifier', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', MAIN, 'serve', '--port', '0', '--policy', policyFile],
      { cwd: path.resolve(import.meta.dirname, '..', '..'), env: { ...process.env, ...env } },
    );
    try {
      const listening = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const line = out.split('\n')[0];
          if (out.includes('\n') && line) resolve((JSON.parse(line) as { listening: string }).listening);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const before = api.requests.length;
      const res = await fetch(`${listening}/decide`, {
        method: 'POST',
        body: JSON.stringify({ tool: 'Bash', input: { command: 'npm install left-pad' }, cwd: work }),
      });
      const decision = (await res.json()) as { behavior: string; decidedBy: string; reason: string };
      expect(decision).toMatchObject({ behavior: 'deny', decidedBy: 'classifier' });
      expect(decision.reason).toContain('the loopback model says no');
      expect(api.requests.length).toBe(before + 1);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
