import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checksum64 } from '../../src/cache/checksum.js';

/** The formula checksum.ts documents, in BigInt arithmetic: the WebAssembly must agree. */
function reference(data: Uint8Array): bigint {
  const padded = Buffer.alloc((data.length + 7) & ~7);
  padded.set(data);
  const mask = (1n << 64n) - 1n;
  let h = 0xcbf29ce484222325n ^ BigInt(data.length);
  for (let i = 0; i < padded.length; i += 8) {
    h = ((h ^ padded.readBigUInt64LE(i)) * 0x100000001b3n) & mask;
    h ^= h >> 32n;
  }
  return h;
}

describe('checksum64', () => {
  it('is the documented formula, for any data (and after bigger data grew its memory)', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (data) => checksum64(data) === reference(data)));
    const big = new Uint8Array(200_000).map((_, i) => (i * 7919) & 0xff);
    expect(checksum64(big)).toBe(reference(big));
    expect(checksum64(new Uint8Array([1, 2, 3]))).toBe(reference(new Uint8Array([1, 2, 3])));
  });

  it('changes when any byte changes, and tells lengths apart when the padding is zeros', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 2000 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (data, at, bits) => {
          const damaged = Uint8Array.from(data);
          damaged[at % data.length]! ^= bits;
          return checksum64(damaged) !== checksum64(data);
        },
      ),
    );
    expect(checksum64(new Uint8Array([1, 0]))).not.toBe(checksum64(new Uint8Array([1])));
    expect(checksum64(new Uint8Array(0))).not.toBe(checksum64(new Uint8Array(8)));
  });
});
