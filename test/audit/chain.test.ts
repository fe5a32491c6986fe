import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../src/audit/canonical.js';
import { lineHash, seal } from '../../src/audit/chain.js';
import { toUnchainedRecord } from '../../src/audit/entry.js';
import { GENESIS } from '../../src/audit/record.js';
import { arbitraryEntry } from './fixtures/arbitrary.js';

const ctx = {
  engine: '0.1.0',
  grammar: '0.25.1',
  redact: false,
  id: () => '00000000-0000-4000-8000-000000000000',
};

describe('the hash chain', () => {
  it('hashes the canonical JSON of the record without its hash, and links by prev', () => {
    fc.assert(
      fc.property(arbitraryEntry, arbitraryEntry, (a, b) => {
        const first = seal(toUnchainedRecord(a, ctx), {
          seq: 1,
          prev: GENESIS,
          ts: '2025-01-01T00:00:00.000Z',
        });
        const second = seal(toUnchainedRecord(b, ctx), {
          seq: 2,
          prev: first.record.hash,
          ts: '2025-01-01T00:00:00.000Z',
        });
        for (const { record, line } of [first, second]) {
          const { hash, ...rest } = record;
          expect(hash).toBe(createHash('sha256').update(canonicalize(rest), 'utf8').digest('hex'));
          expect(line).toBe(canonicalize(record));
        }
        expect(second.record.prev).toBe(first.record.hash);
      }),
    );
  });

  it("finds the same hash from the bytes of a written line (the verifier's fast path)", () => {
    fc.assert(
      fc.property(arbitraryEntry, (entry) => {
        const { record, line } = seal(toUnchainedRecord(entry, ctx), {
          seq: 7,
          prev: GENESIS,
          ts: '2025-01-01T00:00:00.000Z',
        });
        expect(lineHash(Buffer.from(line))).toEqual({ claimed: record.hash, actual: record.hash });
      }),
    );
  });

  it('says where it put the hash member: the first "hash":" of the line, and the rest is what it hashed', () => {
    // The log's writer trusts hashAt instead of hashing each line again (log.ts selfCheck).
    fc.assert(
      fc.property(arbitraryEntry, (entry) => {
        const { record, line, hashAt } = seal(toUnchainedRecord(entry, ctx), {
          seq: 7,
          prev: GENESIS,
          ts: '2025-01-01T00:00:00.000Z',
        });
        expect(hashAt).toBe(line.indexOf('"hash":"'));
        const member = `"hash":"${record.hash}",`;
        expect(line.slice(hashAt, hashAt + member.length)).toBe(member);
        const { hash, ...rest } = record;
        expect(line.slice(0, hashAt) + line.slice(hashAt + member.length)).toBe(canonicalize(rest));
      }),
    );
  });

  it('gives up on lines without the canonical hash member, rather than guessing', () => {
    expect(lineHash(Buffer.from('{"a":1}'))).toBeUndefined();
    expect(lineHash(Buffer.from(`{"hash":"${'a'.repeat(64)}"}`))).toBeUndefined(); // first member, no comma after
    expect(lineHash(Buffer.from(`{"decision":{}, "hash": "${'a'.repeat(64)}","id":1}`))).toBeUndefined();
  });
});
