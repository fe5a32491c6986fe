import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mcpContentBlocks, resourceBlock } from '../../src/adapters/mcp-content.js';
import { callToolResultBlock } from '../../src/adapters/mcp-tool.js';

/**
 * MCP content from another process -> content blocks the Messages API accepts: one block per
 * item, whatever the item holds, and never a block the API would refuse.
 */
const item = fc.oneof(
  fc.record({ type: fc.constant('text'), text: fc.oneof(fc.string(), fc.integer()) }),
  fc.record({
    type: fc.constant('image'),
    data: fc.oneof(fc.base64String(), fc.constant(''), fc.integer()),
    mimeType: fc.oneof(
      fc.constantFrom('image/png', 'image/jpeg', 'image/svg+xml', 'image/tiff'),
      fc.string(),
    ),
  }),
  fc.record({ type: fc.constant('audio'), data: fc.base64String(), mimeType: fc.string() }),
  fc.record({
    type: fc.constant('resource'),
    resource: fc.oneof(
      fc.record({ uri: fc.webUrl(), text: fc.string() }),
      fc.record({
        uri: fc.webUrl(),
        blob: fc.base64String(),
        mimeType: fc.constantFrom('application/pdf', 'image/gif', 'application/zip'),
      }),
      fc.anything(),
    ),
  }),
  fc.record({ type: fc.constant('resource_link'), uri: fc.webUrl(), name: fc.string() }),
  fc.anything(),
);

function acceptable(block: unknown): boolean {
  const b = block as {
    type: string;
    text?: unknown;
    source?: { type: string; media_type: string; data: string };
  };
  if (b.type === 'text') return typeof b.text === 'string';
  if (b.type === 'image')
    return (
      b.source?.type === 'base64' &&
      ['image/png', 'image/jpeg', 'image/gif', 'image/webp'].includes(b.source.media_type) &&
      b.source.data.length > 0
    );
  if (b.type === 'document') return b.source?.media_type === 'application/pdf' && b.source.data.length > 0;
  return false;
}

describe('MCP content -> tool_result content', () => {
  it('maps every item to exactly one block the API accepts', () => {
    fc.assert(
      fc.property(fc.array(item, { maxLength: 8 }), (content) => {
        const blocks = mcpContentBlocks(content);
        expect(blocks).toHaveLength(content.length);
        for (const b of blocks) expect(acceptable(b), JSON.stringify(b)).toBe(true);
      }),
    );
  });

  it('keeps PDFs and supported images, says what it left out', () => {
    expect(resourceBlock({ uri: 'x://a.pdf', mimeType: 'application/pdf', blob: 'JVBERi0=' })).toEqual({
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
    });
    expect(resourceBlock({ uri: 'x://a.zip', mimeType: 'application/zip', blob: 'AAAA' })).toEqual({
      type: 'text',
      text: '[resource x://a.zip (application/zip, 3 bytes) is binary and was left out]',
    });
    expect(mcpContentBlocks([{ type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' }])).toEqual([
      { type: 'text', text: '[an image (image/svg+xml) was left out]' },
    ]);
  });

  it('turns isError into is_error and shows structured-only results', () => {
    expect(callToolResultBlock({ content: [{ type: 'text', text: 'no' }], isError: true }, 't1')).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: [{ type: 'text', text: 'no' }],
      is_error: true,
    });
    expect(callToolResultBlock({ content: [], structuredContent: { n: 1 } }, 't2')).toEqual({
      type: 'tool_result',
      tool_use_id: 't2',
      content: [{ type: 'text', text: '{"n":1}' }],
    });
  });
});
