import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentBinary } from './agent-bins.js';
import { type CodexOptions, codexSession } from './codex-session.js';
import type { ScriptedCall } from './model-servers.js';

/**
 * The real Codex CLI (0.171.0, from npm), `codex exec` headless, against a loopback Responses API
 * (a custom model provider whose base_url is on 127.0.0.1) that answers with scripted
 * exec_command calls, with `toolgate hook --agent codex` as its PreToolUse hook. What must hold:
 * denied calls never run, allowed ones do, a write the policy does not name is not allowed
 * although Codex reports bypassPermissions, toolgate's reason reaches the model, and a toolgate
 * that cannot decide (a broken policy: exit 2) blocks the call.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const codex = agentBinary('codex');
// not under /tmp: codex refuses to place its helper binaries there
const base = fs.mkdtempSync(path.join(os.homedir(), '.cache', 'toolgate-codex-e2e-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

interface RunOptions extends CodexOptions {
  /** The hook events toolgate answers (default PreToolUse). */
  readonly events?: readonly string[];
}

async function run(name: string, calls: ScriptedCall[], policy: string, options: RunOptions = {}) {
  const { events = ['PreToolUse'], ...codexOptions } = options;
  const ws = path.join(base, name, 'workspace');
  const home = path.join(base, name, 'home');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(ws, 'victim.txt'), 'do not delete\n');
  const policyFile = path.join(base, name, 'policy.yaml');
  fs.writeFileSync(policyFile, policy);
  const hook = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} hook --agent codex --policy ${JSON.stringify(policyFile)}`;
  fs.writeFileSync(
    path.join(home, 'hooks.json'),
    JSON.stringify({
      hooks: Object.fromEntries(
        events.map((e) => [e, [{ matcher: '.*', hooks: [{ type: 'command', command: hook, timeout: 60 }] }]]),
      ),
    }),
  );
  const { result, told } = await codexSession(codex.path!, ws, home, calls, {
    ...codexOptions,
    env: { TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed.yaml') },
  });
  return { ws, result, told };
}

const POLICY = 'version: 1\nrules:\n  - deny: "Bash(rm:*)"\n  - allow: "Bash(touch made.txt)"\n';

describe.skipIf(codex.path === undefined)('Codex CLI with toolgate as its PreToolUse hook', () => {
  it('runs the allowed call, not the denied one nor an unnamed write (despite bypassPermissions), and tells the model why', async () => {
    const { ws, result, told } = await run(
      'session',
      [
        { name: 'exec_command', args: { cmd: 'rm victim.txt' } },
        { name: 'exec_command', args: { cmd: 'touch made.txt' } },
        { name: 'exec_command', args: { cmd: 'echo x > asked.txt' } },
      ],
      POLICY,
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(fs.existsSync(path.join(ws, 'victim.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'asked.txt'))).toBe(false);
    expect(
      told.some((t) => /blocked by PreToolUse hook: toolgate: /.test(t)),
      told.join('\n'),
    ).toBe(true);
    expect(
      told.some((t) => /a person would have to approve it/.test(t)),
      told.join('\n'),
    ).toBe(true);
  });

  // gpt-5.5 is a model Codex 0.171.0 gives its freeform apply_patch tool (its bundled catalogue:
  // apply_patch_tool_type "freeform"); the hook gets tool_name "apply_patch", {command: <patch>}
  it('decides apply_patch file by file: an allowed patch is applied, one with a denied file or one toolgate cannot read is not', async () => {
    const patch = (...lines: string[]) => `*** Begin Patch\n${lines.join('\n')}\n*** End Patch\n`;
    const { ws, result, told } = await run(
      'patch',
      [
        { name: 'apply_patch', input: patch('*** Add File: src/doc.md', '+intro', '+*** Add File: x') },
        {
          name: 'apply_patch',
          input: patch('*** Add File: src/also.txt', '+x', '*** Add File: .env', '+KEY=1'),
        },
        { name: 'apply_patch', input: patch('*** Delete File: victim.txt') },
        // Codex applies this (the context line is the file's second line); to toolgate it reads as a
        // header once trimmed, which Codex versions disagree on: it cannot decide it, exit 2 blocks
        {
          name: 'apply_patch',
          input: patch('*** Update File: src/doc.md', '@@', ' *** Add File: x', '+added'),
        },
        // the shell spelling, which Codex applies itself: decided by its files as well
        {
          name: 'exec_command',
          args: { cmd: `apply_patch <<'EOF'\n${patch('*** Add File: src/shell.txt', '+sh')}EOF\n` },
        },
        // a patch Codex itself cannot parse never reaches the hook
        { name: 'apply_patch', input: '*** Begin Patch\n*** Add File: src/broken.txt\n+x\n' },
      ],
      'version: 1\nextends: builtin:default\nrules:\n  - allow: "Edit(src/**)"\n',
      { model: 'gpt-5.5' },
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    // allowed, and applied (and left as it was: the unreadable update did not run)
    expect(fs.readFileSync(path.join(ws, 'src', 'doc.md'), 'utf8')).toBe('intro\n*** Add File: x\n');
    expect(fs.readFileSync(path.join(ws, 'src', 'shell.txt'), 'utf8')).toBe('sh\n');
    // one denied file denies the whole patch: neither file is written
    expect(fs.existsSync(path.join(ws, 'src', 'also.txt'))).toBe(false);
    expect(fs.existsSync(path.join(ws, '.env'))).toBe(false);
    // a deletion the policy does not allow asks, which Codex cannot: denied, the file stays
    expect(fs.existsSync(path.join(ws, 'victim.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'src', 'broken.txt'))).toBe(false);
    const all = told.join('\n');
    expect(all).toMatch(/Success\. Updated the following files:\\nA src\/doc\.md/);
    expect(all).toMatch(/blocked by PreToolUse hook: toolgate: apply_patch Add File \.env: Denied by rule/);
    expect(all).toMatch(/apply_patch Delete File victim\.txt: .*a person would have to approve it/);
    expect(all).toMatch(
      /blocked by PreToolUse hook: toolgate hook: Codex apply_patch: line 4 .* reads as a file header/,
    );
    expect(all).toMatch(/apply_patch verification failed: invalid patch: The last line of the patch must be/);
  });

  // --approve-for-me: Codex's workspace-write sandbox, and an approval for each call that asks to
  // leave it (require_escalated), which its PermissionRequest hook answers first
  it('answers PermissionRequest from the policy: a rule allows the escalation, a deny rejects it with the reason', async () => {
    const { ws, result, told } = await run(
      'permission',
      [
        {
          name: 'exec_command',
          args: { cmd: 'touch ../granted.txt', sandbox_permissions: 'require_escalated', justification: 'j' },
        },
        {
          name: 'exec_command',
          args: { cmd: 'touch ../refused.txt', sandbox_permissions: 'require_escalated', justification: 'j' },
        },
      ],
      'version: 1\nrules:\n  - allow: "Bash(touch ../granted.txt)"\n  - deny: "Bash(touch ../refused.txt)"\n',
      { events: ['PermissionRequest'], mode: ['--approve-for-me'] },
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(fs.existsSync(path.join(ws, '..', 'granted.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, '..', 'refused.txt'))).toBe(false);
    expect(told.join('\n')).toMatch(/Rejected\(.*toolgate: Denied by rule .*touch \.\.\/refused\.txt/);
  });

  it('blocks the call when toolgate cannot decide (a broken policy: exit 2)', async () => {
    const { ws, told } = await run(
      'broken',
      [{ name: 'exec_command', args: { cmd: 'touch made.txt' } }],
      'version: 1\nrules:\n  - allow: "Bash("\n',
    );
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(false);
    expect(told.join('\n')).toMatch(/policy was refused/);
  });
});
