import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { opencodePlugin } from '../../src/adapters/opencode-plugin.js';
import { runProcess } from '../helpers/cli.js';
import { agentBinary } from './agent-bins.js';
import { type ScriptedCall, startResponsesApi } from './model-servers.js';

/**
 * The real opencode (1.18.33, from npm), `opencode run` headless, against a loopback Responses
 * API (its built-in openai provider with baseURL on 127.0.0.1) that answers with scripted bash
 * calls, with toolgate's plugin (opencodePlugin()) in its config dir. What must hold: denied
 * calls never run, allowed ones do, toolgate's reason reaches the model, and a toolgate that
 * cannot decide (a broken policy) blocks the call.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const opencode = agentBinary('opencode');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-opencode-e2e-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

async function run(name: string, calls: ScriptedCall[], policy: string) {
  const ws = path.join(base, name, 'workspace');
  const home = path.join(base, name, 'home');
  const config = path.join(base, name, 'config');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(path.join(config, 'plugin'), { recursive: true });
  fs.writeFileSync(path.join(ws, 'victim.txt'), 'do not delete\n');
  const policyFile = path.join(base, name, 'policy.yaml');
  fs.writeFileSync(policyFile, policy);
  const api = await startResponsesApi(calls);
  fs.writeFileSync(
    path.join(config, 'opencode.json'),
    JSON.stringify({
      provider: {
        openai: {
          options: { baseURL: `${api.url}/v1`, apiKey: 'sk-mock' },
          models: { 'mock-model': { name: 'mock-model' } },
        },
      },
      model: 'openai/mock-model',
    }),
  );
  fs.writeFileSync(
    path.join(config, 'plugin', 'toolgate.js'),
    opencodePlugin({ toolgate: [process.execPath, CLI], hookArgs: ['--policy', policyFile] }),
  );
  try {
    const result = await runProcess(
      opencode.path!,
      ['run', '--format', 'json', '--auto', '-m', 'openai/mock-model', 'run the scripted calls'],
      {
        cwd: ws,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          XDG_CONFIG_HOME: path.join(home, '.config'),
          XDG_DATA_HOME: path.join(home, '.data'),
          XDG_CACHE_HOME: path.join(home, '.cache'),
          XDG_STATE_HOME: path.join(home, '.state'),
          OPENCODE_CONFIG_DIR: config,
          OPENCODE_DISABLE_MODELS_FETCH: '1',
          OPENCODE_DISABLE_AUTOUPDATE: '1',
          OPENCODE_DISABLE_SHARE: '1',
          OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
          TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed.yaml'),
        },
        killAfterMs: 200_000,
      },
    );
    return { ws, result, told: toldModel(api.requests) };
  } finally {
    await api.close();
  }
}

function toldModel(requests: unknown[]): string[] {
  const out = new Set<string>();
  for (const r of requests)
    for (const item of (r as { input?: { type?: string; output?: unknown }[] }).input ?? [])
      if (item.type === 'function_call_output') out.add(JSON.stringify(item.output));
  return [...out];
}

const POLICY = 'version: 1\nrules:\n  - deny: "Bash(rm:*)"\n  - allow: "Bash(touch made.txt)"\n';
const bash = (command: string): ScriptedCall => ({
  name: 'bash',
  args: { command, description: 'scripted' },
});

describe.skipIf(opencode.path === undefined)("opencode with toolgate's plugin", () => {
  it('runs the allowed call, not the denied one nor an asked one, and tells the model why', async () => {
    const { ws, result, told } = await run(
      'session',
      [bash('rm victim.txt'), bash('touch made.txt'), bash('echo x > asked.txt')],
      POLICY,
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(fs.existsSync(path.join(ws, 'victim.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'asked.txt'))).toBe(false);
    expect(
      told.some((t) => /toolgate: /.test(t)),
      told.join('\n'),
    ).toBe(true);
    expect(
      told.some((t) => /a plugin cannot ask a person/.test(t)),
      told.join('\n'),
    ).toBe(true);
  });

  it('blocks the call when toolgate cannot decide (a broken policy)', async () => {
    const { ws, told } = await run(
      'broken',
      [bash('touch made.txt')],
      'version: 1\nrules:\n  - allow: "Bash("\n',
    );
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(false);
    expect(told.join('\n')).toMatch(/policy was refused/);
  });
});
