import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * Codex's apply_patch through the real CLI (#17 item 1). codex-cli 0.171.0 hands it to the
 * PreToolUse hook as `tool_name: "apply_patch"`, `tool_input: {command: <the patch>}` (recorded
 * from the binary: test/fixtures/hook-payloads/codex-0.171.0-apply-patch.json), and applies it
 * in-process, so no Bash rule ever sees it. toolgate decides each file as the Write, Edit or Read
 * it stands for, with the policy's file rules, and answers the strictest. Before, the call was one
 * unknown tool "apply_patch": an ask, denied whatever the files (a patch the policy allows could
 * never run), and with --agent-asks passed on to Codex, which applied it even where the policy
 * denies one of its files.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-codex-patch-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
const ws = path.join(work, 'ws');
fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
const env = {
  HOME: path.join(work, 'home'),
  XDG_CONFIG_HOME: path.join(work, 'home', '.config'),
  CLAUDE_PROJECT_DIR: '',
  TOOLGATE_MANAGED_POLICY: '',
  TOOLGATE_LOG: '',
};
const recorded = JSON.parse(
  fs.readFileSync(
    path.join(import.meta.dirname, '..', 'fixtures', 'hook-payloads', 'codex-0.171.0-apply-patch.json'),
    'utf8',
  ),
) as Record<string, unknown>;
const payload = (...lines: string[]) =>
  JSON.stringify({ ...recorded, cwd: ws, tool_input: { command: `${lines.join('\n')}\n` } });
const policy = path.join(work, 'policy.yaml');
fs.writeFileSync(
  policy,
  'version: 1\nextends: builtin:default\nrules:\n  - allow: "Edit(src/**)"\n  - deny: "Edit(src/locked/**)"\n',
);
const hook = (stdin: string, args: string[] = []) =>
  runCli(['hook', '--agent', 'codex', '--policy', policy, ...args], { stdin, cwd: ws, env });
const denial = (stdout: string) =>
  (
    JSON.parse(stdout) as {
      hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string };
    }
  ).hookSpecificOutput;

