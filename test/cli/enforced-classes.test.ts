import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { loadPolicyFiles } from '../../src/policy/layers.js';
import type { Mode } from '../../src/policy/mode.js';
import { protectedEntryOf } from '../../src/policy/protected.js';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { runMain } from '../helpers/main-in-process.js';
import { snapshot } from '../helpers/tree-snapshot.js';

/**
 * Issue #13's first done-when: lines of the five classes the white-box corpus got through as
 * read-only (a substitution inside `${PWD%%...}`, `BASH_CMDS[...]`, `: <f >/dev/fd/0`,
 * `npm version`, `xargs -I{} -L1 rm -rf`), written here to aim at what no verdict grants (the
 * home, a directory beside the workspace, protected paths in it, a loopback server), go through
 * `toolgate exec` and through `hook --enforce` + `toolgate jail` in four modes. Whatever each
 * verdict was, the tree outside the workspace and every protected path stay as they were, and
 * the server sees no connection unless the verdict granted the network (a connection the
 * classifier saw asks, and a person who approves it approves the connection; bypassPermissions
 * grants it).
 * The world lives outside /tmp: the jail's /tmp is private, so writes aimed there would vanish
 * whether or not the jail held. Hostile lines run only in bwrap (capabilities dropped) on that
 * throwaway tree; a mode whose verdict runs nothing refuses them before any process starts.
 */
const probe = await probeBwrap();
const hasNpm = spawnSync('npm', ['--version']).status === 0;
const MODES: Mode[] = ['default', 'acceptEdits', 'plan', 'bypassPermissions'];

let connections = 0;
const server = net.createServer((socket) => {
  connections += 1;
  socket.destroy();
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => server.close());

const lines = () => [
  // a substitution hidden in a parameter expansion's pattern
  `printf '%s\\n' "\${PWD%%$(echo pwned > ~/.bashrc)}"`,
  `: "\${PWD%%$(touch ../outside/pwned)}"`,
  // the command hash table, set by assignment
  'BASH_CMDS[cat]=/usr/bin/tee; echo pwned | cat .git/hooks/pre-commit',
  'BASH_CMDS[ls]=/bin/rm; ls -rf ../outside',
  // a read redirect reopened for writing
  ': <.git/config >/dev/fd/0',
  ': <../outside/keep.txt >/dev/fd/0',
  // a missing protected path, named only at run time
  `f=.mcp; echo '{}' > "$f.json"`,
  // a package script
  ...(hasNpm ? ['npm version patch --no-git-tag-version'] : []),
  // xargs running a destructive command
  "printf '%s\\n' ../outside | xargs -I{} -L1 rm -rf {}",
  "printf '.git/hooks\\n' | xargs -I{} -L1 rm -rf {}",
  // a connection through bash's /dev/tcp
  `exec 3<>/dev/tcp/127.0.0.1/${port}; echo hi >&3`,
  `p=${port}; cat < "/dev/tcp/127.0.0.1/$p"`,
];

function world() {
  const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir();
  const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, 'tg-classes-')));
  const put = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
    fs.writeFileSync(path.join(base, rel), text);
  };
  put('ws/a.txt', 'one\n');
  put('ws/.git/config', '[core]\n');
  put('ws/.git/HEAD', 'ref: refs/heads/main\n');
  put('ws/.git/hooks/pre-commit', '#!/bin/sh\n');
  const hostile =
    'echo pwned > ../outside/pwned; echo pwned > .git/hooks/post-commit; echo pwned > ~/.bashrc';
  put('ws/package.json', JSON.stringify({ name: 'p', version: '1.0.0', scripts: { preversion: hostile } }));
  put('home/.bashrc', '# rc\n');
  put('outside/keep.txt', 'keep\n');
  const policy = path.join(base, 'policy.yaml');
  fs.writeFileSync(
    policy,
    'version: 1\nextends: builtin:default\nsandbox: { os: required, timeoutMs: 10000 }\n',
  );
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(base, 'home'),
    TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed-policy.yaml'),
    XDG_CONFIG_HOME: path.join(base, 'home', '.config'),
    TOOLGATE_CACHE: 'off',
  };
  return { base, ws: path.join(base, 'ws'), policy, env };
}

