import type { ImageBlock, ResultContentBlock, TextBlock } from '../pipeline/blocks.js';

/**
 * MCP content (tool results, resource contents) -> the content blocks of a tool_result.
 * Text stays text; images the Messages API accepts become image blocks and PDFs document
 * blocks; everything else the model cannot take (audio, other binaries) becomes a line of
 * text saying what was left out, so nothing disappears silently and nothing malformed is sent.
 */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** The shapes read here, loosely typed: they come from another process. */
interface McpContent {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  resource?: unknown;
}

interface McpResourceContents {
  uri?: unknown;
  mimeType?: unknown;
  text?: unknown;
  blob?: unknown;
}

export function mcpContentBlocks(content: readonly unknown[]): ResultContentBlock[] {
  return content.map((c) => contentBlock((c ?? {}) as McpContent));
}

function contentBlock(c: McpContent): ResultContentBlock {
  switch (c.type) {
    case 'text':
      return text(typeof c.text === 'string' ? c.text : '');
    case 'image':
      return binary(str(c.mimeType), c.data) ?? text(`[an image (${str(c.mimeType)}) was left out]`);
    case 'audio':
      return text(`[audio (${str(c.mimeType)}) was left out: it cannot be passed to the model]`);
    case 'resource':
      return resourceBlock((c.resource ?? {}) as McpResourceContents);
    case 'resource_link':
      return text(`[resource link: ${str(c.name)} <${str(c.uri)}>]`);
    default:
      return text(`[content of type ${JSON.stringify(c.type)} was left out]`);
  }
}

/** One item of `resources/read` contents, or an embedded resource. */
export function resourceBlock(r: McpResourceContents): ResultContentBlock {
  const uri = str(r.uri);
  if (typeof r.text === 'string') return text(`[resource ${uri}]\n${r.text}`);
  const block = binary(str(r.mimeType), r.blob);
  if (block) return block;
  const size = typeof r.blob === 'string' ? `, ${Math.floor((r.blob.length * 3) / 4)} bytes` : '';
  return text(`[resource ${uri} (${str(r.mimeType)}${size}) is binary and was left out]`);
}

function binary(mimeType: string, data: unknown): ResultContentBlock | undefined {
  if (typeof data !== 'string' || data === '') return undefined;
  if (IMAGE_TYPES.has(mimeType)) {
    const image: ImageBlock = { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
    return image;
  }
  if (mimeType === 'application/pdf') {
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } };
  }
  return undefined;
}

function text(value: string): TextBlock {
  return { type: 'text', text: value };
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : 'unknown';
}