describe('toolgate hook: Codex apply_patch, decided file by file', () => {
  it('lets a patch run whose every file the policy allows (Codex: no answer)', async () => {
    const r = await hook(
      payload(
        '*** Begin Patch',
        '*** Add File: src/new.ts',
        '+export const x = 1;',
        '*** Update File: src/old.ts',
        '@@',
        '-a',
        '+b',
        '*** Delete File: src/gone.ts',
        '*** End Patch',
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('denies the whole patch when one file is denied, and says which file', async () => {
    const r = await hook(
      payload(
        '*** Begin Patch',
        '*** Add File: src/ok.ts',
        '+ok',
        '*** Add File: .env',
        '+KEY=1',
        '*** End Patch',
      ),
    );
    expect(r.code, r.stderr).toBe(0);
    const out = denial(r.stdout);
    expect(out.permissionDecision).toBe('deny');
    expect(out.permissionDecisionReason).toMatch(/^toolgate: apply_patch Add File \.env: Denied by rule/);
  });

  it('--agent-asks does not pass on a patch with a denied file (it did: the unknown tool only asked)', async () => {
    const r = await hook(
      payload('*** Begin Patch', '*** Update File: src/locked/a.ts', '@@', '-a', '+b', '*** End Patch'),
      ['--agent-asks'],
    );
    expect(denial(r.stdout).permissionDecision).toBe('deny');
    expect(denial(r.stdout).permissionDecisionReason).toMatch(
      /Update File src\/locked\/a\.ts: Denied by rule "Edit\(src\/locked/,
    );
    // a file outside the workspace asks, so it is denied with why; --agent-asks leaves that to Codex
    const outside = payload('*** Begin Patch', '*** Delete File: ../elsewhere.txt', '*** End Patch');
    const asked = await hook(outside);
    expect(denial(asked.stdout).permissionDecisionReason).toMatch(
      /Delete File \.\.\/elsewhere\.txt: .*a person would have to approve it/,
    );
    expect((await hook(outside, ['--agent-asks'])).stdout).toBe('');
  });

  it("a move reads its source: moving .env into src/ is denied by the policy's read rule", async () => {
    const r = await hook(
      payload(
        '*** Begin Patch',
        '*** Update File: .env',
        '*** Move to: src/leak.txt',
        '@@',
        ' KEY=1',
        '*** End Patch',
      ),
    );
    expect(denial(r.stdout).permissionDecisionReason).toMatch(
      /Update File \.env \(moved away: read\): Denied by rule "Read\(/,
    );
  });

  it('protected paths stay protected inside a patch', async () => {
    const r = await hook(
      payload('*** Begin Patch', '*** Add File: src/../.git/hooks/pre-commit', '+x', '*** End Patch'),
    );
    expect(denial(r.stdout).permissionDecision).toBe('deny');
    expect(denial(r.stdout).permissionDecisionReason).toMatch(/\.git\/hooks\/pre-commit/);
  });

  it('blocks (exit 2, the reason on stderr: Codex tells the model) a patch it cannot read as Codex would', async () => {
    for (const [lines, why] of [
      [['*** Begin Patch', '*** Add File: a', '+x'], /last line of the patch must be/],
      [
        ['*** Begin Patch', '*** Environment ID: remote', '*** Add File: a', '+x', '*** End Patch'],
        /environment/,
      ],
      [['*** Begin Patch', '*** End Patch'], /changes no file/],
    ] as const) {
      const r = await hook(payload(...lines));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(why);
    }
    const noText = await hook(JSON.stringify({ ...recorded, cwd: ws, tool_input: { patch: 'x' } }));
    expect(noText.code).toBe(2);
    expect(noText.stderr).toMatch(/no patch text/);
  });

  it("decides Codex's shell spelling, apply_patch <<'EOF' (applied by Codex itself, no shell), by its files too", async () => {
    const bash = (command: string) =>
      JSON.stringify({ ...recorded, cwd: ws, tool_name: 'Bash', tool_input: { command } });
    const body = (file: string) => `*** Begin Patch\n*** Add File: ${file}\n+x\n*** End Patch`;
    const allowed = await hook(bash(`apply_patch <<'EOF'\n${body('src/a.ts')}\nEOF\n`));
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stdout).toBe('');
    // in DIR, as Codex applies it: src/locked/b.ts
    const denied = await hook(bash(`cd src && apply_patch <<'EOF'\n${body('locked/b.ts')}\nEOF`), [
      '--agent-asks',
    ]);
    expect(denial(denied.stdout).permissionDecisionReason).toMatch(
      /Add File locked\/b\.ts: Denied by rule "Edit\(src\/locked/,
    );
    // anything after the heredoc is a shell line again: decided as Bash (an unknown program asks)
    const more = await hook(bash(`apply_patch <<'EOF'\n${body('src/a.ts')}\nEOF\ntouch src/x`));
    expect(denial(more.stdout).permissionDecisionReason).toMatch(/apply_patch is not a known program/);
  });

  it('logs one record per file, each a plain Write or Edit a replay decides again', async () => {
    const log = path.join(work, 'decisions.jsonl');
    const r = await hook(
      payload(
        '*** Begin Patch',
        '*** Add File: src/a.ts',
        '+a',
        '*** Add File: .env',
        '+K=1',
        '*** End Patch',
      ),
      ['--log', log],
    );
    expect(r.code, r.stderr).toBe(0);
    const records = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            request: { tool: string; input: { file_path: string } };
            decision: { behavior: string };
            agent: { name: string };
          },
      );
    expect(
      records.map((x) => [x.request.tool, path.basename(x.request.input.file_path), x.decision.behavior]),
    ).toEqual([
      ['Write', 'a.ts', 'allow'],
      ['Write', '.env', 'deny'],
    ]);
    expect(records.every((x) => x.agent.name === 'codex')).toBe(true);
    const verify = await runCli(['verify', log], { cwd: ws, env });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });
});
