import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { INIT_AGENTS, planAgent } from '../../src/cli/init-agents.js';
import { runCli } from '../helpers/cli.js';

/**
 * `toolgate init --agent NAME` (#17 item 3): each agent's hook file, as the agent documents it
 * (../shared/research/agents.md): Claude Code .claude/settings.json PreToolUse +
 * PermissionRequest with onFailure block; Gemini CLI .gemini/settings.json BeforeTool (timeout
 * in ms); Codex $CODEX_HOME/hooks.json PreToolUse (timeout in s); Cursor .cursor/hooks.json
 * version 1, beforeShellExecution, preToolUse and beforeMCPExecution with failClosed; Copilot
 * CLI .github/hooks/*.json version 1, camelCase preToolUse with bash and timeoutSec; OpenCode a
 * plugin file in .opencode/plugin/.
 * Merged, never clobbered; idempotent; --dry-run writes nothing.
 */
let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-init-agents-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = () => ({ CODEX_HOME: path.join(dir, 'codex-home'), HOME: path.join(dir, 'home') });

function apply(agent: (typeof INIT_AGENTS)[number]): string[] {
  const out: string[] = [];
  for (const p of planAgent(agent, dir, { env: env() })) {
    if ('error' in p) throw new Error(p.error);
    if ('after' in p) {
      fs.mkdirSync(path.dirname(p.file), { recursive: true });
      fs.writeFileSync(p.file, p.after);
      out.push(p.file);
    }
  }
  return out;
}
const json = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));

describe('init --agent', () => {
  it("writes each agent's hook with its fail-closed setting, keeping every other setting", () => {
    fs.mkdirSync(path.join(dir, '.gemini'));
    fs.writeFileSync(
      path.join(dir, '.gemini', 'settings.json'),
      JSON.stringify({
        model: { name: 'gemini-2.5-pro' },
        hooks: { AfterTool: [{ matcher: '.*', hooks: [] }] },
      }),
    );
    fs.mkdirSync(path.join(dir, '.cursor'));
    fs.writeFileSync(
      path.join(dir, '.cursor', 'hooks.json'),
      JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: './audit.sh' }] } }),
    );
    for (const a of INIT_AGENTS) apply(a);

    const claude = json('.claude/settings.json');
    expect(claude.hooks.PreToolUse[0].hooks[0]).toMatchObject({ onFailure: 'block' });
    expect(claude.hooks.PermissionRequest).toHaveLength(1);
    const gemini = json('.gemini/settings.json');
    expect(gemini.model).toEqual({ name: 'gemini-2.5-pro' });
    expect(gemini.hooks.AfterTool).toHaveLength(1);
    expect(gemini.hooks.BeforeTool[0].hooks[0].command).toMatch(/^toolgate hook --agent gemini-cli/);
    const codex = JSON.parse(fs.readFileSync(path.join(dir, 'codex-home', 'hooks.json'), 'utf8'));
    expect(codex.hooks.PreToolUse[0].hooks[0].command).toMatch(/^toolgate hook --agent codex/);
    expect(codex.hooks.PermissionRequest[0].hooks[0].command).toMatch(/^toolgate hook --agent codex/);
    const cursor = json('.cursor/hooks.json');
    expect(cursor.hooks.beforeShellExecution).toEqual([
      { command: './audit.sh' },
      { command: 'toolgate hook --agent cursor --log .toolgate/decisions.jsonl', failClosed: true },
    ]);
    const copilot = json('.github/hooks/toolgate.json');
    expect(copilot.version).toBe(1);
    expect(copilot.hooks.preToolUse[0]).toMatchObject({
      type: 'command',
      bash: expect.stringMatching(/--agent copilot/),
    });
    expect(fs.readFileSync(path.join(dir, '.opencode', 'plugin', 'toolgate.js'), 'utf8')).toMatch(
      /"opencode"/,
    );
  });

  it('is idempotent: a second run changes nothing', () => {
    for (const a of INIT_AGENTS) apply(a);
    for (const a of INIT_AGENTS) expect(apply(a), a).toEqual([]);
  });

  it("gives a toolgate hook already there the agent's fail-closed setting it lacks", () => {
    fs.mkdirSync(path.join(dir, '.cursor'));
    const old = { command: 'toolgate hook --agent cursor', timeout: 20 };
    fs.writeFileSync(
      path.join(dir, '.cursor', 'hooks.json'),
      JSON.stringify({ version: 1, hooks: { beforeShellExecution: [{ command: './audit.sh' }, old] } }),
    );
    expect(apply('cursor')).toHaveLength(1);
    expect(json('.cursor/hooks.json').hooks.beforeShellExecution).toEqual([
      { command: './audit.sh' },
      { ...old, failClosed: true },
    ]);
    expect(apply('cursor')).toEqual([]);
  });

  it('leaves a file it cannot merge alone and says why', () => {
    fs.mkdirSync(path.join(dir, '.cursor'));
    fs.writeFileSync(path.join(dir, '.cursor', 'hooks.json'), '{"hooks": {"beforeShellExecution": {}}}');
    const [p] = planAgent('cursor', dir);
    expect(p).toEqual({
      error: expect.stringMatching(/beforeShellExecution" is not a list.*nothing written/),
    });
  });

  it('--dry-run shows the diff and writes nothing; an unknown agent is a usage error', async () => {
    fs.mkdirSync(path.join(dir, '.gemini'));
    fs.writeFileSync(path.join(dir, '.gemini', 'settings.json'), '{\n  "theme": "dark"\n}\n');
    const r = await runCli(['init', '--agent', 'gemini', '--dry-run'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+++ .gemini/settings.json');
    expect(r.stdout).toMatch(/^\+.*toolgate hook --agent gemini-cli/m);
    expect(r.stdout).toContain('nothing written');
    expect(fs.readFileSync(path.join(dir, '.gemini', 'settings.json'), 'utf8')).toBe(
      '{\n  "theme": "dark"\n}\n',
    );
    expect(fs.existsSync(path.join(dir, '.toolgate'))).toBe(false);
    const bad = await runCli(['init', '--agent', 'vim'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/no such agent/);
  }, 120_000);
});
