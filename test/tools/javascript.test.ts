import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-js-');
});
afterEach(() => ws.cleanup());

describe('JavaScript (isolated-vm)', () => {
  it('returns the last value, JSON-copied, with the input as a global', async () => {
    const out = await call(ws.root, 'JavaScript', {
      code: 'const xs = input.map((x) => x * 2); ({ sum: xs.reduce((a, b) => a + b, 0) })',
      input: [1, 2, 3],
    });
    expect(out.result.is_error).toBeUndefined();
    expect(JSON.parse(out.text)).toEqual({ sum: 12 });
  });

  it('has no host access: no require, no process', async () => {
    const out = await call(ws.root, 'JavaScript', { code: 'typeof require + " " + typeof process' });
    expect(out.text).toBe('"undefined undefined"');
  });

  it('stops code at its time limit and at its memory limit; reports thrown errors and syntax errors', async () => {
    const loop = await call(ws.root, 'JavaScript', { code: 'for (;;) {}', timeout: 200 });
    expect(loop.result.is_error).toBe(true);
    expect(loop.text).toContain('timeout');
    const hog = await call(ws.root, 'JavaScript', {
      code: 'const a = []; for (;;) a.push(new Array(1e6).fill(1));',
    });
    expect(hog.result.is_error).toBe(true);
    expect(hog.text).toContain('memory');
    const threw = await call(ws.root, 'JavaScript', { code: 'throw new TypeError("nope")' });
    expect(threw.text).toContain('nope');
    const syntax = await call(ws.root, 'JavaScript', { code: 'let = ;' });
    expect(syntax.result.is_error).toBe(true);
  });
});
