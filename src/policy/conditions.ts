import type { Context, Reference } from 'isolated-vm';
import { HARDEN } from '../isolate/harden.js';
import { loadIsolatedVm } from '../isolate/index.js';
import { PRELUDE } from '../isolate/prelude.js';
import type { CompiledPolicy } from './compile.js';
import type { ConditionContext, ConditionEvaluator, ConditionResult } from './rule-match.js';

/**
 * `when:` conditions, run in isolated-vm: one warm isolate per policy, each expression compiled
 * once into a function of (input, tool, cwd, mode, facts, command), called with JSON copies of
 * the request under a time and memory limit, in a context whose shared state is frozen
 * (isolate/harden.ts): no call can leave anything behind for the next. No clock, no randomness, no host objects: the
 * same request always gets the same answer. Anything but `true` or `false` is an error, and an
 * error fails closed (see rule-match.ts).
 */
export interface ConditionLimits {
  readonly timeoutMs?: number;
  readonly memoryLimitMb?: number;
}

/** Our own set-up code (prelude, freezing), not the condition's: a bound for a loaded machine. */
const SETUP_TIMEOUT_MS = 2_000;

const PARAMS = ['input', 'tool', 'cwd', 'mode', 'facts', 'command'] as const;

export async function prepareConditions(
  policy: CompiledPolicy,
  limits: ConditionLimits = {},
): Promise<ConditionEvaluator | undefined> {
  if (!policy.hasConditions) return undefined;
  const loaded = await loadIsolatedVm();
  if (!loaded.ok) {
    const message = loaded.message;
    return { evaluate: () => ({ ok: false, error: message }) };
  }
  const ivm = loaded.ivm;
  const timeout = Math.max(1, limits.timeoutMs ?? 50);
  const memoryLimit = Math.max(8, limits.memoryLimitMb ?? 16);
  let isolate = new ivm.Isolate({ memoryLimit });
  let context: Context | undefined;
  let functions = new Map<string, Reference | { error: string }>();

  // One context for every expression: the shared prelude, in deterministic mode (no clock, no
  // randomness), then everything the calls can reach is frozen, so no call (of this expression
  // or another) leaves state for the next.
  const hardenedContext = (): Context => {
    if (context === undefined) {
      const made = isolate.createContextSync();
      made.evalClosureSync(PRELUDE, ['{}', true], { timeout: SETUP_TIMEOUT_MS });
      made.evalClosureSync(HARDEN, [], { timeout: SETUP_TIMEOUT_MS });
      context = made;
    }
    return context;
  };

  const functionFor = (expression: string): Reference | { error: string } => {
    if (isolate.isDisposed) {
      isolate = new ivm.Isolate({ memoryLimit });
      context = undefined;
      functions = new Map();
    }
    let fn = functions.get(expression);
    if (fn === undefined) {
      try {
        const source = `(function (${PARAMS.join(', ')}) { "use strict"; return (\n${expression}\n); })`;
        fn = hardenedContext().evalSync(source, { timeout, reference: true }) as Reference;
      } catch (err) {
        fn = { error: `condition does not compile: ${messageOf(err)}` };
      }
      functions.set(expression, fn);
    }
    return fn;
  };

  return {
    dispose() {
      if (!isolate.isDisposed) isolate.dispose();
    },
    evaluate(expression: string, ctx: ConditionContext): ConditionResult {
      const fn = functionFor(expression);
      if ('error' in fn) return { ok: false, error: fn.error };
      try {
        const args = PARAMS.map((p) => new ivm.ExternalCopy(json(ctx[p])).copyInto());
        const value = fn.applySync(undefined, args, { timeout, result: { copy: true } });
        if (value === true || value === false) return { ok: true, value };
        return { ok: false, error: `condition returned ${typeof value}, not true or false` };
      } catch (err) {
        if (isolate.isDisposed) return { ok: false, error: 'condition ran out of memory and was stopped' };
        const msg = messageOf(err);
        return {
          ok: false,
          error: /timed out/i.test(msg)
            ? `condition did not finish within ${timeout} ms`
            : `condition threw: ${msg}`,
        };
      }
    },
  };
}

/** Values cross into the isolate as JSON: no prototypes, no functions, no host references. */
function json(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
