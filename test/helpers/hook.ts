import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { type CliRun, runCli } from './cli.js';

/**
 * A throwaway workspace for running the real `toolgate hook` against an agent's payloads: its
 * own HOME (so no user policy or managed policy of this machine leaks in), no Claude project
 * dir, no log unless a test asks. Removed after the file's tests. Every test/cli/hook-*.test.ts
 * starts from this instead of its own copy.
 */
export interface HookWorkspace {
  readonly work: string;
  readonly env: Readonly<Record<string, string>>;
  /** `toolgate hook ...args` with `stdin`, run in the workspace. */
  readonly hook: (
    stdin: string,
    args?: readonly string[],
    extraEnv?: Readonly<Record<string, string>>,
  ) => Promise<CliRun>;
}

export function hookWorkspace(prefix: string): HookWorkspace {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), `toolgate-${prefix}-`));
  afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
  const env = {
    HOME: path.join(work, 'home'),
    XDG_CONFIG_HOME: path.join(work, 'home', '.config'),
    CLAUDE_PROJECT_DIR: '',
    TOOLGATE_MANAGED_POLICY: '',
    TOOLGATE_LOG: '',
  };
  return {
    work,
    env,
    hook: (stdin, args = [], extraEnv = {}) =>
      runCli(['hook', ...args], { stdin, cwd: work, env: { ...env, ...extraEnv } }),
  };
}
