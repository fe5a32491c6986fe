import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookWorkspace } from '../helpers/hook.js';

/**
 * Issue 17 through the real CLI: `toolgate hook` answers GitHub Copilot CLI's preToolUse hook.
 * Payload and answer as Copilot CLI's hooks reference documents them (github/docs,
 * content/copilot/reference/copilot-cli-reference/cli-hooks-reference.md: camelCase input
 * `{sessionId, timestamp, cwd, toolName, toolArgs}`, toolArgs a JSON string as in its
 * hooks-configuration examples; output `{permissionDecision, permissionDecisionReason}`, a reason
 * required on deny; "Hook failures (non-zero exit codes or timeouts) are logged and skipped").
 * Before, this payload exited 2 as unknown, which Copilot skips: the call ran unguarded.
 */
const { work, hook } = hookWorkspace('copilot');
fs.writeFileSync(path.join(work, 'notes.md'), 'hello\n');

const copilot = (toolName: string, toolArgs: unknown) =>
  JSON.stringify({
    sessionId: 'c1',
    timestamp: 1704614600000,
    cwd: work,
    toolName,
    toolArgs: typeof toolArgs === 'string' ? toolArgs : JSON.stringify(toolArgs),
  });
type Answer = { permissionDecision: string; permissionDecisionReason: string };

describe('toolgate hook: Copilot CLI preToolUse', () => {
  it('denies bash rm -rf ~ with a reason, allows view of a workspace file, in the shape Copilot reads', async () => {
    const denied = await hook(copilot('bash', { command: 'rm -rf ~', description: 'tidy' }));
    expect(denied.code, denied.stderr).toBe(0);
    const d = JSON.parse(denied.stdout) as Answer;
    expect(d.permissionDecision).toBe('deny');
    expect(d.permissionDecisionReason).toMatch(/^toolgate: \S/);
    const viewed = await hook(copilot('view', { path: 'notes.md' }));
    expect(JSON.parse(viewed.stdout), viewed.stderr).toMatchObject({ permissionDecision: 'allow' });
  });

  it('applies a Claude-syntax policy to Copilot tool names unchanged (edit as Edit, create as Write)', async () => {
    const policy = path.join(work, 'policy.yaml');
    fs.writeFileSync(
      policy,
      'version: 1\nrules:\n  - deny: "Edit(./notes.md)"\n  - allow: "Write(./out/**)"\n',
    );
    const edit = await hook(copilot('edit', { path: 'notes.md', old_str: 'hello', new_str: 'bye' }), [
      '--policy',
      policy,
    ]);
    expect(JSON.parse(edit.stdout), edit.stderr).toMatchObject({ permissionDecision: 'deny' });
    const create = await hook(copilot('create', { path: 'out/a.txt', file_text: 'x' }), ['--policy', policy]);
    expect(JSON.parse(create.stdout), create.stderr).toMatchObject({ permissionDecision: 'allow' });
  });

  it('answers an ask as a deny that says why (no prompt in -p mode), or passes it on with --agent-asks', async () => {
    const ask = await hook(copilot('bash', { command: 'touch marker' }));
    const a = JSON.parse(ask.stdout) as Answer;
    expect(a.permissionDecision).toBe('deny');
    expect(a.permissionDecisionReason).toMatch(/a person would have to approve it.*--agent-asks/);
    const passed = await hook(copilot('bash', { command: 'touch marker' }), ['--agent-asks']);
    expect(JSON.parse(passed.stdout)).toMatchObject({ permissionDecision: 'ask' });
  });

  it('blocks what it cannot decide with a deny on stdout and exit 0: Copilot skips a failed hook', async () => {
    const r = await hook(copilot('bash', '{"command": "ls"'));
    expect(r.code).toBe(0);
    const a = JSON.parse(r.stdout) as Answer;
    expect(a.permissionDecision).toBe('deny');
    expect(a.permissionDecisionReason).toMatch(/could not decide.*toolArgs is not JSON/);
    const broken = path.join(work, 'broken.yaml');
    fs.writeFileSync(broken, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const b = await hook(copilot('bash', { command: 'ls' }), ['--policy', broken, '--agent', 'copilot']);
    expect(b.code).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ permissionDecision: 'deny' });
  });
});
