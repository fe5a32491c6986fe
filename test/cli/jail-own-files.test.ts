import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { runCli, runProcess } from '../helpers/cli.js';
import { runMain } from '../helpers/main-in-process.js';
import { snapshot } from '../helpers/tree-snapshot.js';
import { makeWorld, type World } from '../policy/helpers/world.js';

/**
 * Issue #13: toolgate's own files stay read-only inside the jail even where they sit inside a
 * directory the call may write (a workspace-write profile): the policy files it read, the
 * decision log with its checkpoint and lock (held by their directory, since toolgate renames
 * files there while the call runs), the signing key, `.toolgate/`. Through the real `toolgate
 * jail` and `toolgate exec`, in real bubblewrap, with a script the decision cannot see into
 * (`sh w.sh`, allowed by a rule: a workspace-write profile). Before: every write landed.
 */
const probe = await probeBwrap();

let w: World;
let policy: string;
let log: string;
let key: string;
beforeEach(() => {
  w = makeWorld('toolgate-jail-own-');
  policy = w.file(
    'policy.yaml',
    'version: 1\nsandbox: { os: required }\nrules:\n  - allow: ["Bash(sh w.sh)"]\n',
  );
  w.file('.toolgate/policy.local.yaml', 'version: 1\n');
  log = w.at('logs/decisions.jsonl');
  key = w.at('keys/log.pem');
  fs.mkdirSync(path.dirname(key));
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  fs.writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
});
afterEach(() => w.cleanup());

const env = () => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: w.home,
  TOOLGATE_MANAGED_POLICY: path.join(w.base, 'no-managed-policy.yaml'),
  XDG_CONFIG_HOME: path.join(w.home, '.config'),
  XDG_CACHE_HOME: path.join(w.base, 'cache'),
});

/** Each write reports itself; a jail that holds prints only "held ...". */
const WRITES = [
  'policy.yaml',
  'logs/decisions.jsonl',
  'logs/decisions.jsonl.checkpoint',
  'logs/decisions.jsonl.lock',
  'keys/log.pem',
  '.toolgate/policy.local.yaml',
];
const SCRIPT = `${WRITES.map((f) => `{ echo x >> ${f}; } 2>/dev/null && echo "WROTE ${f}" || echo "held ${f}"`).join('\n')}\nrm -f policy.yaml 2>/dev/null && echo "REMOVED policy.yaml"\nmv logs gone 2>/dev/null && echo "MOVED logs"\necho ok > made.txt\n`;

describe.skipIf(!probe.available)(`toolgate's own files in the jail (${probe.reason ?? probe.path})`, () => {
  it('toolgate jail: an allowed write-profile call cannot write the policy, the log, its checkpoint and lock, or the key', async () => {
    w.file('w.sh', SCRIPT);
    // The hook has written the log before the agent runs the jail.
    w.file('logs/decisions.jsonl', '');
    const before = snapshot(w.ws);
    const r = await runMain(['jail', '--policy', policy, '--log', log, '--log-key', key, '--', 'sh w.sh'], {
      cwd: w.ws,
      env: env(),
    });
    expect(r.stderr).not.toMatch(/denied/);
    expect(r.code, r.stderr).toBe(0);
    for (const f of WRITES) expect(r.stdout).toContain(`held ${f}`);
    expect(r.stdout).not.toMatch(/WROTE|REMOVED|MOVED/);
    // Ordinary files stay writable: the call got the workspace.
    expect(fs.readFileSync(w.at('made.txt'), 'utf8')).toBe('ok\n');
    fs.rmSync(w.at('made.txt'));
    expect(snapshot(w.ws)).toEqual(before);
  });

  it("toolgate jail: the task's line, sh -c 'echo x >> .toolgate/policy.yaml', fails (asked, so it runs in the approved jail)", async () => {
    w.file('.toolgate/policy.yaml', 'version: 1\n');
    const r = await runMain(['jail', '--policy', policy, '--', "sh -c 'echo x >> .toolgate/policy.yaml'"], {
      cwd: w.ws,
      env: env(),
    });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/Read-only file system/);
    expect(fs.readFileSync(w.at('.toolgate/policy.yaml'), 'utf8')).toBe('version: 1\n');
  });

  it('refuses (126) a write-profile call when the log sits at the top of a writable root: its directory cannot be held', async () => {
    w.file('w.sh', 'echo ok > made.txt\n');
    const r = await runMain(['jail', '--policy', policy, '--log', w.at('top.jsonl'), '--', 'sh w.sh'], {
      cwd: w.ws,
      env: env(),
    });
    expect(r.code).toBe(126);
    expect(r.stderr).toMatch(/the directory of the decision log.*toolgate's own/);
    expect(fs.existsSync(w.at('made.txt'))).toBe(false);
  });

  it('toolgate exec: the same call under --log and --log-key leaves the policy and the log intact; the log verifies', async () => {
    w.file('w.sh', SCRIPT);
    const call = { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'sh w.sh' } };
    const r = await runCli(['exec', '--policy', policy, '--log', log, '--log-key', key, '--cwd', w.ws], {
      cwd: w.ws,
      env: env(),
      stdin: `${JSON.stringify(call)}\n`,
    });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(r.stdout.trim()) as { content: unknown; is_error?: boolean };
    const text = JSON.stringify(result.content);
    expect(result.is_error, text).toBeUndefined();
    for (const f of WRITES) expect(text).toContain(`held ${f}`);
    expect(text).not.toMatch(/WROTE|REMOVED|MOVED/);
    expect(fs.readFileSync(policy, 'utf8')).not.toContain('x\n');
    const verify = await runCli(['verify', log], { cwd: w.ws, env: env() });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });

  it('hook --enforce passes its --log and --log-key to the jail, which holds them: the agent running the rewrite cannot touch the log', async () => {
    w.file('w.sh', SCRIPT);
    const hook = await runCli(['hook', '--enforce', '--policy', policy, '--log', log, '--log-key', key], {
      cwd: w.ws,
      env: env(),
      stdin: JSON.stringify({
        session_id: 's',
        cwd: w.ws,
        permission_mode: 'default',
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: { command: 'sh w.sh' },
        tool_use_id: 't',
      }),
    });
    expect(hook.code, hook.stderr).toBe(0);
    const answer = (JSON.parse(hook.stdout) as { hookSpecificOutput: { updatedInput?: { command: string } } })
      .hookSpecificOutput;
    const command = answer.updatedInput?.command ?? '';
    expect(command).toContain(`'--log' '${log}' '--log-key' '${key}'`);
    const ran = await runProcess('bash', ['-c', command], { cwd: w.ws, env: { ...process.env, ...env() } });
    expect(ran.code, ran.stderr).toBe(0);
    for (const f of WRITES) expect(ran.stdout).toContain(`held ${f}`);
    expect(ran.stdout).not.toMatch(/WROTE|REMOVED|MOVED/);
    const verify = await runCli(['verify', log], { cwd: w.ws, env: env() });
    expect(verify.code, verify.stdout + verify.stderr).toBe(0);
  });
});
