import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/tree-snapshot.js';
import { agentBinary } from './agent-bins.js';
import { codexSession } from './codex-session.js';
import { geminiSession } from './gemini-session.js';
import type { ScriptedCall } from './model-servers.js';

/**
 * Issue 17 item 2, with the real Gemini CLI and Codex CLI headless against loopback model APIs:
 * what `toolgate init --agent gemini|codex --enforce` writes makes an allowed shell call run
 * inside the jail of its decision (Gemini: hookSpecificOutput.tool_input; Codex: allow +
 * updatedInput), as claude-enforce.e2e.test.ts shows for Claude Code:
 * - a line the classifier calls read-only that writes through a child (`git diff --no-ext-diff`
 *   running the textconv driver the repository configured; Gemini CLI runs git with
 *   diff.external and core.fsmonitor emptied, so neither an external diff as for Claude Code
 *   nor a monitor would run) fails on the read-only file system; without --enforce the same
 *   session writes (so the jail, not the scripting, is what holds);
 * - a call allowed by a rule gets the workspace writable and nothing else: a write outside it
 *   or into toolgate's decision log fails, one inside lands, and the log verifies.
 * `toolgate` on PATH is a shim for this checkout's build.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const hasBwrap = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', 'true']).status === 0;
const bases: string[] = [];
afterAll(() => {
  for (const b of bases) fs.rmSync(b, { recursive: true, force: true });
});

interface Agent {
  readonly name: 'gemini' | 'codex';
  readonly binary: string | undefined;
  /** The tool call that runs `command` in the agent's shell. */
  readonly shell: (command: string) => ScriptedCall;
  readonly run: (
    ws: string,
    home: string,
    calls: ScriptedCall[],
    env: Record<string, string>,
  ) => Promise<string[]>;
}

const AGENTS: Agent[] = [
  {
    name: 'gemini',
    binary: agentBinary('gemini').path,
    shell: (command) => ({ name: 'run_shell_command', args: { command } }),
    run: async (ws, home, calls, env) => {
      const s = await geminiSession(agentBinary('gemini').path!, ws, home, calls, { env });
      expect(s.result.code, s.result.stderr.slice(-2000)).toBe(0);
      return s.told;
    },
  },
  {
    name: 'codex',
    binary: agentBinary('codex').path,
    shell: (cmd) => ({ name: 'exec_command', args: { cmd } }),
    run: async (ws, home, calls, env) => {
      const s = await codexSession(agentBinary('codex').path!, ws, home, calls, { env });
      expect(s.result.code, s.result.stderr.slice(-2000)).toBe(0);
      return s.told;
    },
  },
];

/** A git workspace whose hook settings are what `toolgate init --agent NAME [--enforce]` wrote. */
function workspace(agent: Agent['name'], enforce: boolean) {
  // not under /tmp: codex refuses to place its helper binaries there, and under the jail's
  // private /tmp a write outside would vanish, which proves less
  const base = fs.realpathSync(
    fs.mkdtempSync(path.join(os.homedir(), '.cache', `toolgate-e2e-${agent}-jail-`)),
  );
  bases.push(base);
  const ws = path.join(base, 'workspace');
  const home = path.join(base, 'home');
  const bin = path.join(base, 'bin');
  const outside = path.join(base, 'outside');
  for (const d of [ws, home, bin, outside]) fs.mkdirSync(d);
  fs.writeFileSync(
    path.join(bin, 'toolgate'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`,
    { mode: 0o755 },
  );
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    CODEX_HOME: home,
    XDG_CACHE_HOME: path.join(base, 'cache'),
    TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed.yaml'),
  };
  execFileSync(
    process.execPath,
    [CLI, 'init', '--agent', agent, ...(enforce ? ['--enforce'] : []), '--dir', ws],
    { env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), ...env } },
  );
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd: ws, stdio: 'ignore' });
  git('init', '-q', '.');
  fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
  git('add', 'a.txt');
  git('commit', '-qm', 'one');
  fs.writeFileSync(path.join(ws, 'a.txt'), 'two\n');
  // the repository configured a diff text converter that writes (git diff runs it)
  const evil = path.join(ws, 'evil.sh');
  fs.writeFileSync(evil, '#!/bin/sh\n{ echo pwned > pwned.txt && echo WROTE >&2; }\ncat "$1"\n', {
    mode: 0o755,
  });
  fs.writeFileSync(path.join(ws, '.gitattributes'), 'a.txt diff=tc\n');
  fs.appendFileSync(path.join(ws, '.git', 'config'), `[diff "tc"]\n\ttextconv = ${evil}\n`);
  return { ws, home, outside, env };
}

/** The hook appends to .toolgate/decisions.jsonl on every call: everything else must stay. */
const withoutLog = (tree: Record<string, string>) =>
  Object.fromEntries(Object.entries(tree).filter(([rel]) => !rel.startsWith('.toolgate')));

for (const agent of AGENTS) {
  describe.skipIf(agent.binary === undefined || !hasBwrap)(
    `${agent.name}: toolgate init --agent ${agent.name} --enforce`,
    () => {
      it('a read-only-classified line that writes through a child fails in the read-only jail; unjailed it writes', async () => {
        const jailed = workspace(agent.name, true);
        const before = withoutLog(snapshot(jailed.ws));
        const told = await agent.run(
          jailed.ws,
          jailed.home,
          [agent.shell('git diff --no-ext-diff')],
          jailed.env,
        );
        expect(told.join('\n')).toMatch(/Read-only file system/);
        expect(told.join('\n')).not.toMatch(/WROTE/);
        expect(withoutLog(snapshot(jailed.ws))).toEqual(before);

        const open = workspace(agent.name, false);
        await agent.run(open.ws, open.home, [agent.shell('git diff --no-ext-diff')], open.env);
        expect(fs.existsSync(path.join(open.ws, 'pwned.txt'))).toBe(true);
      });

      it('a call allowed by a rule gets the workspace and nothing more; the log verifies', async () => {
        const { ws, home, outside, env } = workspace(agent.name, true);
        // the user's own layer (trusted by place) allows the script; what it does is for the jail
        fs.mkdirSync(path.join(home, '.config', 'toolgate'), { recursive: true });
        fs.writeFileSync(
          path.join(home, '.config', 'toolgate', 'policy.yaml'),
          'version: 1\nrules:\n  - allow: ["Bash(sh w.sh)"]\n',
        );
        fs.writeFileSync(
          path.join(ws, 'w.sh'),
          [
            `{ echo x > ${outside}/f; } 2>/dev/null && echo "WROTE outside" || echo "held outside"`,
            `{ echo x >> .toolgate/decisions.jsonl; } 2>/dev/null && echo "WROTE log" || echo "held log"`,
            'echo ok > made.txt && echo "made"',
          ].join('\n'),
        );
        const told = (
          await agent.run(ws, home, [agent.shell('sh w.sh')], {
            ...env,
            XDG_CONFIG_HOME: path.join(home, '.config'),
          })
        ).join('\n');
        expect(told).toContain('held outside');
        expect(told).toContain('held log');
        expect(told).not.toMatch(/WROTE/);
        expect(fs.readFileSync(path.join(ws, 'made.txt'), 'utf8')).toBe('ok\n');
        expect(fs.readdirSync(outside)).toEqual([]);
        const log = path.join(ws, '.toolgate', 'decisions.jsonl');
        const verify = spawnSync(process.execPath, [CLI, 'verify', log], { encoding: 'utf8' });
        expect(verify.status, verify.stdout + verify.stderr).toBe(0);
      });
    },
  );
}
