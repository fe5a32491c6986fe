import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide, policyFromText } from '../../src/index.js';

/**
 * `when:` conditions are pure functions of the request: the same request gets the same answer
 * however many calls came before, and no call can hold memory the isolate's limit does not see.
 */
let root: string;
beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-conditions-')));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function policyWhen(condition: string) {
  return policyFromText(
    `version: 1\nrules:\n  - allow: "Bash(npm test)"\n    when: ${JSON.stringify(condition)}\n`,
    { root },
  );
}

const request = { tool: 'Bash', input: { command: 'npm test' }, cwd: '' };

describe('when: conditions', () => {
  it('give the same answer however many calls came before: a counter in globalThis throws, every time', async () => {
    const policy = await policyWhen('(globalThis.n = (globalThis.n || 0) + 1) > 2');
    const answers = Array.from({ length: 4 }, () => decide({ ...request, cwd: root }, policy).behavior);
    // Before: ask, ask, allow, allow for one and the same request.
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toBe('ask');
  });

  it("keep state out of the prototypes and the engine's RegExp statics too", async () => {
    const policy = await policyWhen('(Object.prototype.seen ? true : ((Object.prototype.seen = 1), false))');
    const answers = Array.from({ length: 3 }, () => decide({ ...request, cwd: root }, policy).behavior);
    expect(answers).toEqual(['ask', 'ask', 'ask']);
    // RegExp's legacy statics are state the engine itself keeps between matches.
    const statics = await policyWhen("RegExp.$1 === 'b' || (/(b)/.test('b') && false)");
    const again = Array.from({ length: 3 }, () => decide({ ...request, cwd: root }, statics).behavior);
    expect(new Set(again).size).toBe(1);
  });

  it('still run ordinary read-only code', async () => {
    const policy = await policyWhen(
      "/^npm/.test(input.command) && [1, 2].map((x) => x * 2).join() === '2,4' && JSON.stringify({ a: 1 }) === '{\"a\":1}' && new Date(0).getUTCFullYear() === 1970 && new Map([[1, 2]]).get(1) === 2",
    );
    for (let i = 0; i < 3; i++) expect(decide({ ...request, cwd: root }, policy).behavior).toBe('allow');
  });

  it('have no WebAssembly, whose memory the isolate limit does not count; a condition that uses it fails closed', async () => {
    expect(
      decide({ ...request, cwd: root }, await policyWhen('typeof WebAssembly === "undefined"')).behavior,
    ).toBe('allow');
    const hoarder = await policyWhen(
      '((m) => ((globalThis.keep = globalThis.keep || []).push(m), new Uint8Array(m.buffer).fill(1), true))(new WebAssembly.Memory({ initial: 1024 }))',
    );
    const before = process.memoryUsage().rss;
    const answers: string[] = [];
    for (let i = 0; i < 10; i++) {
      const d = decide({ ...request, cwd: root }, hoarder);
      answers.push(d.behavior);
    }
    expect(answers.every((a) => a !== 'allow')).toBe(true);
    // Each call kept (and touched) 64 MiB outside the isolate's 16 MB limit before; allow for
    // noise (up to four of them), not for the ten.
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
  });
});
