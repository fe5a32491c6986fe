import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { runCli, runProcess } from '../helpers/cli.js';
import { makeWorld, type World } from '../policy/helpers/world.js';

/**
 * `toolgate hook --enforce` (issue #13 item 4): an allowed or asked Bash call comes back with
 * `updatedInput` that runs it inside `toolgate jail`; running that rewritten command, as the
 * agent would, decides the line again and holds it in its jail. Hostile lines run only inside
 * bwrap (capabilities dropped, no network) in a throwaway tree.
 */
const probe = await probeBwrap();

let w: World;
let policy: string;
beforeEach(() => {
  w = makeWorld('toolgate-enforce-');
  policy = path.join(w.base, 'policy.yaml');
  fs.writeFileSync(policy, 'version: 1\nsandbox: { os: required }\nrules:\n  - deny: ["Read(**/.env)"]\n');
});
afterEach(() => w.cleanup());

const env = () => ({
  HOME: w.home,
  TOOLGATE_MANAGED_POLICY: path.join(w.base, 'no-managed-policy.yaml'),
  XDG_CONFIG_HOME: path.join(w.home, '.config'),
});

interface Answer {
  permissionDecision: string;
  permissionDecisionReason: string;
  updatedInput?: { command: string; description?: string };
}

async function hook(command: string, extra: { mode?: string; env?: Record<string, string> } = {}) {
  const r = await runCli(['hook', '--enforce', '--policy', policy], {
    cwd: w.ws,
    env: { ...env(), ...extra.env },
    stdin: JSON.stringify({
      session_id: 's',
      cwd: w.ws,
      permission_mode: extra.mode ?? 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command, description: 'd' },
      tool_use_id: 't',
    }),
  });
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { hookSpecificOutput: Answer }).hookSpecificOutput;
}

/** Runs the rewritten command as the agent's shell would. */
function agentRuns(command: string) {
  return runProcess('bash', ['-c', command], { cwd: w.ws, env: { ...process.env, ...env() } });
}

describe('toolgate hook --enforce', () => {
  it('leaves a deny alone: no rewrite', async () => {
    const a = await hook('cat .env');
    expect(a.permissionDecision).toBe('deny');
    expect(a.updatedInput).toBeUndefined();
  });

  it('asks instead of allowing when bubblewrap cannot run: never an unjailed allow', async () => {
    const a = await hook('ls', { env: { PATH: path.join(w.base, 'empty-bin') } });
    expect(a.permissionDecision).toBe('ask');
    expect(a.permissionDecisionReason).toMatch(/cannot run in the jail/);
    expect(a.updatedInput).toBeUndefined();
  });

  it.skipIf(!probe.available)(
    'rewrites an allowed read-only line; run as the agent would, the write it hides fails on the read-only file system',
    async () => {
      w.file('a.txt', 'one\n');
      const git = (...args: string[]) =>
        spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: w.ws });
      git('init', '-q', '.');
      git('add', 'a.txt');
      git('commit', '-qm', 'one');
      w.file('a.txt', 'two\n');
      // Predicted read-only, but the repository (an earlier call, a clone) configured a diff
      // driver that writes.
      w.file('evil.sh', '#!/bin/sh\necho pwned > pwned.txt && echo WROTE\n');
      fs.chmodSync(w.at('evil.sh'), 0o755);
      fs.appendFileSync(w.at('.git/config'), `[diff]\n\texternal = ${w.at('evil.sh')}\n`);
      const before = fs.readdirSync(w.ws).sort();
      const a = await hook('git diff');
      expect(a.permissionDecision).toBe('allow');
      expect(a.updatedInput?.description).toBe('d');
      expect(a.updatedInput?.command).toMatch(/'jail' '--policy' .* '--' 'git diff'$/);
      const r = await agentRuns(a.updatedInput!.command);
      expect(r.stdout + r.stderr).not.toContain('WROTE');
      expect(r.stdout + r.stderr).toMatch(/Read-only file system/);
      expect(fs.existsSync(w.at('pwned.txt'))).toBe(false);
      expect(fs.readdirSync(w.ws).sort()).toEqual(before);
    },
  );

  it.skipIf(!probe.available)(
    'an asked line, once approved, runs in the workspace jail: writes land, protected paths do not',
    async () => {
      const a = await hook("echo made > made.txt; echo '{}' > .mcp.json || echo blocked");
      expect(a.permissionDecision).toBe('ask');
      const r = await agentRuns(a.updatedInput!.command);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('blocked');
      expect(fs.readFileSync(w.at('made.txt'), 'utf8')).toBe('made\n');
      expect(fs.existsSync(w.at('.mcp.json'))).toBe(false);
    },
  );
});
