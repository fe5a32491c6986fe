import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SandboxProfile } from '../policy/obligations.js';
import { type BwrapPlan, planBwrap } from './bwrap.js';
import { buildChildEnv } from './env.js';
import { describeThrown, type SandboxError, sandboxError } from './error.js';
import { holdGhosts } from './ghosts.js';
import { bwrapSetupFailure, chooseIsolation } from './isolation.js';
import { jailEnded, readJailInit } from './jail-end.js';
import { type CapturedOutput, OutputCapture, type StreamName } from './output.js';
import { preflight } from './preflight.js';
import {
  type KilledProcess,
  RUN_ID_VARIABLE,
  type TerminateOutcome,
  terminateRun,
  trackRun,
} from './process-tree.js';
import { isInside } from './real-path.js';
import { type Watched, watchRun } from './watchdog.js';

/**
 * Runs one command inside the limits of a sandbox profile: a deadline and an abort signal,
 * an environment from the allow list, output capped and spilled to a file, OS isolation when
 * the profile asks for it, and — whatever happens — no process of the run left alive.
 */
export interface RunRequest {
  /** A program and its arguments, run without a shell. Exactly one of `argv` and `script`. */
  argv?: readonly string[];
  /** A Bash script, run as `bash -c <script>`. */
  script?: string;
  /** Absolute working directory. */
  cwd: string;
  profile: SandboxProfile;
  signal?: AbortSignal;
  /** Live output as it arrives (the same bytes that are kept; nothing past the hard cap). */
  onOutput?: (chunk: Buffer, stream: StreamName) => void;
  /** How long SIGTERM gets before SIGKILL (default 2000 ms). */
  killGraceMs?: number;
  /** The bubblewrap binary (default: `bwrap` on PATH). */
  bwrapPath?: string;
  /** The environment the allow list picks from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

export interface RunResult {
  ok: true;
  /** The exit code, or null when the process was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The deadline (`profile.timeoutMs`) passed and the run was stopped. */
  timedOut: boolean;
  /** The abort signal fired and the run was stopped. */
  aborted: boolean;
  output: CapturedOutput;
  /** Every process of the run that toolgate had to kill (on a stop, or left running after exit). */
  killed: KilledProcess[];
  isolation: 'bwrap' | 'none';
  /**
   * What the OS sandbox could not enforce for this call (deny patterns with wildcards, read
   * roots): decisions and path checks enforce those. For operators and logs; it is the same on
   * every call under one policy, so it is not among the notes the model is told.
   */
  isolationLimits: string[];
  /** Sentences about what happened beyond the exit code: limits hit, isolation missing, kills. */
  notes: string[];
  durationMs: number;
  /** The value of TOOLGATE_RUN_ID in the child environment. */
  runId: string;
}

export const DEFAULT_KILL_GRACE_MS = 2000;

export async function runSandboxed(request: RunRequest): Promise<RunResult | SandboxError> {
  try {
    return await run(request);
  } catch (err) {
    return sandboxError(
      'internal',
      `The sandbox failed before the command could run: ${describeThrown(err)}`,
    );
  }
}

type StopReason = 'timeout' | 'abort' | 'output';

async function run(request: RunRequest): Promise<RunResult | SandboxError> {
  const started = performance.now();
  const { cwd, profile, signal } = request;
  const command = commandOf(request);
  if (!Array.isArray(command)) return command;
  const bad = preflight(cwd, profile);
  if (bad) return bad;
  if (signal?.aborted) return sandboxError('aborted', 'The call was aborted before it started; nothing ran.');

  const notes: string[] = [];
  const isolationLimits: string[] = [];
  const isolation = await chooseIsolation(profile, request.bwrapPath, notes);
  if (!('use' in isolation)) return isolation;

  const runId = randomUUID();
  const { env, droppedSecrets } = buildChildEnv(request.env ?? process.env, profile.envAllow);
  env[RUN_ID_VARIABLE] = runId;
  if (droppedSecrets.length > 0) {
    notes.push(`Secret-like variables were not passed: ${droppedSecrets.join(', ')}.`);
  }

  let file = command[0]!;
  let args = command.slice(1);
  let plan: BwrapPlan | undefined;
  if (isolation.use === 'bwrap') {
    // launch() starts bwrap detached: a session of its own, without a controlling terminal.
    const planned = planBwrap({ cwd, profile, inNewSession: true });
    if (!planned.ok) return planned;
    plan = planned;
    isolationLimits.push(...plan.notes);
    file = isolation.probe.path!;
    // One descriptor past the plan's: bwrap names its namespace's init there (jail-end.ts).
    args = [...plan.args, '--info-fd', String(3 + plan.fds.length), '--', ...command];
    // The host's TMPDIR is invisible behind the private /tmp unless it is a writable root.
    const tmp = env.TMPDIR;
    if (!tmp || !profile.writableRoots.some((root) => isInside(tmp, root))) env.TMPDIR = '/tmp';
  }

  if (signal?.aborted) {
    plan?.close();
    return sandboxError('aborted', 'The call was aborted before it started; nothing ran.');
  }
  const output = new OutputCapture(profile, request.onOutput);

  // Tracked from before the spawn: the process may exist before spawn() even returns.
  const untrack = trackRun(runId, undefined);
  // Unjailed, nothing else kills the run if toolgate is SIGKILLed (watchdog.ts).
  const watched = isolation.use === 'none' ? watchRun(runId) : undefined;
  if (isolation.use === 'none' && watched === undefined) {
    notes.push(
      "toolgate could not start its watchdog: should toolgate be killed with SIGKILL, this call's processes could outlive it.",
    );
  }
  const release = plan ? holdGhosts(runId, plan.ghosts, plan.mountPoints) : () => undefined;
  try {
    return await launch({
      plan,
      command,
      file,
      args,
      env,
      output,
      request,
      runId,
      notes,
      isolationLimits,
      isolation: isolation.use,
      started,
      watched,
    });
  } finally {
    plan?.close();
    untrack();
    watched?.done();
    release();
  }
}

