import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/tree-snapshot.js';
import { claudeBinary, claudeBinaryIn, LATEST_CLAUDE_CACHE } from './claude-bin.js';
import { bash, session, versionOf } from './claude-session.js';

/**
 * Issue 13 item 4, with the real `claude` binary headless against a loopback Messages API: the
 * settings `toolgate init --claude --enforce` writes make every allowed Bash call run inside the
 * jail of its decision (the hook answers with updatedInput that runs `toolgate jail`):
 * - a line the classifier calls read-only that writes through a child (`git diff` running an
 *   external diff an earlier call configured) runs, fails on the read-only file system, and
 *   leaves the workspace unchanged;
 * - a call allowed by a rule gets the workspace writable, and nothing else: a write outside the
 *   workspace, into `.claude/settings.json` or into toolgate's own decision log fails, while a
 *   write inside the workspace lands; the log still verifies.
 * `toolgate` on PATH is a shim for this checkout's build.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const bases: string[] = [];
const hasBwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', 'true']).status === 0;

afterAll(() => {
  for (const base of bases) {
    // the warm hook processes the sessions started (their socket and cache are under base)
    for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      try {
        const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        const environ = fs.readFileSync(`/proc/${pid}/environ`, 'utf8');
        if (cmdline.includes(base) || (cmdline.includes(CLI) && environ.includes(base)))
          process.kill(Number(pid), 'SIGKILL');
      } catch {}
    }
    fs.rmSync(base, { recursive: true, force: true });
  }
});

function enforcedWorkspace() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-enforce-')));
  bases.push(base);
  const ws = path.join(base, 'workspace');
  const home = path.join(base, 'home');
  const bin = path.join(base, 'bin');
  // Outside /tmp: under the jail's private /tmp a write would vanish, which proves less.
  const outside = fs.realpathSync(
    fs.mkdtempSync(path.join(fs.existsSync('/var/tmp') ? '/var/tmp' : home, 'tg-e2e-outside-')),
  );
  bases.push(outside);
  for (const d of [ws, home, bin]) fs.mkdirSync(d);
  fs.writeFileSync(
    path.join(bin, 'toolgate'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
    { mode: 0o755 },
  );
  const env = {
    PATH: `${bin}:/usr/bin:/bin`,
    XDG_CACHE_HOME: path.join(base, 'cache'),
    XDG_CONFIG_HOME: path.join(home, '.config'),
  };
  execFileSync(process.execPath, [CLI, 'init', '--claude', '--enforce', '--dir', ws], {
    env: { ...process.env, HOME: home, ...env },
  });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: ws, stdio: 'ignore' });
  git('init', '-q', '.');
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'one');
  fs.writeFileSync(path.join(ws, 'a.txt'), 'two\n');
  return { base, ws, home, outside, env };
}

/** The hook appends to .toolgate/decisions.jsonl on every call: everything else must stay. */
const withoutLog = (tree: Record<string, string>) =>
  Object.fromEntries(Object.entries(tree).filter(([rel]) => !rel.startsWith('.toolgate')));

const binaries = [claudeBinary(), claudeBinaryIn(LATEST_CLAUDE_CACHE)].filter(
  (b, i, all): b is string => b !== undefined && all.indexOf(b) === i,
);

for (const claude of binaries) {
  const version = versionOf(claude);
  describe.skipIf(!hasBwrap)(`Claude Code ${version}: toolgate init --claude --enforce (issue 13)`, () => {
    it('init writes the enforcing hook', () => {
      if (!fs.existsSync(CLI)) throw new Error(`build first (npm run build): ${CLI} is missing`);
      const { ws } = enforcedWorkspace();
      const settings = fs.readFileSync(path.join(ws, '.claude', 'settings.json'), 'utf8');
      expect(settings).toContain('toolgate hook --warm --log .toolgate/decisions.jsonl --enforce');
    });

    it('a read-only-classified line that writes through a child runs in the read-only jail: it fails, the workspace is unchanged', async () => {
      const { ws, home, env } = enforcedWorkspace();
      // An earlier call (or the cloned repository) configured a diff driver that writes.
      const evil = path.join(ws, 'evil.sh');
      fs.writeFileSync(evil, '#!/bin/sh\necho pwned > pwned.txt && echo WROTE\n', { mode: 0o755 });
      fs.appendFileSync(path.join(ws, '.git', 'config'), `[diff]\n\texternal = ${evil}\n`);
      const before = withoutLog(snapshot(ws));
      const s = await session(claude, ws, home, [bash('git diff')], env);
      expect(s.run.code, s.run.stderr).toBe(0);
      const r = s.result(0);
      expect(r.text).not.toContain('WROTE');
      expect(r.text).toMatch(/Read-only file system/);
      expect(withoutLog(snapshot(ws))).toEqual(before);
    });

    it('a call allowed by a rule gets the workspace and nothing more: outside, .claude/settings.json and the log stay untouched', async () => {
      const { ws, home, outside, env } = enforcedWorkspace();
      // The user's own layer (trusted by place) allows the script; what it does is for the jail.
      fs.mkdirSync(path.join(home, '.config', 'toolgate'), { recursive: true });
      fs.writeFileSync(
        path.join(home, '.config', 'toolgate', 'policy.yaml'),
        'version: 1\nrules:\n  - allow: ["Bash(sh w.sh)"]\n',
      );
      const settings = path.join(ws, '.claude', 'settings.json');
      const settingsBefore = fs.readFileSync(settings, 'utf8');
      fs.writeFileSync(
        path.join(ws, 'w.sh'),
        [
          `{ echo x > ${outside}/f; } 2>/dev/null && echo "WROTE outside" || echo "held outside"`,
          `{ echo x >> .claude/settings.json; } 2>/dev/null && echo "WROTE settings" || echo "held settings"`,
          `{ echo x >> .toolgate/decisions.jsonl; } 2>/dev/null && echo "WROTE log" || echo "held log"`,
          'echo ok > made.txt && echo "made"',
        ].join('\n'),
      );
      const s = await session(claude, ws, home, [bash('sh w.sh')], env);
      expect(s.run.code, s.run.stderr).toBe(0);
      const r = s.result(0);
      for (const what of ['outside', 'settings', 'log']) expect(r.text).toContain(`held ${what}`);
      expect(r.text).not.toMatch(/WROTE/);
      expect(fs.readFileSync(path.join(ws, 'made.txt'), 'utf8')).toBe('ok\n');
      expect(fs.readdirSync(outside)).toEqual([]);
      expect(fs.readFileSync(settings, 'utf8')).toBe(settingsBefore);
      const verify = spawnSync(
        process.execPath,
        [CLI, 'verify', path.join(ws, '.toolgate', 'decisions.jsonl')],
        {
          encoding: 'utf8',
        },
      );
      expect(verify.status, verify.stdout + verify.stderr).toBe(0);
    });
  });
}
