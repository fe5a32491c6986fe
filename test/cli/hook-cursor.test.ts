import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cursorBeforeReadFile, cursorBeforeShellExecution } from '../../src/adapters/cursor-hook.js';
import { readHookPayload } from '../../src/adapters/hook-protocol.js';
import { HOOK_PROTOCOLS } from '../../src/adapters/hook-protocols.js';
import { hookWorkspace } from '../helpers/hook.js';

/**
 * Issue 17: Cursor's beforeShellExecution hook, as a contract and through the real CLI.
 * Payload and answer from Cursor's hooks docs (https://cursor.com/docs/agent/hooks; fields
 * summarised in ../shared/research/agents.md): input `{hook_event_name, conversation_id,
 * generation_id, workspace_roots, command, cwd}`, output `{permission: allow|deny|ask,
 * user_message, agent_message}`, exit 2 blocks. Before, this payload exited 2 as unknown.
 */
const { work, hook } = hookWorkspace('cursor');
const cursor = (command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    conversation_id: 'conv-1',
    generation_id: 'gen-1',
    hook_event_name: 'beforeShellExecution',
    workspace_roots: [work],
    command,
    cwd: work,
    ...extra,
  });

describe('Cursor beforeShellExecution: contract', () => {
  it('reads the command as a Bash call in cwd, or in the first workspace root when cwd is empty', () => {
    const r = readHookPayload(cursor('git status'), HOOK_PROTOCOLS);
    expect(r.ok && r.protocol).toBe(cursorBeforeShellExecution);
    if (r.ok)
      expect(r.request).toEqual({
        tool: 'Bash',
        input: { command: 'git status' },
        cwd: work,
        mode: 'default',
        sessionId: 'conv-1',
      });
    const root = readHookPayload(cursor('ls', { cwd: '' }), HOOK_PROTOCOLS);
    expect(root.ok && root.request.cwd).toBe(work);
  });

  it('refuses a payload without a command or an absolute directory', () => {
    for (const [payload, why] of [
      [cursor('ls', { command: undefined }), /no command/],
      [cursor('ls', { cwd: 'rel', workspace_roots: [] }), /no absolute cwd/],
      [cursor('ls', { cwd: '', workspace_roots: ['rel'] }), /no absolute cwd/],
    ] as const) {
      const r = readHookPayload(payload, HOOK_PROTOCOLS);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatch(why);
    }
    expect(cursorBeforeShellExecution.block('x')).toBe('exit');
    expect(cursorBeforeShellExecution.httpBlock('x')).toMatchObject({ permission: 'deny' });
  });
});

describe('toolgate hook: Cursor beforeShellExecution', () => {
  it('denies rm -rf ~ and allows git status, in the shape Cursor reads', async () => {
    const deny = await hook(cursor('rm -rf ~'));
    expect(deny.code, deny.stderr).toBe(0);
    const denied = JSON.parse(deny.stdout) as Record<string, string>;
    expect(denied.permission).toBe('deny');
    expect(denied.agent_message).toMatch(/^toolgate: /);
    expect(denied.user_message).toBe(denied.agent_message);
    const allow = await hook(cursor('git status'), ['--agent', 'cursor']);
    expect(JSON.parse(allow.stdout), allow.stderr).toMatchObject({ permission: 'allow' });
  });

  it("exits 2 (Cursor: block) when it cannot decide or the payload is another agent's under --agent", async () => {
    const broken = path.join(work, 'broken.yaml');
    fs.writeFileSync(broken, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const r = await hook(cursor('git status'), ['--policy', broken]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const other = await hook(cursor('git status'), ['--agent', 'gemini-cli']);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/unknown hook payload: hook event "beforeShellExecution"/);
  });
});

/**
 * Cursor's beforeReadFile (same docs): input `{hook_event_name: "beforeReadFile", conversation_id,
 * generation_id, workspace_roots, file_path, content, attachments}`, output `{permission}`.
 * Before, this payload exited 2 as unknown, so every file read was blocked.
 */
const read = (file_path: unknown) =>
  JSON.stringify({
    conversation_id: 'conv-1',
    generation_id: 'gen-1',
    hook_event_name: 'beforeReadFile',
    workspace_roots: [work],
    file_path,
    content: 'API_KEY=secret',
    attachments: [],
  });

describe('Cursor beforeReadFile', () => {
  it('reads the file as a Claude Code Read (relative paths against the first workspace root)', () => {
    const r = readHookPayload(read('src/a.ts'), HOOK_PROTOCOLS);
    expect(r.ok && r.protocol).toBe(cursorBeforeReadFile);
    if (r.ok)
      expect(r.request).toMatchObject({
        tool: 'Read',
        input: { file_path: path.join(work, 'src/a.ts') },
        cwd: work,
      });
    const bad = readHookPayload(read(''), HOOK_PROTOCOLS);
    expect(!bad.ok && bad.error).toMatch(/no file_path/);
  });

  it('denies a read a Read rule denies, and allows a workspace file, in the shape Cursor reads', async () => {
    const policy = path.join(work, 'read-policy.yaml');
    fs.writeFileSync(policy, 'version: 1\nrules:\n  - deny: "Read(**/.env)"\n');
    fs.writeFileSync(path.join(work, 'notes.md'), 'hi\n');
    const denied = await hook(read(path.join(work, '.env')), ['--policy', policy]);
    expect(JSON.parse(denied.stdout), denied.stderr).toMatchObject({ permission: 'deny' });
    const allowed = await hook(read('notes.md'), ['--policy', policy, '--agent', 'cursor']);
    expect(JSON.parse(allowed.stdout), allowed.stderr).toMatchObject({ permission: 'allow' });
  });
});
