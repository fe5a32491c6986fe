import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-init-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let n = 0;
const project = () => {
  const dir = path.join(base, String(++n));
  fs.mkdirSync(dir);
  return dir;
};

describe('toolgate init', () => {
  it('writes a policy that loads, passes its own tests and lints clean', async () => {
    const dir = project();
    const r = await runCli(['init'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('wrote .toolgate/policy.yaml');
    const test = await runCli(['test', '.toolgate/policy.yaml'], { cwd: dir });
    expect(test.code, test.stdout + test.stderr).toBe(0);
    expect(test.stdout).toMatch(/4 passed/);
    const lint = await runCli(['lint', '.toolgate/policy.yaml'], { cwd: dir });
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
    // The project layer is what decisions now use, with the default beneath it.
    const check = await runCli(['check', '--tool', 'Read', '--input', '{"file_path":".env"}', '--json'], {
      cwd: dir,
    });
    expect(JSON.parse(check.stdout).behavior).toBe('deny');
  });

  it('never replaces an existing policy without --force', async () => {
    const dir = project();
    const file = path.join(dir, '.toolgate', 'policy.yaml');
    fs.mkdirSync(path.dirname(file));
    fs.writeFileSync(file, 'version: 1\n');
    const r = await runCli(['init'], { cwd: dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('exists; left as it is');
    expect(fs.readFileSync(file, 'utf8')).toBe('version: 1\n');
    const forced = await runCli(['init', '--force'], { cwd: dir });
    expect(forced.stdout).toContain('replaced');
    expect(fs.readFileSync(file, 'utf8')).toContain('extends: builtin:default');
  });

  it('--claude adds the hook to .claude/settings.json, keeps every other setting, and only once', async () => {
    const dir = project();
    const settings = path.join(dir, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings));
    const original = {
      permissions: { deny: ['Bash(curl *)'] },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'my-check' }] }] },
      model: 'opus',
    };
    fs.writeFileSync(settings, JSON.stringify(original));
    expect((await runCli(['init', '--claude'], { cwd: dir })).code).toBe(0);
    const after = JSON.parse(fs.readFileSync(settings, 'utf8'));
    expect(after.permissions).toEqual(original.permissions);
    expect(after.model).toBe('opus');
    const entry = {
      matcher: '*',
      hooks: [
        {
          type: 'command',
          command: 'toolgate hook --warm --log .toolgate/decisions.jsonl',
          onFailure: 'block',
        },
      ],
    };
    // onFailure "block": a hook that cannot start or times out blocks (issue 14 item 6)
    expect(after.hooks.PreToolUse).toEqual([original.hooks.PreToolUse[0], entry]);
    expect(after.hooks.PermissionRequest).toEqual([entry]);
    expect(fs.readFileSync(path.join(dir, '.toolgate', '.gitignore'), 'utf8')).toContain('decisions.jsonl');
    const again = await runCli(['init', '--claude'], { cwd: dir });
    expect(again.stdout).toContain('already runs toolgate hook');
    expect(JSON.parse(fs.readFileSync(settings, 'utf8'))).toEqual(after);
  });

  it('--claude --enforce writes the hook with --enforce (Bash calls then run in toolgate jail)', async () => {
    const dir = project();
    expect((await runCli(['init', '--claude', '--enforce'], { cwd: dir })).code).toBe(0);
    const after = JSON.parse(fs.readFileSync(path.join(dir, '.claude', 'settings.json'), 'utf8'));
    expect(after.hooks.PreToolUse[0].hooks[0].command).toBe(
      'toolgate hook --warm --log .toolgate/decisions.jsonl --enforce',
    );
    expect((await runCli(['init', '--enforce'], { cwd: project() })).code).toBe(2);
  });

  it('leaves settings that are not valid JSON alone and writes nothing at all', async () => {
    const dir = project();
    const settings = path.join(dir, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings));
    fs.writeFileSync(settings, '{"permissions": {');
    const r = await runCli(['init', '--claude'], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not valid JSON.*nothing written/);
    expect(fs.readFileSync(settings, 'utf8')).toBe('{"permissions": {');
    expect(fs.existsSync(path.join(dir, '.toolgate'))).toBe(false);
  });

  it('--claude upgrades a toolgate hook written before onFailure, and keeps an onFailure the user set', async () => {
    const dir = project();
    const settings = path.join(dir, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings));
    const old = { type: 'command', command: 'toolgate hook --log .toolgate/decisions.jsonl', timeout: 30 };
    fs.writeFileSync(
      settings,
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: '*', hooks: [old] }] }, env: { FOO: '1' } }),
    );
    const r = await runCli(['init', '--claude'], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'hooks.PreToolUse: onFailure: "block" added to the toolgate hook already there',
    );
    const after = JSON.parse(fs.readFileSync(settings, 'utf8'));
    // the same hook, its own command and timeout, now failing closed; no second toolgate hook
    expect(after.hooks.PreToolUse).toEqual([{ matcher: '*', hooks: [{ ...old, onFailure: 'block' }] }]);
    expect(after.hooks.PermissionRequest[0].hooks[0].onFailure).toBe('block');
    expect(after.env).toEqual({ FOO: '1' });
    const again = await runCli(['init', '--claude'], { cwd: dir });
    expect(again.stdout).toContain('already runs toolgate hook; left as it is');
    expect(JSON.parse(fs.readFileSync(settings, 'utf8'))).toEqual(after);

    // an onFailure the user chose is theirs: kept, and named
    const mine = { ...after, hooks: { ...after.hooks, PermissionRequest: [] } };
    mine.hooks.PreToolUse[0].hooks[0].onFailure = 'continue';
    fs.writeFileSync(settings, JSON.stringify(mine));
    const kept = await runCli(['init', '--claude'], { cwd: dir });
    expect(kept.stdout).toContain('onFailure: "continue" kept as you set it, though it does not fail closed');
    expect(JSON.parse(fs.readFileSync(settings, 'utf8')).hooks.PreToolUse[0].hooks[0].onFailure).toBe(
      'continue',
    );
  });

  it("carries Claude Code's permission rules into the policy: deny and ask at once, allow once trusted", async () => {
    const dir = project();
    fs.mkdirSync(path.join(dir, '.claude'));
    const env = { HOME: path.join(dir, 'home'), XDG_CONFIG_HOME: path.join(dir, 'config') };
    fs.writeFileSync(
      path.join(dir, '.claude', 'settings.json'),
      JSON.stringify({
        permissions: {
          deny: ['Bash(git log *)'],
          ask: ['Read(./docs/**)'],
          allow: ['Bash(make deploy)', 'Bash('],
        },
        model: 'opus',
      }),
    );
    fs.writeFileSync(
      path.join(dir, '.claude', 'settings.local.json'),
      JSON.stringify({ permissions: { deny: ['Bash(git status)'] } }),
    );
    const r = await runCli(['init', '--claude'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('carried over from .claude/settings.json: 1 deny, 1 ask, 1 allow');
    expect(r.stdout).toContain('1 left out');
    expect(r.stdout).toContain('carried over from .claude/settings.local.json: 1 deny, 0 ask, 0 allow');
    expect(r.stdout).toContain('wrote .toolgate/policy.local.yaml');
    const policy = fs.readFileSync(path.join(dir, '.toolgate', 'policy.yaml'), 'utf8');
    expect(policy).toMatch(/# left out: allow "Bash\(":/);
    // personal rules stay out of git, as Claude Code keeps settings.local.json out
    expect(fs.readFileSync(path.join(dir, '.toolgate', '.gitignore'), 'utf8').split('\n')).toContain(
      'policy.local.yaml',
    );
    const decide = async (tool: string, input: unknown) => {
      const c = await runCli(['check', '--tool', tool, '--input', JSON.stringify(input), '--json'], {
        cwd: dir,
        env,
      });
      return JSON.parse(c.stdout).behavior as string;
    };
    // the embedded default allows both; Claude Code's rules say otherwise, and now toolgate does
    expect(await decide('Bash', { command: 'git log --oneline' })).toBe('deny');
    expect(await decide('Read', { file_path: 'docs/notes.md' })).toBe('ask');
    expect(await decide('Bash', { command: 'git status' })).toBe('deny');
    // an allow from the repository waits for the person's trust
    expect(await decide('Bash', { command: 'make deploy' })).toBe('ask');
    const trust = await runCli(['trust'], { cwd: dir, env });
    expect(trust.code, trust.stderr).toBe(0);
    expect(await decide('Bash', { command: 'make deploy' })).toBe('allow');
    // the policy still passes its own tests and lints clean
    const test = await runCli(['test', '.toolgate/policy.yaml'], { cwd: dir, env });
    expect(test.code, test.stdout + test.stderr).toBe(0);
    const lint = await runCli(['lint', '.toolgate/policy.yaml'], { cwd: dir, env });
    expect(lint.code, lint.stdout + lint.stderr).toBe(0);
  });

  it('refuses a directory that does not exist', async () => {
    const r = await runCli(['init', '--dir', path.join(base, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a directory/);
  });
});