/** Everything decided before the process exists. */
interface Launch {
  /** The command as requested (for messages). */
  command: string[];
  /** The jail, when there is one: its descriptors go to bwrap as fds 3, 4, ... */
  plan: BwrapPlan | undefined;
  /** What is really executed: the command, or bwrap wrapping it. */
  file: string;
  args: string[];
  env: Record<string, string>;
  output: OutputCapture;
  request: RunRequest;
  runId: string;
  notes: string[];
  isolationLimits: string[];
  isolation: 'bwrap' | 'none';
  started: number;
  watched: Watched | undefined;
}

interface Supervised extends Launch {
  child: ChildProcess;
  /** The host PID of the jail's PID-namespace init, once bwrap has named it. */
  jailInit: Promise<number | undefined>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function launch(l: Launch): Promise<RunResult | SandboxError> {
  const failedToStart = async (err: unknown) => {
    await l.output.discard();
    return sandboxError('spawn-failed', `"${l.command[0]}" could not be started: ${describeThrown(err)}.`);
  };
  let child: ChildProcess;
  try {
    child = spawn(l.file, l.args, {
      cwd: l.request.cwd,
      env: l.env,
      // A group to kill, and a session without a terminal (the plan counts on it: inNewSession).
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', ...(l.plan ? [...l.plan.fds, 'pipe' as const] : [])],
    });
  } catch (err) {
    l.plan?.close();
    return failedToStart(err);
  }
  // bwrap has its copies now; ours would only keep the directories open.
  l.plan?.close();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, sig) => resolve({ code, signal: sig }));
  });
  const spawned = await new Promise<Error | undefined>((resolve) => {
    child.once('spawn', () => resolve(undefined));
    child.once('error', resolve);
  });
  if (spawned || child.pid === undefined) return failedToStart(spawned);
  trackRun(l.runId, child.pid);
  l.watched?.started(child.pid);
  const info = l.plan ? child.stdio[3 + l.plan.fds.length] : undefined;
  const jailInit = info ? readJailInit(info as Readable) : Promise.resolve(undefined);
  try {
    return await supervise({ ...l, child, exited, jailInit });
  } catch (err) {
    // Fail closed even here: nothing of the run may outlive an internal failure.
    await terminateRun({ runId: l.runId, pgid: child.pid, graceMs: 0 });
    await l.output.discard().catch(() => undefined);
    return sandboxError(
      'internal',
      `The sandbox failed while supervising the command: ${describeThrown(err)}`,
    );
  }
}

