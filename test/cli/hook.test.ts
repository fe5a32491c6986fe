import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/main-in-process.js';

/** `toolgate hook` as Claude Code runs it: a process, hook JSON on stdin, exit 2 to block. */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-hook-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const hookInput = (tool: string, input: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: 's1',
    transcript_path: '/tmp/t.jsonl',
    cwd: work,
    permission_mode: 'default',
    hook_event_name: 'PreToolUse',
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_1',
    ...extra,
  });

const decisionOf = (stdout: string) =>
  (
    JSON.parse(stdout) as {
      hookSpecificOutput: {
        permissionDecision: string;
        permissionDecisionReason: string;
        hookEventName: string;
      };
    }
  ).hookSpecificOutput;

describe('toolgate hook', () => {
  it('allows read-only work in the workspace', async () => {
    const r = await runCli(['hook'], {
      stdin: hookInput('Bash', { command: 'git status', description: 'status' }),
      cwd: work,
    });
    expect(r.code).toBe(0);
    const out = decisionOf(r.stdout);
    expect(out.hookEventName).toBe('PreToolUse');
    expect(out.permissionDecision).toBe('allow');
  });

  it('denies with a reason the model can read', async () => {
    const r = await runCli(['hook'], {
      stdin: hookInput('Bash', { command: 'git push --force origin main' }),
      cwd: work,
    });
    expect(r.code).toBe(0);
    const out = decisionOf(r.stdout);
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toMatch(/Force pushes rewrite shared history/);
  });

  it('asks for what needs a person', async () => {
    const r = await runCli(['hook'], { stdin: hookInput('Bash', { command: 'rm -rf build' }), cwd: work });
    expect(decisionOf(r.stdout).permissionDecision).toBe('ask');
  });

  it('maps permission_mode: dontAsk turns asks into denials, plan refuses writes', async () => {
    const dontAsk = await runCli(['hook'], {
      stdin: hookInput('Bash', { command: 'rm -rf build' }, { permission_mode: 'dontAsk' }),
      cwd: work,
    });
    expect(decisionOf(dontAsk.stdout).permissionDecision).toBe('deny');
    const plan = await runCli(['hook'], {
      stdin: hookInput(
        'Write',
        { file_path: path.join(work, 'a.txt'), content: 'x' },
        { permission_mode: 'plan' },
      ),
      cwd: work,
    });
    expect(decisionOf(plan.stdout).permissionDecision).toBe('deny');
  });

  it('blocks (exit 2) on input it cannot read, never failing open', async () => {
    for (const stdin of [
      '',
      'not json',
      '[]',
      JSON.stringify({ hook_event_name: 'PreToolUse' }),
      hookInput('Bash', 'x'),
    ]) {
      const r = await runCli(['hook'], { stdin, cwd: work });
      expect(r.code, stdin).toBe(2);
      expect(r.stderr).toMatch(/toolgate hook:/);
      expect(r.stdout).toBe('');
    }
  });

  it('blocks (exit 2) when the policy is broken or missing', async () => {
    const bad = path.join(work, 'bad.yaml');
    fs.writeFileSync(bad, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const broken = await runCli(['hook', '--policy', bad], {
      stdin: hookInput('Read', { file_path: path.join(work, 'x') }),
      cwd: work,
    });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/bad\.yaml:3:\d+/);
    const missing = await runCli(['hook', '--policy', path.join(work, 'nope.yaml')], {
      stdin: hookInput('Read', { file_path: '/x' }),
      cwd: work,
    });
    expect(missing.code).toBe(2);
  });

  it('runs when: conditions in isolated-vm (restarting node with --no-node-snapshot when needed)', async () => {
    const policy = path.join(work, 'conditions.yaml');
    fs.writeFileSync(
      policy,
      'version: 1\nrules:\n  - deny: "Bash(git *)"\n    when: "input.command.includes(\'--force\')"\n    reason: forced\n',
    );
    const forced = await runCli(['hook', '--policy', policy], {
      stdin: hookInput('Bash', { command: 'git push --force' }),
      cwd: work,
    });
    expect(forced.code, forced.stderr).toBe(0);
    expect(decisionOf(forced.stdout).permissionDecision).toBe('deny');
    expect(decisionOf(forced.stdout).permissionDecisionReason).toMatch(/forced/);
    const plain = await runCli(['hook', '--policy', policy], {
      stdin: hookInput('Bash', { command: 'git status' }),
      cwd: work,
    });
    expect(decisionOf(plain.stdout).permissionDecision).toBe('allow');
  });

  it('blocks hook events it does not answer (hook-protocols.test.ts has the other agents)', async () => {
    const r = await runCli(['hook'], {
      stdin: JSON.stringify({ hook_event_name: 'PostToolUse', cwd: work }),
      cwd: work,
    });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/unknown hook payload: hook event "PostToolUse"/);
  });

  it('writes every decision to the decision log', async () => {
    const log = path.join(work, 'decisions.jsonl');
    await runCli(['hook', '--log', log], { stdin: hookInput('Bash', { command: 'ls' }), cwd: work });
    await runCli(['hook'], {
      stdin: hookInput('Bash', { command: 'git push -f' }),
      cwd: work,
      env: { TOOLGATE_LOG: log },
    });
    const records = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => r.decision.behavior)).toEqual(['allow', 'deny']);
    expect(records[1].prev).toBe(records[0].hash);
    const verify = await runCli(['verify', log]);
    expect(verify.code).toBe(0);
  });

  it('keeps a checkpoint beside the log, signed with --log-key, so a cut-off tail is found', async () => {
    const dir = fs.mkdtempSync(path.join(work, 'signed-'));
    const log = path.join(dir, 'decisions.jsonl');
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    fs.writeFileSync(path.join(dir, 'key.pem'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    fs.writeFileSync(path.join(dir, 'key.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    for (const command of ['ls', 'pwd']) {
      const r = await runCli(['hook', '--log', log, '--log-key', path.join(dir, 'key.pem')], {
        stdin: hookInput('Bash', { command }),
        cwd: work,
      });
      expect(r.code).toBe(0);
    }
    const checkpoint = JSON.parse(fs.readFileSync(`${log}.checkpoint`, 'utf8'));
    expect(checkpoint).toMatchObject({ count: 2, sig: expect.any(String) });
    const pub = path.join(dir, 'key.pub');
    expect((await runMain(['verify', log, '--public-key', pub], { cwd: dir })).code).toBe(0);
    const lines = fs.readFileSync(log, 'utf8').split('\n');
    fs.writeFileSync(log, `${lines[0]}\n`);
    const cut = await runMain(['verify', log, '--public-key', pub], { cwd: dir });
    expect(cut.code).toBe(1);
    expect(cut.stderr).toMatch(/truncated/);
  }, 120_000);

  it('blocks (exit 2) when the signing key it was given cannot be read: the log would go unsigned', async () => {
    const log = path.join(work, 'unsigned.jsonl');
    const r = await runCli(['hook', '--log', log, '--log-key', path.join(work, 'no-such-key.pem')], {
      stdin: hookInput('Bash', { command: 'ls' }),
      cwd: work,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no-such-key\.pem/);
  }, 60_000);
});
