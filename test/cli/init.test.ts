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

  it('refuses a directory that does not exist', async () => {
    const r = await runCli(['init', '--dir', path.join(base, 'nope')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/is not a directory/);
  });
});
