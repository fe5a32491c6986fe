import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * `toolgate init --agent gemini|codex|cursor --enforce` (#17 Build 2): the hook of each agent
 * that can run a rewritten call runs with --enforce (Gemini CLI and Codex are seen running the
 * jailed command in test/e2e/agents-enforce.e2e.test.ts); one already there is given it, never
 * left looking enforced; an agent not known to run a rewritten call is refused. Through the CLI.
 */
let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-init-enforce-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = () => ({ CODEX_HOME: path.join(dir, 'codex-home'), HOME: path.join(dir, 'home') });
const init = (...args: string[]) => runCli(['init', ...args, '--dir', dir], { cwd: dir, env: env() });
const json = (f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
/** Every hook command in a parsed hook file. */
const commands = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.flatMap(commands)
    : v !== null && typeof v === 'object'
      ? Object.entries(v).flatMap(([k, x]) => (k === 'command' && typeof x === 'string' ? [x] : commands(x)))
      : [];

describe('init --agent NAME --enforce', () => {
  it('writes every hook of gemini, codex and cursor with --enforce, and cursor on each event that can stop a call', async () => {
    for (const agent of ['gemini', 'codex', 'cursor']) {
      const r = await init('--agent', agent, '--enforce');
      expect(r.code, `${agent}: ${r.stderr}`).toBe(0);
    }
    const gemini = json('.gemini/settings.json');
    const codex = json('codex-home/hooks.json');
    const cursor = json('.cursor/hooks.json');
    expect(Object.keys(cursor.hooks)).toEqual(['beforeShellExecution', 'preToolUse', 'beforeMCPExecution']);
    for (const entries of Object.values(cursor.hooks) as unknown[][])
      expect(entries).toEqual([
        {
          command: 'toolgate hook --agent cursor --log .toolgate/decisions.jsonl --enforce',
          failClosed: true,
        },
      ]);
    expect(Object.keys(codex.hooks)).toEqual(['PreToolUse', 'PermissionRequest']);
    const all = [...commands(gemini), ...commands(codex), ...commands(cursor)];
    expect(all).toHaveLength(6);
    for (const c of all)
      expect(c).toMatch(/^toolgate hook --agent (gemini-cli|codex|cursor) --log \S+ --enforce$/);
  }, 120_000);

  it('gives a toolgate hook already there --enforce, once; one it cannot safely add to is refused and nothing written', async () => {
    expect((await init('--agent', 'gemini')).code).toBe(0);
    expect(commands(json('.gemini/settings.json'))).toEqual([
      'toolgate hook --agent gemini-cli --log .toolgate/decisions.jsonl',
    ]);
    const r = await init('--agent', 'gemini', '--enforce');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/hooks\.BeforeTool: --enforce added to the toolgate hook already there/);
    expect(commands(json('.gemini/settings.json'))).toEqual([
      'toolgate hook --agent gemini-cli --log .toolgate/decisions.jsonl --enforce',
    ]);
    expect((await init('--agent', 'gemini', '--enforce')).stdout).toMatch(
      /already runs toolgate hook; left as it is/,
    );

    // a command with a redirection: appending would hand --enforce to the shell, not to toolgate
    const file = path.join(dir, '.cursor', 'hooks.json');
    fs.mkdirSync(path.dirname(file));
    const text = JSON.stringify({
      version: 1,
      hooks: {
        beforeShellExecution: [{ command: 'toolgate hook --agent cursor 2>>hook.err', failClosed: true }],
      },
    });
    fs.writeFileSync(file, text);
    const refused = await init('--agent', 'cursor', '--enforce');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /runs "toolgate hook --agent cursor 2>>hook\.err": --enforce cannot be added/,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
  }, 120_000);

  it('refuses --enforce for an agent not known to run a rewritten call, and without an agent', async () => {
    for (const agent of ['copilot', 'opencode']) {
      const r = await init('--agent', agent, '--enforce');
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(new RegExp(`${agent} is not known to run a rewritten call`));
    }
    expect((await init('--enforce')).code).toBe(2);
    expect(fs.existsSync(path.join(dir, '.toolgate'))).toBe(false);
  }, 120_000);
});
