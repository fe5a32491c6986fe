import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli.js';
import { agentBinary } from './agent-bins.js';
import { type ScriptedCall, startResponsesApi } from './model-servers.js';

/**
 * The real Codex CLI (0.171.0, from npm), `codex exec` headless, against a loopback Responses API
 * (a custom model provider whose base_url is on 127.0.0.1) that answers with scripted
 * exec_command calls, with `toolgate hook --agent codex` as its PreToolUse hook. What must hold:
 * denied calls never run, allowed ones do, a write the policy does not name is not allowed
 * although Codex reports bypassPermissions, toolgate's reason reaches the model, and a toolgate
 * that cannot decide (a broken policy: exit 2) blocks the call.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const codex = agentBinary('codex');
// not under /tmp: codex refuses to place its helper binaries there
const base = fs.mkdtempSync(path.join(os.homedir(), '.cache', 'toolgate-codex-e2e-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

async function run(name: string, calls: ScriptedCall[], policy: string) {
  const ws = path.join(base, name, 'workspace');
  const home = path.join(base, name, 'home');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(ws, 'victim.txt'), 'do not delete\n');
  const policyFile = path.join(base, name, 'policy.yaml');
  fs.writeFileSync(policyFile, policy);
  const api = await startResponsesApi(calls);
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    `model = "mock-model"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\nbase_url = "${api.url}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n`,
  );
  const hook = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} hook --agent codex --policy ${JSON.stringify(policyFile)}`;
  fs.writeFileSync(
    path.join(home, 'hooks.json'),
    JSON.stringify({
      hooks: { PreToolUse: [{ matcher: '.*', hooks: [{ type: 'command', command: hook, timeout: 60 }] }] },
    }),
  );
  try {
    const result = await runProcess(
      codex.path!,
      [
        'exec',
        '--skip-git-repo-check',
        '--json',
        // Codex's own sandbox needs helpers it cannot build here; toolgate's decision is what is tested
        '--dangerously-bypass-approvals-and-sandbox',
        // a hook that is not managed runs only once trusted by its hash, else it is silently skipped
        '--dangerously-bypass-hook-trust',
        'run the scripted calls',
      ],
      {
        cwd: ws,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          CODEX_HOME: home,
          MOCK_API_KEY: 'sk-mock',
          TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed.yaml'),
          XDG_CONFIG_HOME: path.join(home, '.config'),
        },
        killAfterMs: 240_000,
      },
    );
    return { ws, result, told: toldModel(api.requests) };
  } finally {
    await api.close();
  }
}

/** The function_call_output items Codex sent back to the model. */
function toldModel(requests: unknown[]): string[] {
  const out = new Set<string>();
  for (const r of requests)
    for (const item of (r as { input?: { type?: string; output?: unknown }[] }).input ?? [])
      if (item.type === 'function_call_output') out.add(JSON.stringify(item.output));
  return [...out];
}

const POLICY = 'version: 1\nrules:\n  - deny: "Bash(rm:*)"\n  - allow: "Bash(touch made.txt)"\n';

describe.skipIf(codex.path === undefined)('Codex CLI with toolgate as its PreToolUse hook', () => {
  it('runs the allowed call, not the denied one nor an unnamed write (despite bypassPermissions), and tells the model why', async () => {
    const { ws, result, told } = await run(
      'session',
      [
        { name: 'exec_command', args: { cmd: 'rm victim.txt' } },
        { name: 'exec_command', args: { cmd: 'touch made.txt' } },
        { name: 'exec_command', args: { cmd: 'echo x > asked.txt' } },
      ],
      POLICY,
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(fs.existsSync(path.join(ws, 'victim.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'asked.txt'))).toBe(false);
    expect(
      told.some((t) => /blocked by PreToolUse hook: toolgate: /.test(t)),
      told.join('\n'),
    ).toBe(true);
    expect(
      told.some((t) => /a person would have to approve it/.test(t)),
      told.join('\n'),
    ).toBe(true);
  });

  it('blocks the call when toolgate cannot decide (a broken policy: exit 2)', async () => {
    const { ws, told } = await run(
      'broken',
      [{ name: 'exec_command', args: { cmd: 'touch made.txt' } }],
      'version: 1\nrules:\n  - allow: "Bash("\n',
    );
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(false);
    expect(told.join('\n')).toMatch(/policy was refused/);
  });
});
