/**
 * Code that runs inside each fresh context before the caller's code. It is the body of a
 * closure (`evalClosure`): `$0` is the JSON text of the globals, `$1` says whether to make the
 * context deterministic. It returns the function that serializes the result, created before
 * any caller code runs, so the caller's code cannot replace the JSON.stringify it uses.
 *
 * Deterministic mode (policy conditions): the same input must always give the same answer, so
 * everything that reads the clock or a random source throws a TypeError that says so:
 * `Math.random()`, `Date.now()`, `Date()` and `new Date()` without arguments, and
 * `Intl.DateTimeFormat#format()` / `formatToParts()` without a date. `new Date(value)`,
 * `Date.UTC` and `Date.parse` keep working. `WeakRef` and `FinalizationRegistry` (which observe
 * garbage collection) are removed. This is about reproducible answers from honest code; the
 * isolate, not this prelude, is the security boundary.
 *
 * In every mode `WebAssembly` is removed: a Wasm memory is allocated outside the V8 heap, so the
 * isolate's memory limit does not see it (30 conditions that each kept a 64 MiB memory held
 * 2 GB). Nothing else reaches the WebAssembly object once the global is gone.
 */
export const PRELUDE = `
const stringify = JSON.stringify;
delete globalThis.WebAssembly;
const input = JSON.parse($0);
for (const key of Object.keys(input)) {
  Object.defineProperty(globalThis, key, { value: input[key], writable: true, enumerable: true, configurable: true });
}
if ($1) {
  const unavailable = (what) => function () {
    throw new TypeError(what + ' is not available: conditions must give the same answer every time');
  };
  Object.defineProperty(Math, 'random', { value: unavailable('Math.random()'), writable: false, configurable: false });
  const RealDate = Date;
  const noClock = unavailable('the current time (Date.now(), new Date() without arguments)');
  const DeterministicDate = function Date(...args) {
    if (new.target === undefined || args.length === 0) noClock();
    return Reflect.construct(RealDate, args, new.target);
  };
  DeterministicDate.prototype = RealDate.prototype;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: DeterministicDate, writable: false, configurable: false });
  DeterministicDate.UTC = RealDate.UTC;
  DeterministicDate.parse = RealDate.parse;
  DeterministicDate.now = noClock;
  Object.defineProperty(globalThis, 'Date', { value: DeterministicDate, writable: false, configurable: false });
  if (typeof Intl === 'object' && Intl.DateTimeFormat) {
    const proto = Intl.DateTimeFormat.prototype;
    for (const name of ['format', 'formatToParts']) {
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      const original = descriptor && (descriptor.get ? descriptor.get : null);
      const method = descriptor && descriptor.value;
      if (original) {
        Object.defineProperty(proto, name, { configurable: false, get() {
          const bound = original.call(this);
          return (date) => (date === undefined ? noClock() : bound(date));
        } });
      } else if (typeof method === 'function') {
        Object.defineProperty(proto, name, { configurable: false, writable: false, value(date) {
          return date === undefined ? noClock() : method.call(this, date);
        } });
      }
    }
  }
  delete globalThis.WeakRef;
  delete globalThis.FinalizationRegistry;
}
return function serialize(value) {
  if (value === undefined) return 'u';
  const type = typeof value;
  if (type === 'function' || type === 'symbol' || type === 'bigint') return 'n' + type;
  if (value && typeof value.then === 'function') return 'npromise';
  try {
    const text = stringify(value);
    return text === undefined ? 'n' + type : 'j' + text;
  } catch (err) {
    return 'n' + (err && err.message ? err.message : String(err));
  }
};
`;
