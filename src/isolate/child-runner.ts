import type { ChildProcess } from 'node:child_process';
import { hasNoSnapshotFlag } from './load.js';
import {
  type CompiledCode,
  type CompileOutcome,
  createIsolateRunner,
  type IsolateRunner,
  type RunOutcome,
} from './runner.js';

/**
 * isolated-vm needs node started with --no-node-snapshot, and a process started without it
 * cannot load it. A command that only *may* run isolates (`toolgate exec`, whose blocks arrive
 * on stdin) would otherwise restart itself for every call, ~0.3 s before the first block. So
 * such a process runs its isolates in a child node with the flag, started on the first
 * compile, and talks to it over the IPC channel. The child is the same runner
 * (createIsolateRunner): the same limits, the same outcomes. When the child cannot start or
 * dies, every call answers `unavailable`: code never runs outside an isolate.
 */
export interface ChildCommand {
  /** The node binary and the arguments (before --no-node-snapshot is added) of the child. */
  execPath: string;
  args: readonly string[];
}

type Ask =
  | { op: 'compile'; source: string; kind: CompiledCode['kind'] }
  | { op: 'run'; code: CompiledCode; globals: Record<string, unknown>; timeoutMs: number };
type Request = Ask & { id: number };
type Reply = { id: number; outcome: CompileOutcome | RunOutcome };

const GONE = 'the isolate process is not running';

/** In-process when this process can load isolated-vm, else in a child started with `command`. */
export function createIsolateRunnerFor(command: ChildCommand, memoryLimitMb: number): IsolateRunner {
  return hasNoSnapshotFlag()
    ? createIsolateRunner({ memoryLimitMb })
    : createChildIsolateRunner(command, memoryLimitMb);
}

export function createChildIsolateRunner(command: ChildCommand, memoryLimitMb: number): IsolateRunner {
  let child: ChildProcess | undefined;
  let dead: string | undefined;
  let nextId = 0;
  const pending = new Map<number, (outcome: CompileOutcome | RunOutcome) => void>();

  const fail = (message: string) => {
    dead ??= message;
    for (const resolve of pending.values()) resolve({ ok: false, kind: 'unavailable', message: dead });
    pending.clear();
  };
  // The channel keeps this process alive only while a call waits for an answer.
  const holdOpen = () => {
    if (pending.size > 0) child?.channel?.ref();
    else child?.channel?.unref();
  };
  const start = (): ChildProcess => {
    const { spawn } = process.getBuiltinModule('node:child_process');
    const started = spawn(
      command.execPath,
      ['--no-node-snapshot', ...command.args, String(Math.max(8, Math.floor(memoryLimitMb)))],
      { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' },
    );
    started.unref();
    started.on('message', (reply: Reply) => {
      const resolve = pending.get(reply.id);
      pending.delete(reply.id);
      resolve?.(reply.outcome);
      holdOpen();
    });
    started.once('error', (err) => fail(`${GONE}: ${err.message}`));
    started.once('exit', (code, signal) => fail(`${GONE} (it exited: ${signal ?? code})`));
    return started;
  };
  const ask = <T extends CompileOutcome | RunOutcome>(request: Ask): Promise<T> => {
    if (dead !== undefined) return Promise.resolve({ ok: false, kind: 'unavailable', message: dead } as T);
    child ??= start();
    const id = nextId++;
    return new Promise<T>((resolve) => {
      pending.set(id, resolve as (outcome: CompileOutcome | RunOutcome) => void);
      holdOpen();
      child?.send({ ...request, id } as Request, (err) => {
        if (err) fail(`${GONE}: ${err.message}`);
      });
    });
  };
  return {
    compile: (source, { kind }) => ask<CompileOutcome>({ op: 'compile', source, kind }),
    // Only the kind and the source cross over: the child compiles (and caches) on its side.
    run: (code, globals, { timeoutMs }) =>
      ask<RunOutcome>({ op: 'run', code: { kind: code.kind, source: code.source }, globals, timeoutMs }),
    dispose: () => {
      dead ??= 'the isolate runner was disposed';
      child?.kill('SIGKILL');
      fail(dead);
    },
  };
}

/** The child's side: answer requests until the parent goes (the channel closes). */
export function serveIsolateRunner(memoryLimitMb: number): Promise<number> {
  const runner = createIsolateRunner({ memoryLimitMb });
  return new Promise((resolve) => {
    if (process.send === undefined) {
      resolve(2);
      return;
    }
    process.on('message', async (request: Request) => {
      let outcome: CompileOutcome | RunOutcome;
      if (request.op === 'compile') {
        outcome = await runner.compile(request.source, { kind: request.kind });
        // The compiled script stays here (a WeakMap cannot be sent); the parent gets the source.
        if (outcome.ok)
          outcome = { ok: true, code: { kind: outcome.code.kind, source: outcome.code.source } };
      } else outcome = await runner.run(request.code, request.globals, { timeoutMs: request.timeoutMs });
      process.send?.({ id: request.id, outcome } satisfies Reply);
    });
    process.once('disconnect', () => {
      runner.dispose();
      resolve(0);
    });
  });
}
