import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * Other agents' real packages live in one cache folder outside the package's dependencies (as
 * Claude Code's does, claude-bin.ts): `.ci/run` installs each into its own directory there.
 */
export const AGENTS_CACHE =
  process.env.TOOLGATE_E2E_AGENTS_CACHE ?? path.join(os.homedir(), '.cache', 'toolgate-e2e-agents');

export const AGENT_SDK_VERSION = '0.3.333';

/** The Claude Agent SDK's module: $TOOLGATE_AGENT_SDK, else the cache's `sdk/` install. */
export function agentSdkModule(): string {
  const file =
    process.env.TOOLGATE_AGENT_SDK ??
    path.join(AGENTS_CACHE, 'sdk', 'node_modules', '@anthropic-ai', 'claude-agent-sdk', 'sdk.mjs');
  if (!fs.existsSync(file))
    throw new Error(
      `the Claude Agent SDK was not found at ${file}. Install it with:\n` +
        `  npm install --prefix ${path.join(AGENTS_CACHE, 'sdk')} @anthropic-ai/claude-agent-sdk@${AGENT_SDK_VERSION}\n` +
        'or set TOOLGATE_AGENT_SDK to its sdk.mjs.',
    );
  return pathToFileURL(file).href;
}
