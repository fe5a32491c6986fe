import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Where the real Claude Code binary is: $TOOLGATE_CLAUDE_BIN, else the cache folder `.ci/run`
 * installs it into (outside the package's own dependencies: it is a ~250 MB native binary).
 */
export const CLAUDE_CACHE =
  process.env.TOOLGATE_E2E_CACHE ?? path.join(os.homedir(), '.cache', 'toolgate-e2e');

/**
 * The latest Claude Code (2.1.332 declares Node >= 22 in `engines`, so npm on Node 20 never picks
 * it; installed by exact version, its native binary runs here): `.ci/run` puts it in this folder.
 */
export const LATEST_CLAUDE_CACHE =
  process.env.TOOLGATE_E2E_LATEST_CACHE ?? path.join(os.homedir(), '.cache', 'toolgate-e2e-latest');

/** The binary installed in `cache`, or undefined. */
export function claudeBinaryIn(cache: string): string | undefined {
  return firstBinary([
    path.join(cache, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe'),
    path.join(cache, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude'),
  ]);
}

function firstBinary(candidates: readonly string[]): string | undefined {
  for (const c of candidates) {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      if (fs.statSync(c).size > 1_000_000) return c;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

export function claudeBinary(): string {
  const candidates = [
    process.env.TOOLGATE_CLAUDE_BIN,
    path.join(CLAUDE_CACHE, 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe'),
    path.join(CLAUDE_CACHE, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude'),
  ].filter((c): c is string => typeof c === 'string' && c !== '');
  for (const c of candidates) {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      if (fs.statSync(c).size > 1_000_000) return c;
    } catch {
      // try the next one
    }
  }
  throw new Error(
    `the Claude Code binary was not found (looked at ${candidates.join(', ')}). Install it with:\n` +
      `  npm install --prefix ${CLAUDE_CACHE} @anthropic-ai/claude-code@2.1.197\nor set TOOLGATE_CLAUDE_BIN.`,
  );
}
