import { spawn } from 'node:child_process';

/**
 * Runs one external command hook the way Claude Code does: `bash -c COMMAND` in the session's
 * cwd, the hook input as JSON on stdin, stdout and stderr captured (each cut at 10,000
 * characters, as Claude Code caps hook strings). The whole process group is killed on timeout
 * or abort, so a hook cannot leave work running behind the call it judged.
 */
export interface CommandRun {
  /** null when the hook was killed (timeout, abort) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Set when the process could not be started at all. */
  spawnError?: string;
}

export const HOOK_OUTPUT_CAP = 10_000;
export const DEFAULT_HOOK_TIMEOUT_MS = 600_000;

export function runCommandHook(
  command: string,
  input: unknown,
  options: { cwd: string; timeoutMs: number; signal: AbortSignal; env?: NodeJS.ProcessEnv },
): Promise<CommandRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let aborted = false;
    let settled = false;
    const child = spawn('bash', ['-c', command], {
      cwd: options.cwd,
      env: { ...(options.env ?? process.env), CLAUDE_PROJECT_DIR: options.cwd },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    const finish = (run: CommandRun) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal.removeEventListener('abort', onAbort);
      resolve(run);
    };
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      if (stdout.length < HOOK_OUTPUT_CAP) stdout += s.slice(0, HOOK_OUTPUT_CAP - stdout.length);
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      if (stderr.length < HOOK_OUTPUT_CAP) stderr += s.slice(0, HOOK_OUTPUT_CAP - stderr.length);
    });
    child.once('error', (err) =>
      finish({ exitCode: null, stdout, stderr, timedOut, aborted, spawnError: err.message }),
    );
    child.once('close', (code) => {
      // The hook's own children may still hold nothing we need; make sure none outlive it.
      killGroup();
      finish({ exitCode: code, stdout, stderr, timedOut, aborted });
    });
    // A hook that does not read stdin closes the pipe early; that is not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(input));
    if (options.signal.aborted) onAbort();
  });
}
