import fs from 'node:fs';
import path from 'node:path';
import { type CliRun, runProcess } from '../helpers/cli.js';
import { type ScriptedCall, startResponsesApi } from './model-servers.js';

/**
 * One `codex exec` run of the real Codex CLI in `ws` against a loopback Responses API (a custom
 * model provider whose base_url is on 127.0.0.1) that answers with `calls`. `home` is both HOME
 * and CODEX_HOME: its `hooks.json` (written by the caller, or by `toolgate init --agent codex`)
 * is the hook configuration, run without the trust-by-hash step.
 */
export interface CodexRun {
  readonly result: CliRun;
  /** The function_call_output (and freeform tools' custom_tool_call_output) items sent back to the model. */
  readonly told: string[];
}

export interface CodexOptions {
  readonly model?: string;
  /** How Codex runs calls (default: no sandbox, no approvals; toolgate's decision is what is tested). */
  readonly mode?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

export async function codexSession(
  codex: string,
  ws: string,
  home: string,
  calls: readonly ScriptedCall[],
  options: CodexOptions = {},
): Promise<CodexRun> {
  const { model = 'mock-model', mode = ['--dangerously-bypass-approvals-and-sandbox'] } = options;
  const api = await startResponsesApi(calls);
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    `model = "${model}"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\nbase_url = "${api.url}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n`,
  );
  try {
    const result = await runProcess(
      codex,
      [
        'exec',
        '--skip-git-repo-check',
        '--json',
        ...mode,
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
          XDG_CONFIG_HOME: path.join(home, '.config'),
          ...options.env,
        },
        killAfterMs: 240_000,
      },
    );
    return { result, told: toldModel(api.requests) };
  } finally {
    await api.close();
  }
}

function toldModel(requests: unknown[]): string[] {
  const out = new Set<string>();
  for (const r of requests)
    for (const item of (r as { input?: { type?: string; output?: unknown }[] }).input ?? [])
      if (item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
        out.add(JSON.stringify(item.output));
  return [...out];
}
