import fs from 'node:fs';
import path from 'node:path';
import { type CliRun, runProcess } from '../helpers/cli.js';
import { type ScriptedCall, startGeminiApi } from './model-servers.js';

/**
 * One headless run of the real Gemini CLI in `ws` against a loopback Gemini API that answers
 * with `calls`: user settings in the throwaway `home` (API-key auth, so the base URL is
 * honoured; no telemetry) plus `hooks` when given; a project's own `.gemini/settings.json`
 * (what `toolgate init --agent gemini` writes) applies as well, the workspace being trusted.
 */
export interface GeminiRun {
  readonly result: CliRun;
  /** The functionResponses Gemini sent back to the model, as text, each once. */
  readonly told: string[];
}

export async function geminiSession(
  gemini: string,
  ws: string,
  home: string,
  calls: readonly ScriptedCall[],
  options: { readonly hooks?: unknown; readonly env?: Readonly<Record<string, string>> } = {},
): Promise<GeminiRun> {
  fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
  fs.writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ...(options.hooks === undefined ? {} : { hooks: options.hooks }),
    }),
  );
  const api = await startGeminiApi(calls);
  try {
    const result = await runProcess(
      gemini,
      ['-p', 'run the scripted calls', '--output-format', 'json', '--approval-mode', 'yolo'],
      {
        cwd: ws,
        env: {
          PATH: process.env.PATH,
          HOME: home,
          GOOGLE_GEMINI_BASE_URL: api.url,
          GEMINI_API_KEY: 'mock',
          GEMINI_CLI_TRUST_WORKSPACE: 'true',
          NO_BROWSER: '1',
          XDG_CONFIG_HOME: path.join(home, '.config'),
          ...options.env,
        },
        killAfterMs: 240_000,
      },
    );
    return { result, told: [...new Set(toldModel(api.requests))] };
  } finally {
    await api.close();
  }
}

function toldModel(requests: unknown[]): string[] {
  const out: string[] = [];
  for (const r of requests) {
    for (const c of (r as { contents?: { parts?: { functionResponse?: unknown }[] }[] }).contents ?? [])
      for (const p of c.parts ?? []) if (p.functionResponse) out.push(JSON.stringify(p.functionResponse));
  }
  return out;
}
