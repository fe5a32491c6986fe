import fs from 'node:fs';
import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolResult } from '../pipeline/tool.js';
import { writeCheckedFile } from '../sandbox/open-write.js';
import { applyEdit } from './edit-apply.js';
import { absoluteField, checkPath, openApprovedForRead } from './file-guard.js';
import { FILE_WRITER_TRAITS } from './file-writer.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';

/**
 * Edit: replaces an exact string in a file (it must be unique unless replace_all). An empty
 * old_string creates a file that does not exist yet. The file is read and written through the
 * path guard; the write re-opens with O_NOFOLLOW under a pinned parent and refuses if the
 * path changed since it was checked.
 */
const inputSchema = z.strictObject({
  file_path: z.string().min(1).describe('The file to change'),
  old_string: z.string().describe('The exact text to replace (unique in the file unless replace_all)'),
  new_string: z.string().describe('The text to put in its place'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence of old_string'),
});

export type EditOutput = { file: string; replacements: number; created: boolean } | Refusal;

export const EditTool = buildTool({
  name: 'Edit',
  searchHint: 'edit replace change modify string in file',
  inputSchema,
  ...FILE_WRITER_TRAITS,
  prompt: () =>
    'Replaces old_string with new_string in a file. old_string must match the file exactly (whitespace included) and occur once, unless replace_all is true. An empty old_string creates a new file.',
  description: (input) => `Edit ${input.file_path}`,
  backfillObservableInput: (input, ctx) => absoluteField(input, 'file_path', ctx),
  async call(input, ctx): Promise<ToolResult<EditOutput>> {
    const verdict = checkPath(ctx, input.file_path, 'write');
    if (isRefusal(verdict)) return { data: verdict };
    const readable = checkPath(ctx, input.file_path, 'read');
    if (isRefusal(readable)) return { data: readable };
    let original = '';
    if (verdict.exists) {
      const opened = openApprovedForRead(ctx, readable);
      if (isRefusal(opened)) return { data: opened };
      try {
        if (!opened.stat.isFile())
          return { data: refuse('not-a-file', `${verdict.literal} is not a regular file.`) };
        original = fs.readFileSync(opened.fd, 'utf8');
      } catch (err) {
        return { data: refuse('failed', `Cannot read ${verdict.literal}: ${(err as Error).message}.`) };
      } finally {
        fs.closeSync(opened.fd);
      }
    } else if (input.old_string !== '') {
      return {
        data: refuse(
          'not-found',
          `File does not exist: ${verdict.literal}. To create it, use Write or an empty old_string.`,
        ),
      };
    }
    const edited = applyEdit(original, input.old_string, input.new_string, input.replace_all);
    if (isRefusal(edited)) return { data: edited };
    const written = writeCheckedFile(verdict, edited.text, { createParents: !verdict.exists });
    if (!written.ok) return { data: refuse('path-denied', written.reason) };
    return { data: { file: written.path, replacements: edited.replacements, created: !verdict.exists } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    const what = output.created
      ? `The file ${output.file} was created.`
      : `The file ${output.file} was updated (${output.replacements} replacement${output.replacements === 1 ? '' : 's'}).`;
    return { type: 'tool_result', tool_use_id: toolUseId, content: what };
  },
  renderToolUseMessage: (input) => `Edit(${input.file_path ?? ''})`,
  renderToolResultMessage: (output) =>
    isRefusal(output)
      ? `✗ ${output.message}`
      : `Edited ${output.file} (${output.replacements} replacement${output.replacements === 1 ? '' : 's'})`,
});
