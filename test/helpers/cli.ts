import { spawn } from 'node:child_process';
import path from 'node:path';

/** Runs the real CLI as a process (through tsx, so tests need no build step). */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const TSX = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
export const MAIN = path.join(ROOT, 'src', 'cli', 'main.ts');

export function runCli(
  args: string[],
  opts: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CliRun> {
  return runProcess(process.execPath, ['--import', TSX, MAIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    stdin: opts.stdin ?? '',
  });
}

/**
 * Runs a program to its end and collects what it wrote. No `stdin`: it gets none (not even an
 * empty pipe). `killAfterMs`: a watchdog for programs that could hang a test run.
 */
export function runProcess(
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; stdin?: string; killAfterMs?: number },
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr!.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const watchdog =
      opts.killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(watchdog);
      resolve({ code, stdout, stderr });
    });
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
  });
}
