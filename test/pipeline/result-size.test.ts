import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { maxToolUseConcurrency } from '../../src/pipeline/concurrency.js';
import { boundResult } from '../../src/pipeline/result-size.js';
import { type Workspace, workspace } from './fixture.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-results-');
});
afterEach(() => ws.cleanup());

describe('boundResult', () => {
  it('keeps a small result; spills a large one to a private file with a preview and the path', async () => {
    const small = { type: 'tool_result' as const, tool_use_id: 'a', content: 'short' };
    expect(await boundResult(small, 100, ws.root)).toBe(small);
    const text = 'x'.repeat(5000);
    const big = await boundResult(
      { type: 'tool_result', tool_use_id: 'b/../c', content: text },
      1000,
      ws.root,
    );
    const content = big.content as string;
    expect(content.length).toBeLessThan(1500);
    const file = /The full result is in (\S+);/.exec(content)?.[1];
    expect(file).toBeDefined();
    expect(path.dirname(file!)).toBe(ws.root);
    expect(fs.readFileSync(file!, 'utf8')).toBe(text);
    expect(fs.statSync(file!).mode & 0o777).toBe(0o600);
  });

  it('an unbounded tool (Read) is never spilled', async () => {
    const block = { type: 'tool_result' as const, tool_use_id: 'r', content: 'y'.repeat(10_000) };
    expect(await boundResult(block, Number.POSITIVE_INFINITY, ws.root)).toBe(block);
  });
});

describe('maxToolUseConcurrency', () => {
  it('TOOLGATE_ first, then CLAUDE_CODE_; unset, unparseable or 0 means 10', () => {
    expect(maxToolUseConcurrency({})).toBe(10);
    expect(
      maxToolUseConcurrency({
        TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '3',
        CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '5',
      }),
    ).toBe(3);
    expect(maxToolUseConcurrency({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '5' })).toBe(5);
    expect(
      maxToolUseConcurrency({
        TOOLGATE_MAX_TOOL_USE_CONCURRENCY: 'lots',
        CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '5',
      }),
    ).toBe(5);
    expect(maxToolUseConcurrency({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '0' })).toBe(10);
    expect(maxToolUseConcurrency({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '-2' })).toBe(10);
    expect(maxToolUseConcurrency({ TOOLGATE_MAX_TOOL_USE_CONCURRENCY: '2.5' })).toBe(10);
    expect(maxToolUseConcurrency({}, 4)).toBe(4);
  });
});
