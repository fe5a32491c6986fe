import { hasNoSnapshotFlag } from '../isolate/load.js';
import type { CliIO } from './io.js';

/**
 * isolated-vm needs node started with --no-node-snapshot, which costs ~35 ms of start-up for
 * every command. So the CLI starts without it, and only when the policy turns out to have
 * `when:` conditions does it run itself again with the flag (once; the child sees
 * TOOLGATE_REEXEC and never loops). Input already read from stdin is handed over.
 *
 * The two processes must live and die as one, because the person or agent that started toolgate
 * only knows the first one's pid:
 * - every signal that stops or steers toolgate (TERM, INT, HUP, QUIT, USR1, USR2) is forwarded
 *   to the child, so `kill -HUP` reloads `serve` and `kill -TERM` stops `exec` as if there were
 *   one process;
 * - a signal that cannot be caught (SIGKILL) is noticed by the child through a pipe it holds
 *   from the parent (fd 3): the kernel closes the parent's end when the parent dies, however
 *   it dies, and the child stops itself as on SIGTERM (so its calls are killed, not orphaned).
 */
export class Reexecuted extends Error {
  override name = 'Reexecuted';
  constructor(readonly code: number) {
    super(`ran again with --no-node-snapshot (exit ${code})`);
  }
}

/** Set in the child: the descriptor whose end-of-file means the parent is gone. */
const PARENT_FD_VARIABLE = 'TOOLGATE_PARENT_FD';
const PARENT_FD = 3;
const FORWARDED: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'];

export function needsReexec(hasConditions: boolean, io: CliIO): boolean {
  return (
    hasConditions && !hasNoSnapshotFlag() && io.env.TOOLGATE_REEXEC !== '1' && process.argv[1] !== undefined
  );
}

export async function reexecWithIsolates(io: CliIO, consumedStdin?: string): Promise<never> {
  // Required here, not imported: every hook process loads this file, and few of them restart.
  const { spawn } = process.getBuiltinModule('node:child_process');
  const child = spawn(
    process.execPath,
    ['--no-node-snapshot', ...process.execArgv, ...process.argv.slice(1)],
    {
      cwd: io.cwd,
      env: { ...io.env, TOOLGATE_REEXEC: '1', [PARENT_FD_VARIABLE]: String(PARENT_FD) },
      stdio: [consumedStdin === undefined ? 'inherit' : 'pipe', 'inherit', 'inherit', 'pipe'],
    },
  );
  const forward = (signal: NodeJS.Signals) => {
    child.kill(signal);
  };
  for (const signal of FORWARDED) process.on(signal, forward);
  if (consumedStdin !== undefined) {
    // A child that exits without reading all of it must not crash the parent with EPIPE.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(consumedStdin);
  }
  const code = await new Promise<number>((resolve) => {
    child.once('error', () => resolve(1));
    child.once('exit', (status, signal) => resolve(status ?? (signal ? 2 : 1)));
  });
  for (const signal of FORWARDED) process.off(signal, forward);
  child.stdio[PARENT_FD]?.destroy();
  throw new Reexecuted(code);
}

/**
 * In a restarted child: stop as on SIGTERM when the parent dies. Where nothing handles SIGTERM,
 * exit (which runs the exit hooks that kill the calls still running).
 */
export function watchParentOfReexec(env: NodeJS.ProcessEnv): void {
  const fd = Number(env[PARENT_FD_VARIABLE]);
  if (!Number.isInteger(fd) || fd < 0) return;
  // Not for the commands this process runs: they never get the descriptor (it is close-on-exec).
  delete env[PARENT_FD_VARIABLE];
  const { Socket } = process.getBuiltinModule('node:net');
  let pipe: import('node:net').Socket;
  try {
    pipe = new Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  const orphaned = () => {
    if (process.listenerCount('SIGTERM') > 0) process.kill(process.pid, 'SIGTERM');
    else process.exit(129);
  };
  pipe.on('error', orphaned);
  pipe.on('close', orphaned);
  pipe.on('data', () => undefined);
  pipe.unref();
}
