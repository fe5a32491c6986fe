import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOOK_PROTOCOLS } from '../../src/adapters/hook-protocols.js';
import { runCli } from '../helpers/cli.js';

/**
 * Agent detection (#14 with #17): Codex CLI's PreToolUse payload is shaped like Claude Code's.
 * Every payload must be recognised by exactly one protocol, so the registry's order never
 * decides; Claude Code's real payloads (2.1.197 and 2.1.332, recorded from the binaries) are
 * Claude Code's, and a Codex payload is Codex's by its turn_id or its model alone. Read as
 * Claude Code's, a Codex payload would have its `permission_mode: "bypassPermissions"` honoured.
 */
const FIXTURES = path.join(import.meta.dirname, '..', 'fixtures', 'hook-payloads');
const claude = (v: string) =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, `claude-${v}-pretooluse.json`), 'utf8')) as Record<
    string,
    unknown
  >;
const codex = (extra: Record<string, unknown>) => ({
  session_id: '019a-session',
  transcript_path: null,
  cwd: '/workspace',
  hook_event_name: 'PreToolUse',
  permission_mode: 'bypassPermissions',
  tool_name: 'Bash',
  tool_input: { command: 'touch made.txt' },
  tool_use_id: 'call_001',
  ...extra,
});

const recognisedBy = (p: Record<string, unknown>) =>
  HOOK_PROTOCOLS.filter((h) => h.recognises(p)).map((h) => h.name);

describe('hook protocol detection', () => {
  it("Claude Code's own PreToolUse payloads are Claude Code's, and only theirs", () => {
    for (const v of ['2.1.197', '2.1.332'])
      expect(recognisedBy(claude(v)), v).toEqual(['claude-code/PreToolUse']);
  });

  it("a Codex payload is Codex's with turn_id and model, either one alone, and only Codex's", () => {
    for (const extra of [{ turn_id: 't', model: 'm' }, { turn_id: 't' }, { model: 'gpt-5' }])
      expect(recognisedBy(codex(extra)), JSON.stringify(extra)).toEqual(['codex/PreToolUse']);
  });

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-detect-'));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

  it('through toolgate hook: a Codex payload with a model but no turn_id is not decided in bypass mode', {
    timeout: 60_000,
  }, async () => {
    const r = await runCli(['hook'], {
      stdin: JSON.stringify(codex({ model: 'gpt-5', cwd: work })),
      cwd: work,
      env: {
        HOME: path.join(work, 'home'),
        XDG_CONFIG_HOME: path.join(work, 'home', '.config'),
        CLAUDE_PROJECT_DIR: '',
        TOOLGATE_MANAGED_POLICY: '',
        TOOLGATE_LOG: '',
      },
    });
    expect(r.code, r.stderr).toBe(0);
    // Codex runs an ask without a prompt, so toolgate answers it with a deny; as Claude Code's
    // payload it was an allow (bypassPermissions).
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } };
    expect(out.hookSpecificOutput.permissionDecision).toBe('deny');
  });
});
