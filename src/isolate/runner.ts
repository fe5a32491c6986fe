import type { Context, Isolate, Reference, Script } from 'isolated-vm';
import { type IvmModule, loadIsolatedVm } from './load.js';
import { PRELUDE } from './prelude.js';

/**
 * Runs JavaScript in a V8 isolate with a memory and a time limit: policy `when:` conditions
 * (deterministic) and a future JavaScript tool. The code sees only what it is given: the
 * globals, JSON-copied in; no `require`, no `process`, no host object or callback. Its result
 * is JSON-copied out. Nothing ever runs outside an isolate: if isolated-vm cannot load, every
 * call answers `unavailable`.
 *
 * One warm isolate per runner; each run gets a fresh context, so one run cannot leave anything
 * behind for the next. When a run exhausts the memory limit, V8 disposes the isolate; the
 * runner then makes a new one for the next call and recompiles what it needs transparently.
 * Runs that share the isolate at that moment fail with `memory` too.
 */
export interface IsolateRunnerOptions {
  /** Heap limit of the isolate in MB (isolated-vm's minimum is 8; default 32). */
  memoryLimitMb?: number;
  /** No clock and no randomness (see prelude.ts); for policy conditions. */
  deterministic?: boolean;
}

export type CodeKind = 'expression' | 'script';

/** Code compiled once and reusable across runs (and across isolate replacements). */
export interface CompiledCode {
  readonly kind: CodeKind;
  readonly source: string;
}

export type CompileOutcome =
  | { ok: true; code: CompiledCode }
  | { ok: false; kind: 'syntax' | 'unavailable' | 'memory'; message: string };

export type RunErrorKind = 'timeout' | 'memory' | 'threw' | 'unavailable' | 'not-json';

export type RunOutcome = { ok: true; value: unknown } | { ok: false; kind: RunErrorKind; message: string };

export interface IsolateRunner {
  compile(source: string, options: { kind: CodeKind }): Promise<CompileOutcome>;
  /** `globals` must be a JSON object; each key becomes a global variable. */
  run(
    code: CompiledCode,
    globals: Record<string, unknown>,
    options: { timeoutMs: number },
  ): Promise<RunOutcome>;
  dispose(): void;
}

const MEMORY_MESSAGE = 'the code ran out of memory (the isolate memory limit was reached) and was stopped';
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

interface Compiled extends CompiledCode {
  /** The compiled script per isolate; a replaced isolate simply misses here. */
  scripts: WeakMap<Isolate, Script>;
}

