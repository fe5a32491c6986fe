/**
 * The Messages API shapes a call arrives in and leaves as. A `tool_use` block is the model's
 * proposal; a `tool_result` block, paired to it by `tool_use_id`, is the only answer it gets.
 */
export interface ToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ImageBlock {
  type: 'image';
  source: { type: 'base64'; media_type: string; data: string };
}

export interface DocumentBlock {
  type: 'document';
  source: { type: 'base64'; media_type: 'application/pdf'; data: string };
}

export type ResultContentBlock = TextBlock | ImageBlock | DocumentBlock;

export type ToolResultContent = string | ResultContentBlock[];

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: ToolResultContent;
  is_error?: boolean;
}

/** A block as an untrusted value (from stdin, from a stream) -> a ToolUseBlock, or why not. */
export function readToolUseBlock(
  value: unknown,
): { ok: true; block: ToolUseBlock } | { ok: false; message: string } {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'expected a tool_use block: {"type":"tool_use","id","name","input"}' };
  }
  const v = value as Record<string, unknown>;
  if (v.type !== undefined && v.type !== 'tool_use') {
    return { ok: false, message: `expected a block of type "tool_use", got ${JSON.stringify(v.type)}` };
  }
  if (typeof v.id !== 'string' || v.id === '')
    return { ok: false, message: 'the tool_use block has no "id"' };
  if (typeof v.name !== 'string' || v.name === '') {
    return { ok: false, message: `the tool_use block ${v.id} has no "name"` };
  }
  return { ok: true, block: { type: 'tool_use', id: v.id, name: v.name, input: v.input ?? {} } };
}

/** The text of a result, for previews, hooks and size checks (non-text blocks count as a marker). */
export function resultText(content: ToolResultContent): string {
  if (typeof content === 'string') return content;
  return content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
}

/** Adds text blocks after a result's content (hook context, notes) without losing what is there. */
export function appendText(content: ToolResultContent, texts: readonly string[]): ToolResultContent {
  if (texts.length === 0) return content;
  const extra = texts.map((text): TextBlock => ({ type: 'text', text }));
  if (typeof content === 'string')
    return [...(content === '' ? [] : [{ type: 'text' as const, text: content }]), ...extra];
  return [...content, ...extra];
}
