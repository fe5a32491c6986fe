import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildTool } from '../../src/pipeline/build-tool.js';
import { RegistryError, ToolRegistry } from '../../src/pipeline/registry.js';
import { runToolUse } from '../../src/pipeline/run-tool-use.js';
import type { AnyTool } from '../../src/pipeline/tool.js';
import { ToolSearchTool } from '../../src/tools/tool-search.js';
import { refuseAll, testContext, use } from './fixture.js';

const make = (name: string, extra: Record<string, unknown> = {}) =>
  buildTool({
    name,
    inputSchema: z.strictObject({ q: z.string().describe('the query'), n: z.number().default(3) }),
    prompt: () => `${name} looks up weather forecasts`,
    description: () => name,
    async call() {
      return { data: 'ok' };
    },
    ...extra,
  }) as AnyTool;

describe('ToolRegistry', () => {
  it('finds by exact name, and by deprecated alias only', () => {
    const agent = make('Agent', { aliases: ['Task'] });
    const reg = new ToolRegistry([agent, make('Read')]);
    expect(reg.find('Agent')).toBe(agent);
    expect(reg.find('Task')).toBe(agent);
    expect(reg.find('agent')).toBeUndefined();
    expect(reg.find('Reed')).toBeUndefined();
  });

  it('refuses duplicate names and aliases that collide', () => {
    expect(() => new ToolRegistry([make('A'), make('A')])).toThrow(RegistryError);
    expect(() => new ToolRegistry([make('A', { aliases: ['B'] }), make('B')])).toThrow(/names both/);
  });

  it('API schemas come from zod (input side), deferred tools carry defer_loading', async () => {
    const reg = new ToolRegistry([
      make('Weather', { shouldDefer: true }),
      make('Read'),
      make('Always', { shouldDefer: true, alwaysLoad: true }),
    ]);
    const schemas = await reg.apiSchemas();
    const weather = schemas.find((s) => s.name === 'Weather')!;
    expect(weather.defer_loading).toBe(true);
    expect(weather.input_schema).toMatchObject({
      type: 'object',
      properties: { q: { type: 'string', description: 'the query' } },
      required: ['q'],
    });
    expect(weather.input_schema).not.toHaveProperty('$schema');
    expect(schemas.find((s) => s.name === 'Read')?.defer_loading).toBeUndefined();
    expect(schemas.find((s) => s.name === 'Always')?.defer_loading).toBeUndefined();
  });

  it('ToolSearch finds deferred tools by name or keyword and returns their schemas', async () => {
    const ctx = await testContext(
      [make('Weather', { shouldDefer: true }), make('Read'), ToolSearchTool as AnyTool],
      process.cwd(),
    );
    const byName = await runToolUse(use('ToolSearch', { query: 'select:Weather' }), ctx, refuseAll);
    const found = JSON.parse(byName.result.content as string);
    expect(found[0]).toMatchObject({ name: 'Weather', input_schema: { type: 'object' } });
    const byWord = await ctx.tools.search('forecast weather');
    expect(byWord[0]?.name).toBe('Weather');
  });
});
