/**
 * The sandbox layer: the limits a Decision's SandboxProfile sets, enforced around a call.
 * The policy decides the limits; this layer obeys them and computes none of its own.
 */
export { type BwrapPlan, type BwrapProbe, planBwrap, probeBwrap } from './bwrap.js';
export { BASELINE_ENV, buildChildEnv, type ChildEnv, isSecretName, SECRET_PATTERNS } from './env.js';
export type { SandboxError, SandboxErrorKind } from './error.js';
export {
  type OpenedForWrite,
  type OpenForWriteOptions,
  openCheckedForWrite,
  openForWrite,
  writeCheckedFile,
} from './open-write.js';
export { type CapturedOutput, removeSpill, type StreamName } from './output.js';
export {
  checkWriteTargets,
  createPathGuard,
  type PathAccess,
  type PathDenial,
  type PathGuard,
  type PathGuardOptions,
  type PathLimits,
  type PathVerdict,
  type WriteTargetsVerdict,
} from './paths.js';
export { preflight } from './preflight.js';
export { findRunProcesses, type KilledProcess, type ProcessInfo, RUN_ID_VARIABLE } from './process-tree.js';
export { protectedEntryOf } from './protected.js';
export { DEFAULT_KILL_GRACE_MS, type RunRequest, type RunResult, runSandboxed } from './run.js';
