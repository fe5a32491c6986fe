import os from 'node:os';

/**
 * How long-running commands (`exec`, `serve`) stop: SIGTERM, SIGINT and SIGHUP (the terminal
 * went away) all mean "stop now, cleanly". The command gets the first one and winds down; it
 * is given `graceMs` to do so, and then the process exits whatever is still pending: a slow
 * client or a call that ignores its abort cannot keep toolgate alive. The exit runs the exit
 * hooks, which kill every sandboxed process still running (src/sandbox/process-tree.ts).
 * The exit status is the shell's for death by that signal, 128 + its number.
 */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (os.constants.signals[signal] ?? 15);
}

/** Calls `stop` once, on the first stop signal; returns a function that removes the handlers. */
export function onStopSignal(
  stop: (signal: NodeJS.Signals) => void,
  graceMs: number,
  signals: readonly NodeJS.Signals[] = STOP_SIGNALS,
): () => void {
  let stopped = false;
  const handler = (signal: NodeJS.Signals) => {
    if (stopped) return;
    stopped = true;
    // unref: the timer only ends a process that something else keeps alive.
    setTimeout(() => process.exit(signalExitCode(signal)), graceMs).unref();
    stop(signal);
  };
  for (const s of signals) process.on(s, handler);
  return () => {
    for (const s of signals) process.off(s, handler);
  };
}
