import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DurableAnswers } from '../../src/cli/durable-answers.js';

/** check --stdin's output: in input order, each answer only after its record is durable (#18 item 3). */
function sink() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (c: Buffer) => {
    text += c.toString();
  });
  return { out, text: () => text };
}

function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('DurableAnswers', () => {
  it('prints nothing before its record is durable, and nothing after an answer still waiting', async () => {
    const s = sink();
    const a = new DurableAnswers(s.out);
    const first = deferred();
    await a.push('1\n', first.promise);
    await a.push('bad line\n'); // no record, but it comes after 1
    await a.push('3\n', Promise.resolve());
    await tick();
    expect(s.text()).toBe('');
    first.resolve();
    await a.finish();
    expect(s.text()).toBe('1\nbad line\n3\n');
  });

  it('after a record fails, neither its answer nor a later one is printed, and finish() throws', async () => {
    const s = sink();
    const a = new DurableAnswers(s.out);
    await a.push('1\n', Promise.resolve());
    const failing = deferred();
    await a.push('2\n', failing.promise);
    await a.push('3\n', Promise.resolve());
    failing.reject(new Error('disk full'));
    await expect(a.finish()).rejects.toThrow('disk full');
    await expect(a.push('4\n', Promise.resolve())).rejects.toThrow('disk full');
    expect(s.text()).toBe('1\n');
  });

  it('whatever order records become durable in, answers come out in input order and only durable ones', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ delay: fc.nat(3), fails: fc.boolean() }), { maxLength: 30 }),
        fc.integer({ min: 1, max: 8 }),
        async (lines, window) => {
          const s = sink();
          const a = new DurableAnswers(s.out, window);
          for (const [i, l] of lines.entries()) {
            const durable = new Promise<void>((res, rej) =>
              setTimeout(() => (l.fails ? rej(new Error(`line ${i}`)) : res()), l.delay),
            );
            await a.push(`${i}\n`, durable).catch(() => {});
          }
          const firstFail = lines.findIndex((l) => l.fails);
          if (firstFail < 0) await a.finish();
          else await expect(a.finish()).rejects.toThrow();
          const upTo = firstFail < 0 ? lines.length : firstFail;
          // Every answer before the first failing record (in input order) is printed, even when a
          // later record failed sooner; none from the failing one on.
          expect(s.text()).toBe(Array.from({ length: upTo }, (_, i) => `${i}\n`).join(''));
        },
      ),
      { numRuns: 60, seed: 18 },
    );
  });
});
