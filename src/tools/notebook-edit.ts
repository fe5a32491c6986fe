import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolResult } from '../pipeline/tool.js';
import { writeCheckedFile } from '../sandbox/open-write.js';
import { absoluteField, checkPath, openApprovedForRead } from './file-guard.js';
import { FILE_WRITER_TRAITS } from './file-writer.js';
import { editNotebook } from './notebook.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';

/**
 * NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook. Replacing a code
 * cell clears its outputs (they belonged to the old source). Same path rules as Edit.
 */
const inputSchema = z.strictObject({
  notebook_path: z.string().min(1).describe('The .ipynb file to change'),
  cell_id: z
    .string()
    .optional()
    .describe('The cell to change (its id, or cell-N); for insert, the new cell goes after it'),
  new_source: z.string().default('').describe('The new source of the cell (ignored for delete)'),
  cell_type: z.enum(['code', 'markdown']).optional().describe('The cell type (required for insert)'),
  edit_mode: z.enum(['replace', 'insert', 'delete']).default('replace'),
});

export type NotebookEditOutput =
  | { file: string; mode: 'replace' | 'insert' | 'delete'; cellId: string }
  | Refusal;

export const NotebookEditTool = buildTool({
  name: 'NotebookEdit',
  searchHint: 'jupyter notebook ipynb cell edit insert delete',
  inputSchema,
  ...FILE_WRITER_TRAITS,
  prompt: () =>
    'Changes one cell of a Jupyter notebook (.ipynb): edit_mode replace (default), insert (after cell_id, or first when no cell_id; needs cell_type) or delete. Read the notebook first to see cell ids.',
  description: (input) => `${input.edit_mode} a cell of ${input.notebook_path}`,
  validateInput: async (input) =>
    path.extname(input.notebook_path).toLowerCase() === '.ipynb'
      ? { result: true }
      : {
          result: false,
          message: `${input.notebook_path} is not a .ipynb notebook; use Edit for other files.`,
        },
  backfillObservableInput: (input, ctx) => absoluteField(input, 'notebook_path', ctx),
  async call(input, ctx): Promise<ToolResult<NotebookEditOutput>> {
    const verdict = checkPath(ctx, input.notebook_path, 'write');
    if (isRefusal(verdict)) return { data: verdict };
    const readable = checkPath(ctx, input.notebook_path, 'read');
    if (isRefusal(readable)) return { data: readable };
    if (!verdict.exists) return { data: refuse('not-found', `Notebook does not exist: ${verdict.literal}.`) };
    const opened = openApprovedForRead(ctx, readable);
    if (isRefusal(opened)) return { data: opened };
    let text: string;
    try {
      if (!opened.stat.isFile())
        return { data: refuse('not-a-file', `${verdict.literal} is not a regular file.`) };
      text = fs.readFileSync(opened.fd, 'utf8');
    } catch (err) {
      return { data: refuse('failed', `Cannot read ${verdict.literal}: ${(err as Error).message}.`) };
    } finally {
      fs.closeSync(opened.fd);
    }
    const edited = editNotebook(text, {
      cellId: input.cell_id,
      newSource: input.new_source,
      cellType: input.cell_type,
      mode: input.edit_mode,
    });
    if (isRefusal(edited)) return { data: edited };
    const written = writeCheckedFile(verdict, edited.text);
    if (!written.ok) return { data: refuse('path-denied', written.reason) };
    return { data: { file: written.path, mode: input.edit_mode, cellId: edited.cellId } };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    const verbs = { replace: 'Replaced', insert: 'Inserted', delete: 'Deleted' } as const;
    const verb = verbs[output.mode];
    return {
      type: 'tool_result',
      tool_use_id: toolUseId,
      content: `${verb} cell ${output.cellId} in ${output.file}.`,
    };
  },
  renderToolUseMessage: (input) =>
    `NotebookEdit(${input.notebook_path ?? ''}, ${input.edit_mode ?? 'replace'})`,
});