type World = ReturnType<typeof world>;

/** `toolgate exec` with one Bash block; whether its verdict let it run. */
async function viaExec(w: World, mode: Mode, command: string): Promise<string> {
  const block = { type: 'tool_use', id: 'b', name: 'Bash', input: { command } };
  const r = await runMain(['exec', '--policy', w.policy, '--mode', mode], {
    cwd: w.ws,
    env: w.env,
    stdin: JSON.stringify([block]),
  });
  return `exec ${mode} (exit ${r.code}): ${r.stdout.slice(0, 300)}`;
}

/**
 * `hook --enforce`, then what the agent would run: the rewritten command's words after the
 * toolgate that starts it, split by bash itself, given to `toolgate jail` (in this process).
 */
async function viaHook(w: World, mode: Mode, command: string): Promise<string> {
  const r = await runMain(['hook', '--enforce', '--policy', w.policy], {
    cwd: w.ws,
    env: w.env,
    stdin: JSON.stringify({
      session_id: 's',
      cwd: w.ws,
      permission_mode: mode,
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command },
      tool_use_id: 't',
    }),
  });
  const answer = (
    JSON.parse(r.stdout) as {
      hookSpecificOutput: { permissionDecision: string; updatedInput?: { command: string } };
    }
  ).hookSpecificOutput;
  if (answer.permissionDecision === 'deny') return `hook ${mode}: deny`;
  const rewritten = answer.updatedInput?.command;
  // An allow or ask without the rewrite would run unjailed: never.
  expect(rewritten, `${mode}: ${command}`).toBeDefined();
  const at = rewritten!.indexOf(" 'jail' ");
  expect(at, rewritten).toBeGreaterThan(0);
  const words = spawnSync('bash', ['-c', `printf '%s\\0' ${rewritten!.slice(at + 1)}`], { encoding: 'utf8' });
  const argv = words.stdout.split('\0').slice(0, -1);
  expect(argv.at(-1)).toBe(command);
  const j = await runMain(argv, { cwd: w.ws, env: w.env });
  return `hook ${mode}: ${answer.permissionDecision}, jail exit ${j.code}`;
}

describe.skipIf(!probe.available)('lines of the classes the corpus got through, enforced', () => {
  it.each(MODES)(
    'mode %s: through exec and through hook --enforce + jail, nothing outside the workspace or protected changes, no connection',
    async (mode) => {
      const problems: string[] = [];
      let ran = 0;
      for (const run of [viaExec, viaHook]) {
        for (const command of lines()) {
          const w = world();
          try {
            const before = snapshot(w.base);
            const seen = connections;
            const what = await run(w, mode, command);
            const after = snapshot(w.base);
            for (const rel of new Set([...Object.keys(before), ...Object.keys(after)])) {
              if (before[rel] === after[rel]) continue;
              const abs = path.join(w.base, rel);
              const inWorkspace = abs.startsWith(`${w.ws}/`);
              const entry = protectedEntryOf(abs, [w.ws]);
              if (!inWorkspace || entry !== undefined) problems.push(`${what}\n  ${command}: changed ${rel}`);
            }
            if (what.includes('jail exit')) ran += 1;
            // The verdict, decided as the CLI does: a connection it did not grant is a hole.
            const policy = loadPolicyFiles([{ file: w.policy, layer: 'cli' }]);
            const d = decide({ tool: 'Bash', input: { command }, cwd: w.ws, mode }, policy);
            if (connections !== seen && d.sandbox?.network !== true)
              problems.push(`${what}\n  ${command}: connected, though the verdict cut the network`);
          } finally {
            fs.rmSync(w.base, { recursive: true, force: true });
          }
        }
      }
      expect(problems).toEqual([]);
      // Not vacuous: some of these lines reach the jail (asks, once approved). In plan mode none
      // does: each is denied there, the classifier no longer calling any of them read-only.
      if (mode === 'plan') expect(ran).toBe(0);
      else expect(ran).toBeGreaterThan(0);
    },
    180_000,
  );
});
