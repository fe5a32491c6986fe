import { hasNoSnapshotFlag } from '../isolate/load.js';
import type { CliIO } from './io.js';

/**
 * isolated-vm needs node started with --no-node-snapshot, which costs ~35 ms of start-up for
 * every command. So the CLI starts without it, and only when the policy turns out to have
 * `when:` conditions does it run itself again with the flag (once; the child sees
 * TOOLGATE_REEXEC and never loops). Input already read from stdin is handed over.
 */
export class Reexecuted extends Error {
  override name = 'Reexecuted';
  constructor(readonly code: number) {
    super(`ran again with --no-node-snapshot (exit ${code})`);
  }
}

export function needsReexec(hasConditions: boolean, io: CliIO): boolean {
  return (
    hasConditions && !hasNoSnapshotFlag() && io.env.TOOLGATE_REEXEC !== '1' && process.argv[1] !== undefined
  );
}

export function reexecWithIsolates(io: CliIO, consumedStdin?: string): never {
  // Required here, not imported: every hook process loads this file, and few of them restart.
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  const result = spawnSync(
    process.execPath,
    ['--no-node-snapshot', ...process.execArgv, ...process.argv.slice(1)],
    {
      cwd: io.cwd,
      env: { ...io.env, TOOLGATE_REEXEC: '1' },
      stdio: [consumedStdin === undefined ? 'inherit' : 'pipe', 'inherit', 'inherit'],
      ...(consumedStdin === undefined ? {} : { input: consumedStdin }),
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  throw new Reexecuted(result.status ?? (result.signal ? 2 : 1));
}
