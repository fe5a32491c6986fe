/**
 * A 64-bit checksum for cache entries, computed by a 103-byte WebAssembly module: a hook
 * process checks a few hundred kilobytes of V8 code cache on every tool call, and node's
 * hashes (node:crypto, node:zlib's crc32) load the stream machinery first, which costs more
 * than the decision itself (~2.5 ms); a JavaScript loop over the words is slower still on a
 * cold start (~4 ms). Compiling this module and hashing 200 KB takes ~0.5 ms.
 *
 * Over the data zero-padded to whole 8-byte words w, little-endian:
 *   h = 0xcbf29ce484222325 ^ length;  for each w: h = (h ^ w) * 0x100000001b3 mod 2^64; h ^= h >>> 32
 * Each step is a bijection of h for a given w and of w for a given h, so damage confined to
 * one word always changes the result. It is not a MAC: see entry.ts.
 *
 * The module, in WebAssembly text (the test holds it to a BigInt rendering of the formula):
 *   (module (memory (export "memory") 1)
 *     (func (export "hash") (param $len i32) (param $h i64) (result i64) (local $i i32)
 *       (block $done (loop $next
 *         (br_if $done (i32.ge_u (local.get $i) (local.get $len)))
 *         (local.set $h (i64.xor
 *           (local.tee $h (i64.mul (i64.xor (local.get $h) (i64.load (local.get $i)))
 *                                  (i64.const 0x100000001b3)))
 *           (i64.shr_u (local.get $h) (i64.const 32))))
 *         (local.set $i (i32.add (local.get $i) (i32.const 8)))
 *         (br $next)))
 *       (local.get $h)))
 */
const MODULE =
  'AGFzbQEAAAABBwFgAn9+AX4DAgEABQMBAAEHEQIGbWVtb3J5AgAEaGFzaAAACjgBNgEBfwJAA0AgAiAATw0BIAEgAikDAIVC' +
  's4OAgIAgfiIBQiCIIAGFIQEgAkEIaiECDAALCyABCw==';
const OFFSET_BASIS = 0xcbf29ce484222325n;
const PAGE = 65_536;

interface Exports {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  hash(length: number, seed: bigint): bigint;
}
// Node's own typings (no DOM library here) leave the WebAssembly constructors out.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: {
    Module: new (bytes: Uint8Array) => object;
    Instance: new (module: object) => { exports: unknown };
  };
};
// The command (main.js) and the hook bundle each carry a copy of this file: one instance, and
// one WebAssembly memory, serves both.
const SHARED = Symbol.for('toolgate.checksum64');
const shared = globalThis as unknown as { [SHARED]?: Exports };
let exports: Exports | undefined;

export function checksum64(data: Uint8Array): bigint {
  exports ??= shared[SHARED] ??= new wasm.Instance(new wasm.Module(Buffer.from(MODULE, 'base64')))
    .exports as Exports;
  const padded = (data.length + 7) & ~7;
  const missing = Math.ceil(padded / PAGE) - exports.memory.buffer.byteLength / PAGE;
  if (missing > 0) exports.memory.grow(missing);
  const memory = new Uint8Array(exports.memory.buffer);
  memory.set(data);
  memory.fill(0, data.length, padded);
  return BigInt.asUintN(64, exports.hash(padded, OFFSET_BASIS ^ BigInt(data.length)));
}