/** From a started child to its result: deadline, abort, output cap, the sweep, the excerpt. */
async function supervise(s: Supervised): Promise<RunResult | SandboxError> {
  const { child, exited, output, request, runId, notes, isolationLimits, isolation } = s;
  const { profile, signal } = request;
  const pgid = child.pid!;
  output.attach(child.stdout!, 'stdout');
  output.attach(child.stderr!, 'stderr');

  const graceMs = request.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  let stopReason: StopReason | undefined;
  let stopping: Promise<TerminateOutcome> | undefined;
  const stop = (reason: StopReason) => {
    if (stopReason) return;
    stopReason = reason;
    stopping = terminateRun({ runId, pgid, graceMs });
  };
  // An error after a successful spawn (a failed kill) changes nothing; the exit still comes.
  child.on('error', () => undefined);
  const timer = setTimeout(() => stop('timeout'), profile.timeoutMs);
  const onAbort = () => stop('abort');
  signal?.addEventListener('abort', onAbort, { once: true });
  output.onOverflow(() => stop('output'));

  const exit = await exited;
  clearTimeout(timer);
  signal?.removeEventListener('abort', onAbort);
  // Whatever the way out, nothing of this run stays alive: wait for a stop in progress, then
  // sweep for stragglers. Under bwrap too: bwrap exits as soon as its command does, while its
  // init (and what is left in the namespace) is still being torn down; there, seeing the init
  // end proves the namespace empty (jail-end.ts) and spares the sweep's read of every process.
  // The jail's init holds the output's pipes until it exits, and the rest of the run dies with
  // it, so under bwrap the output is drained first: by then the init is nearly always over at
  // the first look, and the look's 1 ms sleeps are spared. Unjailed, the sweep comes first: a
  // straggler that holds the output would otherwise keep it open for the whole grace period.
  const drainedFirst =
    isolation === 'bwrap' && stopReason === undefined ? await drain(output, graceMs) : undefined;
  const ended = stopReason === undefined && (await jailEnded(await s.jailInit));
  const outcomes = [
    ...(stopping ? [await stopping] : []),
    ...(ended ? [] : [await terminateRun({ runId, pgid, graceMs })]),
  ];
  const killed = new Map<number, KilledProcess>();
  for (const outcome of outcomes) {
    for (const p of outcome.killed) killed.set(p.pid, p);
    for (const p of outcome.survivors) notes.push(`Process ${p.pid} (${p.command}) could not be killed.`);
  }

  const drained = drainedFirst ?? (await drain(output, graceMs));
  if (!drained) {
    output.detach();
    notes.push('A process outside the run still held the output open; reading stopped when the run ended.');
  }
  const setupFailure = isolation === 'bwrap' && exit.code === 1 ? bwrapSetupFailure(output) : undefined;
  if (setupFailure !== undefined) {
    await output.discard();
    return sandboxError(
      'isolation-failed',
      `bubblewrap could not set up the sandbox (${setupFailure}); the command did not run.`,
    );
  }
  const timedOut = stopReason === 'timeout';
  const aborted = stopReason === 'abort';
  const failed = exit.code !== 0 || stopReason !== undefined;
  const captured = await output.finish(failed);
  if (timedOut) notes.push(`The command did not finish within ${profile.timeoutMs} ms and was stopped.`);
  if (aborted) notes.push('The call was aborted and the command was stopped.');
  if (stopReason === 'output') {
    notes.push(`The command wrote more than ${profile.maxOutputBytes} bytes of output and was stopped.`);
  }
  if (stopReason === undefined && killed.size > 0) {
    const list = [...killed.values()].map((p) => `${p.pid} (${p.command})`).join(', ');
    notes.push(`Processes still running after the command exited were killed: ${list}.`);
  }
  return {
    ok: true,
    exitCode: exit.code,
    signal: exit.signal,
    timedOut,
    aborted,
    output: captured,
    killed: [...killed.values()].sort((a, b) => a.pid - b.pid),
    isolation,
    isolationLimits,
    notes,
    durationMs: performance.now() - s.started,
    runId,
  };
}

/** Whether every holder of the output closed it within the grace period. */
async function drain(output: OutputCapture, graceMs: number): Promise<boolean> {
  const giveUp = new AbortController();
  const drained = await Promise.race([
    output.drained().then(() => true),
    sleep(graceMs, false, { signal: giveUp.signal }).catch(() => false),
  ]);
  // A pending timer would keep a short-lived process (the CLI) alive for the grace period.
  giveUp.abort();
  return drained;
}

function commandOf(request: RunRequest): string[] | SandboxError {
  const { argv, script } = request;
  if ((argv === undefined) === (script === undefined)) {
    return sandboxError('invalid-request', 'Give exactly one of argv and script.');
  }
  if (script !== undefined) {
    if (script.trim() === '') return sandboxError('invalid-request', 'The script is empty.');
    if (script.includes('\0')) return sandboxError('invalid-request', 'The script contains a NUL byte.');
    return ['bash', '-c', script];
  }
  if (argv!.length === 0 || argv![0] === '') return sandboxError('invalid-request', 'argv is empty.');
  if (argv!.some((a) => typeof a !== 'string' || a.includes('\0'))) {
    return sandboxError('invalid-request', 'argv must be strings without NUL bytes.');
  }
  return [...argv!];
}
