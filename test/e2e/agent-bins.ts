import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The real agent binaries the e2e tests drive, installed by `.ci/run` into a cache folder outside
 * the package's dependencies ($TOOLGATE_E2E_AGENTS_CACHE, default ~/.cache/toolgate-e2e-agents):
 * `<cache>/<dir>/node_modules/.bin/<bin>`. Absent, a test skips with the install command; in CI
 * (`.ci/run` sets TOOLGATE_E2E_REQUIRE_AGENTS=1) an absent binary fails instead, so CI never passes by
 * skipping.
 */
export const AGENTS_CACHE =
  process.env.TOOLGATE_E2E_AGENTS_CACHE ?? path.join(os.homedir(), '.cache', 'toolgate-e2e-agents');

export const AGENT_PACKAGES = {
  gemini: { dir: 'gemini', bin: 'gemini', pkg: '@google/gemini-cli@0.61.0' },
  codex: { dir: 'codex', bin: 'codex', pkg: '@openai/codex@0.171.0' },
  opencode: { dir: 'oc', bin: 'opencode', pkg: 'opencode-ai@1.18.33' },
} as const;

export function agentBinary(agent: keyof typeof AGENT_PACKAGES): { path?: string; missing: string } {
  const { dir, bin, pkg } = AGENT_PACKAGES[agent];
  const file = path.join(AGENTS_CACHE, dir, 'node_modules', '.bin', bin);
  const missing = `${bin} not installed at ${file}: npm install --prefix ${path.join(AGENTS_CACHE, dir)} ${pkg}`;
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return { path: file, missing };
  } catch {
    if (process.env.TOOLGATE_E2E_REQUIRE_AGENTS === '1') throw new Error(`CI must run this test: ${missing}`);
    console.warn(`skipping: ${missing}`);
    return { missing };
  }
}
