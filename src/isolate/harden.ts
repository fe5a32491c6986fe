/**
 * Code that makes a context's shared state read-only, run once after the prelude in a context
 * that is then used for many calls (policy `when:` conditions: one warm context for all
 * of a policy's expressions, because a fresh context per call costs a millisecond or more and
 * the dead contexts exhausted a 16 MB isolate's heap within a few hundred calls).
 *
 * What could carry state from one call to the next is everything every call can reach:
 * the global object and the intrinsics. All of it is frozen (own properties, accessors and
 * prototypes, walked from the global object and from the intrinsics that no global names, such
 * as the generator and iterator prototypes), the global object included, and RegExp's legacy
 * static properties (`RegExp.$1`, `lastMatch`, ...), which the engine updates on every match,
 * are removed. A call's own objects are new every time. So a condition that tries to remember
 * something (`globalThis.n = ...`) throws, and a thrown condition fails closed: the same
 * request always gets the same answer.
 */
export const HARDEN = `
for (const name of ['$1','$2','$3','$4','$5','$6','$7','$8','$9','$_','$&','$+','$\`',"$'",
    'input','lastMatch','lastParen','leftContext','rightContext']) {
  try { delete RegExp[name]; } catch {}
}
const roots = [
  globalThis,
  Object.getPrototypeOf(function* () {}),
  Object.getPrototypeOf(async function () {}),
  Object.getPrototypeOf(async function* () {}),
  Object.getPrototypeOf([][Symbol.iterator]()),
  Object.getPrototypeOf(new Map()[Symbol.iterator]()),
  Object.getPrototypeOf(new Set()[Symbol.iterator]()),
  Object.getPrototypeOf(''[Symbol.iterator]()),
  Object.getPrototypeOf(/x/[Symbol.matchAll]('')),
  Object.getPrototypeOf(Int8Array),
  Object.getOwnPropertyDescriptor(Function.prototype, 'caller')?.get,
  (function () { 'use strict'; return Object.getOwnPropertyDescriptor(arguments, 'callee').get; })(),
];
const seen = new Set();
const pending = [...roots];
while (pending.length > 0) {
  const value = pending.pop();
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) continue;
  seen.add(value);
  pending.push(Object.getPrototypeOf(value));
  for (const key of Reflect.ownKeys(value)) {
    const d = Reflect.getOwnPropertyDescriptor(value, key);
    if (d === undefined) continue;
    if ('value' in d) pending.push(d.value);
    else pending.push(d.get, d.set);
  }
}
for (const value of seen) Object.freeze(value);
`;
