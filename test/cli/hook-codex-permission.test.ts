import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { HOOK_PROTOCOLS } from '../../src/adapters/hook-protocols.js';
import { hookWorkspace } from '../helpers/hook.js';

/**
 * Codex CLI's PermissionRequest hook through the real CLI (#17 item 2). The payload is the one
 * codex-cli 0.171.0 sent (`codex exec --approve-for-me`, an exec_command asking for
 * require_escalated: test/fixtures/hook-payloads/codex-0.171.0-permission-request.json); the
 * answers are those it honoured when run: `decision.behavior` allow (ran, escalated) or deny
 * (rejected, the message to the model), exit 2 (rejected, stderr the message), nothing (its own
 * reviewer decides). Before, this payload was read as Claude Code's PermissionRequest, so its
 * permission_mode was honoured and every allow, also a predicted read-only one, was answered
 * allow, lifting Codex's sandbox for the call.
 */
const { work, hook: hookIn } = hookWorkspace('codex-perm');
const recorded = JSON.parse(
  fs.readFileSync(
    path.join(
      import.meta.dirname,
      '..',
      'fixtures',
      'hook-payloads',
      'codex-0.171.0-permission-request.json',
    ),
    'utf8',
  ),
) as Record<string, unknown>;
const payload = (command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ ...recorded, cwd: work, tool_input: { command, description: 'need it' }, ...extra });
const policy = path.join(work, 'policy.yaml');
fs.writeFileSync(
  policy,
  'version: 1\nrules:\n  - allow: "Bash(make:*)"\n  - deny: "Bash(rm:*)"\n  - deny: "Edit(**/.env)"\n',
);
const hook = (stdin: string, args: string[] = []) => hookIn(stdin, ['--policy', policy, ...args]);
const decision = (stdout: string) =>
  (
    JSON.parse(stdout) as {
      hookSpecificOutput: { hookEventName: string; decision: { behavior: string; message?: string } };
    }
  ).hookSpecificOutput;

describe('toolgate hook: Codex CLI PermissionRequest', () => {
  it("is Codex's, not Claude Code's", () => {
    expect(HOOK_PROTOCOLS.filter((h) => h.recognises(recorded)).map((h) => h.name)).toEqual([
      'codex/PermissionRequest',
    ]);
  });

  it('denies with the reason as the message, in the shape Codex reads', async () => {
    const r = await hook(payload('rm -rf build'));
    expect(r.code, r.stderr).toBe(0);
    const out = decision(r.stdout);
    expect(out.hookEventName).toBe('PermissionRequest');
    expect(out.decision.behavior).toBe('deny');
    expect(out.decision.message).toMatch(/^toolgate: Denied by rule "Bash\(rm:\*\)"/);
  });

  it('allows what a rule allows (Codex then runs it with the escalation it asked for)', async () => {
    const r = await hook(payload('make install'));
    expect(decision(r.stdout).decision.behavior).toBe('allow');
  });

  it('says nothing on an ask, nor on an allow toolgate only predicted (read-only): Codex’s own approval decides', async () => {
    expect((await hook(payload('touch /etc/x'))).stdout).toBe('');
    // allowed as read-only by default: lifting Codex's sandbox on a prediction would hold nothing
    const read = await hook(payload('cat README.md'));
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout).toBe('');
  });

  it("does not take Codex's permission_mode: bypassPermissions allows nothing the policy does not", async () => {
    const r = await hook(payload('touch /etc/x', { permission_mode: 'bypassPermissions' }));
    expect(r.stdout).toBe('');
  });

  it('exits 2 with the reason on stderr when it cannot decide (Codex rejects the call)', async () => {
    const broken = path.join(work, 'broken.yaml');
    fs.writeFileSync(broken, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const r = await hookIn(payload('make'), ['--policy', broken]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/policy was refused/);
  });

  it('decides an apply_patch approval file by file, as PreToolUse does', async () => {
    const patch = '*** Begin Patch\n*** Add File: Makefile\n+x\n*** Add File: .env\n+K=1\n*** End Patch\n';
    const r = await hook(
      JSON.stringify({ ...recorded, cwd: work, tool_name: 'apply_patch', tool_input: { command: patch } }),
    );
    expect(decision(r.stdout).decision.message).toMatch(/apply_patch Add File \.env: Denied by rule/);
  });
});
