import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolResult } from '../pipeline/tool.js';
import { writeCheckedFile } from '../sandbox/open-write.js';
import { absoluteField, checkPath } from './file-guard.js';
import { FILE_WRITER_TRAITS } from './file-writer.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';

/**
 * Write: creates or replaces a whole file. The path guard decides where it may land (inside
 * the writable roots, not denied, not protected, not a hard link); the file is opened with
 * O_NOFOLLOW under a pinned parent directory, so a symlink swapped in after the check is not
 * followed.
 */
const inputSchema = z.strictObject({
  file_path: z.string().min(1).describe('The file to write (absolute, or relative to the working directory)'),
  content: z.string().describe('The whole new content of the file'),
});

export type WriteOutput = { type: 'create' | 'update'; file: string; bytes: number } | Refusal;

export const WriteTool = buildTool({
  name: 'Write',
  searchHint: 'write create file save overwrite',
  inputSchema,
  ...FILE_WRITER_TRAITS,
  prompt: () =>
    'Writes a file, replacing it if it exists and creating missing parent directories. Prefer Edit for changing part of an existing file.',
  description: (input) => `Write ${input.file_path}`,
  backfillObservableInput: (input, ctx) => absoluteField(input, 'file_path', ctx),
  async call(input, ctx): Promise<ToolResult<WriteOutput>> {
    const verdict = checkPath(ctx, input.file_path, 'write');
    if (isRefusal(verdict)) return { data: verdict };
    const written = writeCheckedFile(verdict, input.content, { createParents: true });
    if (!written.ok) return { data: refuse('path-denied', written.reason) };
    return { data: { type: verdict.exists ? 'update' : 'create', file: written.path, bytes: written.bytes } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    const verb = output.type === 'create' ? 'created' : 'overwritten';
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: `The file ${output.file} was ${verb} (${output.bytes} bytes).`,
    };
  },
  renderToolUseMessage: (input) => `Write(${input.file_path ?? ''})`,
  renderToolResultMessage: (output) =>
    isRefusal(output) ? `✗ ${output.message}` : `Wrote ${output.bytes} bytes to ${output.file}`,
});
