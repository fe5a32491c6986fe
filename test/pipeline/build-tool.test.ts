import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from '../../src/pipeline/build-tool.js';

const def = {
  name: 'T',
  inputSchema: z.strictObject({ x: z.number() }),
  prompt: () => 't',
  description: () => 't',
  async call() {
    return { data: 'ok' };
  },
};

describe('buildTool', () => {
  it('fills defaults that fail closed', async () => {
    const t = buildTool(def);
    expect(t.isReadOnly({ x: 1 })).toBe(false);
    expect(t.isConcurrencySafe({ x: 1 })).toBe(false);
    expect(t.isDestructive({ x: 1 })).toBe(true);
    expect(t.isEnabled()).toBe(true);
    expect(t.interruptBehavior({ x: 1 })).toBe('block');
    expect(t.shouldDefer).toBe(false);
    expect(t.aliases).toEqual([]);
    expect(await t.validateInput({ x: 1 }, {} as never)).toEqual({ result: true });
    expect(await t.checkPermissions({ x: 1 }, {} as never)).toEqual({ behavior: 'passthrough' });
    expect(t.mapToolResultToToolResultBlockParam('ok', 'id1')).toEqual({
      type: 'tool_result',
      tool_use_id: 'id1',
      content: 'ok',
    });
    expect(t.renderToolUseMessage({ x: 1 }, {})).toBe('T(x: 1)');
    expect(t.renderToolUseRejectedMessage({ x: 1 }, 'no', {})).toContain('was not run: no');
  });

  it('a throwing flag function counts as the unsafe answer', () => {
    const boom = () => {
      throw new Error('bug');
    };
    const t = buildTool({
      ...def,
      isReadOnly: boom,
      isConcurrencySafe: boom,
      isDestructive: boom,
      isEnabled: boom,
    });
    expect(t.isReadOnly({ x: 1 })).toBe(false);
    expect(t.isConcurrencySafe({ x: 1 })).toBe(false);
    expect(t.isDestructive({ x: 1 })).toBe(true);
    expect(t.isEnabled()).toBe(false);
  });

  it('a read-only tool is not destructive unless it says so', () => {
    const t = buildTool({ ...def, isReadOnly: () => true });
    expect(t.isDestructive({ x: 1 })).toBe(false);
  });
});