export function createIsolateRunner(options: IsolateRunnerOptions = {}): IsolateRunner {
  const memoryLimit = Math.max(8, Math.floor(options.memoryLimitMb ?? 32));
  const deterministic = options.deterministic ?? false;
  let isolate: Isolate | undefined;
  let disposed = false;

  const current = (ivm: IvmModule): Isolate => {
    if (!isolate || isolate.isDisposed) isolate = new ivm.Isolate({ memoryLimit });
    return isolate;
  };

  const scriptFor = async (ivm: IvmModule, code: Compiled): Promise<{ iso: Isolate; script: Script }> => {
    const iso = current(ivm);
    let script = code.scripts.get(iso);
    if (!script) {
      // The expression wrapper adds a line before the source; keep reported lines true to it.
      const lineOffset = code.kind === 'expression' ? -1 : 0;
      script = await iso.compileScript(wrap(code.kind, code.source), {
        filename: 'file:///code.js',
        lineOffset,
      });
      code.scripts.set(iso, script);
    }
    return { iso, script };
  };

  return {
    async compile(source, { kind }) {
      if (disposed) return { ok: false, kind: 'unavailable', message: 'the isolate runner was disposed' };
      const loaded = await loadIsolatedVm();
      if (!loaded.ok) return { ok: false, kind: 'unavailable', message: loaded.message };
      const code: Compiled = { kind, source, scripts: new WeakMap() };
      try {
        await scriptFor(loaded.ivm, code);
        return { ok: true, code };
      } catch (err) {
        if (isolate?.isDisposed) return { ok: false, kind: 'memory', message: MEMORY_MESSAGE };
        return { ok: false, kind: 'syntax', message: messageOf(err) };
      }
    },

    async run(code, globals, { timeoutMs }) {
      if (disposed) return { ok: false, kind: 'unavailable', message: 'the isolate runner was disposed' };
      const loaded = await loadIsolatedVm();
      if (!loaded.ok) return { ok: false, kind: 'unavailable', message: loaded.message };
      const input = globalsJson(globals);
      if (typeof input !== 'string') return input;
      const deadline = Date.now() + Math.max(1, timeoutMs);
      const remaining = () => Math.max(1, deadline - Date.now());
      let iso: Isolate | undefined;
      let context: Context | undefined;
      const refs: Reference[] = [];
      try {
        const compiled = await scriptFor(loaded.ivm, asCompiled(code));
        iso = compiled.iso;
        context = await iso.createContext();
        const serialize = (await context.evalClosure(PRELUDE, [input, deterministic], {
          timeout: remaining(),
          result: { reference: true },
        })) as Reference;
        refs.push(serialize);
        const result = (await compiled.script.run(context, {
          timeout: remaining(),
          reference: true,
        })) as Reference;
        refs.push(result);
        const encoded = await serialize.apply(undefined, [result.derefInto()], {
          timeout: remaining(),
          result: { copy: true },
        });
        return decode(encoded);
      } catch (err) {
        if (iso?.isDisposed) return { ok: false, kind: 'memory', message: MEMORY_MESSAGE };
        const message = messageOf(err);
        if (/timed out/i.test(message)) {
          return {
            ok: false,
            kind: 'timeout',
            message: `the code did not finish within ${timeoutMs} ms and was stopped`,
          };
        }
        return { ok: false, kind: 'threw', message };
      } finally {
        if (iso && !iso.isDisposed) {
          for (const ref of refs) ref.release();
          context?.release();
        }
      }
    },

    dispose() {
      disposed = true;
      if (isolate && !isolate.isDisposed) isolate.dispose();
      isolate = undefined;
    },
  };
}

/** Code that did not come from `compile` (a hand-made object) is compiled on first use. */
function asCompiled(code: CompiledCode): Compiled {
  if ((code as Partial<Compiled>).scripts instanceof WeakMap) return code as Compiled;
  return { kind: code.kind, source: code.source, scripts: new WeakMap() };
}

/**
 * An expression is compiled as `(source)`. Source that closes the parenthesis can smuggle in
 * statements; that changes nothing about safety, because all of it runs in the same isolate
 * under the same limits.
 */
function wrap(kind: CodeKind, source: string): string {
  return kind === 'expression' ? `(\n${source}\n)` : source;
}

function globalsJson(
  globals: Record<string, unknown>,
): string | { ok: false; kind: 'not-json'; message: string } {
  if (globals === null || typeof globals !== 'object' || Array.isArray(globals)) {
    return { ok: false, kind: 'not-json', message: 'globals must be a plain object' };
  }
  const bad = Object.keys(globals).find((key) => !IDENTIFIER.test(key));
  if (bad !== undefined)
    return { ok: false, kind: 'not-json', message: `"${bad}" is not a valid global name` };
  try {
    const text = JSON.stringify(globals);
    if (typeof text !== 'string') return { ok: false, kind: 'not-json', message: 'globals are not JSON' };
    return text;
  } catch (err) {
    return { ok: false, kind: 'not-json', message: `globals are not JSON: ${messageOf(err)}` };
  }
}

function decode(encoded: unknown): RunOutcome {
  if (typeof encoded !== 'string' || encoded === '') {
    return { ok: false, kind: 'not-json', message: 'the result could not be copied out' };
  }
  const tag = encoded[0];
  const body = encoded.slice(1);
  if (tag === 'u') return { ok: true, value: undefined };
  if (tag === 'j') {
    try {
      return { ok: true, value: JSON.parse(body) };
    } catch {
      return { ok: false, kind: 'not-json', message: 'the result is not valid JSON' };
    }
  }
  return { ok: false, kind: 'not-json', message: `the result cannot be copied out as JSON (${body})` };
}

function messageOf(err: unknown): string {
  if (err instanceof Error)
    return err.name && err.name !== 'Error' ? `${err.name}: ${err.message}` : err.message;
  return String(err);
}
