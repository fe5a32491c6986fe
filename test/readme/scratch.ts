import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type CliRun, MAIN, runProcess } from '../helpers/cli.js';
import { ROOT } from './blocks.js';

/**
 * A scratch place to run README lines as a reader types them: `toolgate` on the PATH (the CLI
 * from this checkout, through tsx, so no build is needed), a home, config, cache and state of
 * its own, and none of the environment's toolgate settings, so the machine's files and the
 * test runner's settings cannot change an answer.
 */
export interface Scratch {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  /** Runs `line` with bash in `cwd` (relative to dir), as the README shows it. */
  sh(line: string, opts?: { cwd?: string; stdin?: string; env?: NodeJS.ProcessEnv }): Promise<CliRun>;
  /** Makes a directory under dir, with files (path → text). */
  make(rel: string, files?: Record<string, string>): string;
  remove(): void;
}

const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');

export function scratch(): Scratch {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-readme-')));
  const bin = path.join(dir, '.bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(
    path.join(bin, 'toolgate'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} --import ${JSON.stringify(TSX)} ${JSON.stringify(MAIN)} "$@"\n`,
    { mode: 0o755 },
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HOME: path.join(dir, '.home'),
    XDG_CONFIG_HOME: path.join(dir, '.home', '.config'),
    XDG_CACHE_HOME: path.join(dir, '.home', '.cache'),
    XDG_STATE_HOME: path.join(dir, '.home', '.state'),
    TOOLGATE_MANAGED_POLICY: '',
    TOOLGATE_LOG: '',
    TOOLGATE_LOG_KEY: '',
    TOOLGATE_OTLP_ENDPOINT: '',
    CLAUDE_PROJECT_DIR: '',
    CODEX_HOME: '',
    // a warm process this starts leaves a second after its last call, not 15 minutes
    TOOLGATE_WARM_IDLE_MS: '1000',
  };
  fs.mkdirSync(env.HOME!);
  const make = (rel: string, files: Record<string, string> = {}) => {
    const at = path.join(dir, rel);
    fs.mkdirSync(at, { recursive: true });
    for (const [f, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(at, f)), { recursive: true });
      fs.writeFileSync(path.join(at, f), text);
    }
    return at;
  };
  return {
    dir,
    env,
    make,
    sh: (line, opts = {}) =>
      runProcess('bash', ['-c', line], {
        cwd: path.join(dir, opts.cwd ?? '.'),
        env: { ...env, ...opts.env },
        ...(opts.stdin !== undefined && { stdin: opts.stdin }),
        killAfterMs: 120_000,
      }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}
