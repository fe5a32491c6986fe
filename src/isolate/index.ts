/**
 * A leaf module (no imports from other toolgate folders): src/policy runs `when:` conditions
 * with it, and the JavaScript tool runs code with it, without either depending on src/sandbox.
 */
export {
  type ChildCommand,
  createChildIsolateRunner,
  createIsolateRunnerFor,
  serveIsolateRunner,
} from './child-runner.js';
export { hasNoSnapshotFlag, loadIsolatedVm } from './load.js';
export {
  type CodeKind,
  type CompiledCode,
  type CompileOutcome,
  createIsolateRunner,
  type IsolateRunner,
  type IsolateRunnerOptions,
  type RunErrorKind,
  type RunOutcome,
} from './runner.js';
