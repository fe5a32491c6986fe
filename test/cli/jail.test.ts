import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { runMain } from '../helpers/main-in-process.js';
import { snapshot } from '../helpers/tree-snapshot.js';
import { makeWorld, type World } from '../policy/helpers/world.js';

/**
 * `toolgate jail -- COMMAND` (issue #13 item 3): decided again here, run in the jail of that
 * decision, output and exit status passed through; a deny runs nothing and exits 126.
 * Hostile lines run only inside bwrap (capabilities dropped, no network), in a throwaway tree.
 */
const probe = await probeBwrap();
const hasGit = spawnSync('git', ['--version']).status === 0;

let w: World;
beforeEach(() => {
  w = makeWorld('toolgate-jail-');
});
afterEach(() => w.cleanup());

async function jail(command: string, opts: { policy?: string; mode?: string } = {}) {
  const policy = path.join(w.base, 'policy.yaml');
  fs.writeFileSync(
    policy,
    opts.policy ?? 'version: 1\nsandbox: { os: required }\nrules:\n  - deny: ["Read(**/.env)"]\n',
  );
  return runMain(['jail', '--policy', policy, ...(opts.mode ? ['--mode', opts.mode] : []), '--', command], {
    cwd: w.ws,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: w.home,
      TOOLGATE_MANAGED_POLICY: path.join(w.base, 'no-managed-policy.yaml'),
      XDG_CONFIG_HOME: path.join(w.home, '.config'),
    },
  });
}

describe('toolgate jail', () => {
  it('refuses a denied line with exit 126 and the reason; nothing runs', async () => {
    const r = await jail('cat .env; touch ran');
    expect(r.code).toBe(126);
    expect(r.stderr).toMatch(/^toolgate jail: denied: .*\.env/);
    expect(fs.existsSync(w.at('ran'))).toBe(false);
  });

  it('refuses when the policy is broken: nothing is allowed', async () => {
    const r = await jail('echo hi', { policy: 'version: 1\nrules: [[[' });
    expect(r.code).toBe(126);
    expect(r.stdout).toBe('');
  });

  it.skipIf(!probe.available)('passes output, stderr and the exit status through as bash would', async () => {
    w.file('a.txt', 'one\n');
    const r = await jail("cat a.txt; echo 'to stderr' >&2; printf '%s\\n' \"$PWD\"; exit 3");
    expect(r.code).toBe(3);
    expect(r.stdout).toBe(`one\n${w.ws}\n`);
    expect(r.stderr).toBe('to stderr\n');
  });

  it.skipIf(!probe.available)(
    'runs an asked line in the approved jail: the workspace is writable, protected paths are not',
    async () => {
      const r = await jail('echo new > made.txt; echo evil > .mcp.json || echo blocked');
      expect(r.code).toBe(0);
      expect(fs.readFileSync(w.at('made.txt'), 'utf8')).toBe('new\n');
      expect(r.stdout).toContain('blocked');
      expect(fs.existsSync(w.at('.mcp.json'))).toBe(false);
    },
  );

  it.skipIf(!probe.available || !hasGit)(
    'a line allowed as read-only that would write (git diff running a configured external diff) fails on the read-only file system; the workspace is unchanged',
    async () => {
      w.file('a.txt', 'one\n');
      const git = (...args: string[]) =>
        spawnSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: w.ws });
      git('init', '-q', '.');
      git('add', 'a.txt');
      git('commit', '-qm', 'one');
      w.file('a.txt', 'two\n');
      // An earlier call (or a cloned repository) configured a diff driver that writes.
      w.file('evil.sh', '#!/bin/sh\necho pwned > pwned.txt && echo WROTE\n');
      fs.chmodSync(w.at('evil.sh'), 0o755);
      fs.appendFileSync(w.at('.git/config'), `[diff]\n\texternal = ${w.at('evil.sh')}\n`);
      const before = snapshot(w.ws);
      const r = await jail('git diff');
      expect(r.stdout + r.stderr).not.toContain('WROTE');
      expect(r.stdout + r.stderr).toMatch(/Read-only file system/);
      expect(snapshot(w.ws)).toEqual(before);
    },
  );
});
