import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ResultContentBlock, ToolResultBlock } from '../pipeline/blocks.js';
import { buildTool } from '../pipeline/build-tool.js';
import { absoluteField, checkPath, openApprovedForRead } from './file-guard.js';
import { renderNotebook } from './notebook.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';

/**
 * Read: a text file as numbered lines (`cat -n`), a window of it with offset/limit, an image
 * or a PDF as a content block the model can see, a notebook as its cells. Read bounds its own
 * output (lines, line length, bytes), so the pipeline never spills it to a file: a spilled
 * Read would only tell the model to Read the spill.
 */
export const DEFAULT_READ_LINES = 2_000;
export const MAX_LINE_CHARS = 2_000;
/** Whole-file reads of text larger than this must page with offset/limit. */
export const MAX_TEXT_BYTES = 256 * 1024;
export const MAX_OUTPUT_CHARS = 100_000;
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_PDF_BYTES = 20 * 1024 * 1024;

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

const inputSchema = z.strictObject({
  file_path: z.string().min(1).describe('The file to read (absolute, or relative to the working directory)'),
  offset: z.number().int().min(1).optional().describe('The line to start at (1-based)'),
  limit: z.number().int().min(1).optional().describe('How many lines to read (default 2000)'),
});

export type ReadOutput =
  | {
      kind: 'text';
      file: string;
      text: string;
      lines: number;
      startLine: number;
      totalLines: number;
      truncated: boolean;
    }
  | { kind: 'blocks'; file: string; blocks: ResultContentBlock[]; bytes: number }
  | Refusal;

export const ReadTool = buildTool({
  name: 'Read',
  searchHint: 'read file view open cat image pdf notebook',
  inputSchema,
  maxResultSizeChars: Number.POSITIVE_INFINITY,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => 'cancel',
  prompt: () =>
    'Reads a file. Text comes back as numbered lines (cat -n), at most 2000 lines from `offset`; use offset and limit for long files. Images (png, jpg, gif, webp) and PDFs come back as content you can see; .ipynb notebooks as their cells.',
  description: (input) => `Read ${input.file_path}`,
  userFacingName: () => 'Read',
  backfillObservableInput: (input, ctx) => absoluteField(input, 'file_path', ctx),
  async call(input, ctx) {
    return { data: readFile(ctx, input.file_path, input.offset, input.limit) };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId): ToolResultBlock {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    if (output.kind === 'blocks')
      return { type: 'tool_result', tool_use_id: toolUseId, content: output.blocks };
    let content = output.text;
    if (output.totalLines === 0) content = `(${output.file} exists but is empty)`;
    else if (output.lines === 0)
      content = `(${output.file} has ${output.totalLines} lines; none at line ${output.startLine} or after)`;
    else if (output.truncated) {
      const next = output.startLine + output.lines;
      content += `\n\n… [showing lines ${output.startLine}-${next - 1} of ${output.totalLines}; continue with offset ${next}]`;
    }
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
  renderToolUseMessage: (input) => `Read(${input.file_path ?? ''})`,
  renderToolResultMessage: (output) =>
    isRefusal(output)
      ? `✗ ${output.message}`
      : output.kind === 'text'
        ? `Read ${output.lines} line${output.lines === 1 ? '' : 's'}`
        : `Read ${output.bytes} bytes (${output.blocks[0]?.type ?? 'content'})`,
});

function readFile(
  ctx: Parameters<typeof checkPath>[0],
  file: string,
  offset?: number,
  limit?: number,
): ReadOutput {
  const verdict = checkPath(ctx, file, 'read');
  if (isRefusal(verdict)) return verdict;
  if (!verdict.exists)
    return refuse('not-found', `File does not exist: ${verdict.literal} (working directory: ${ctx.cwd}).`);
  const opened = openApprovedForRead(ctx, verdict);
  if (isRefusal(opened)) return opened;
  const { fd, stat } = opened;
  try {
    if (stat.isDirectory())
      return refuse('not-a-file', `${verdict.literal} is a directory; list it with Glob or Bash ls.`);
    if (!stat.isFile()) return refuse('not-a-file', `${verdict.literal} is not a regular file.`);
    const ext = path.extname(verdict.path).toLowerCase();
    const image = IMAGE_TYPES[ext];
    if (image)
      return binaryBlock(fd, stat.size, MAX_IMAGE_BYTES, verdict.literal, (data) => ({
        type: 'image',
        source: { type: 'base64', media_type: image, data },
      }));
    if (ext === '.pdf')
      return binaryBlock(fd, stat.size, MAX_PDF_BYTES, verdict.literal, (data) => ({
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data },
      }));
    const explicitWindow = offset !== undefined || limit !== undefined;
    if (stat.size > MAX_TEXT_BYTES && !explicitWindow) {
      return refuse(
        'too-large',
        `${verdict.literal} has ${stat.size} bytes, more than the ${MAX_TEXT_BYTES} a whole-file read returns; read a part with offset and limit, or search it with Grep.`,
      );
    }
    const buffer = fs.readFileSync(fd);
    if (buffer.subarray(0, 8192).includes(0)) {
      return refuse('binary', `${verdict.literal} is a binary file; Read shows text, images and PDFs only.`);
    }
    const text = buffer.toString('utf8');
    if (ext === '.ipynb') {
      const rendered = renderNotebook(text);
      if (!isRefusal(rendered)) return numbered(verdict.literal, rendered, offset, limit);
    }
    return numbered(verdict.literal, text, offset, limit);
  } catch (err) {
    return refuse('failed', `Reading ${verdict.literal} failed: ${(err as Error).message}.`);
  } finally {
    fs.closeSync(fd);
  }
}

function binaryBlock(
  fd: number,
  size: number,
  max: number,
  file: string,
  make: (data: string) => ResultContentBlock,
): ReadOutput {
  if (size > max)
    return refuse(
      'too-large',
      `${file} has ${size} bytes, more than the ${max} Read returns for this kind of file.`,
    );
  const data = fs.readFileSync(fd).toString('base64');
  return { kind: 'blocks', file, blocks: [make(data)], bytes: size };
}

/** `cat -n` numbering: six-wide right-aligned line numbers and a tab. */
export function numbered(file: string, text: string, offset = 1, limit = DEFAULT_READ_LINES): ReadOutput {
  const all = text.split(/\r?\n/);
  if (all.length > 0 && all[all.length - 1] === '') all.pop();
  const start = offset - 1;
  const out: string[] = [];
  let chars = 0;
  let truncated = false;
  for (let i = start; i < all.length && out.length < limit; i++) {
    let line = all[i]!;
    if (line.length > MAX_LINE_CHARS)
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters]`;
    const entry = `${String(i + 1).padStart(6)}\t${line}`;
    if (chars + entry.length > MAX_OUTPUT_CHARS && out.length > 0) {
      truncated = true;
      break;
    }
    out.push(entry);
    chars += entry.length + 1;
  }
  if (start + out.length < all.length) truncated = true;
  return {
    kind: 'text',
    file,
    text: out.join('\n'),
    lines: out.length,
    startLine: offset,
    totalLines: all.length,
    truncated,
  };
}
