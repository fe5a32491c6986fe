import { randomBytes } from 'node:crypto';
import { isRefusal, type Refusal, refuse } from './refusal.js';

/**
 * Jupyter notebooks (.ipynb, nbformat 4) as Read shows them and NotebookEdit changes them.
 * Pure functions over the JSON text, so the edits can be tested without files. A cell is named
 * by its `id` (nbformat 4.5) or by its position as `cell-N` (0-based), which older notebooks
 * without ids need.
 */
export interface NotebookCell {
  cell_type: 'code' | 'markdown' | 'raw';
  id?: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: number | null;
}

export interface Notebook {
  cells: NotebookCell[];
  nbformat?: number;
  nbformat_minor?: number;
  [key: string]: unknown;
}

export type EditMode = 'replace' | 'insert' | 'delete';

export function parseNotebook(text: string): Notebook | Refusal {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return refuse('invalid', `The notebook is not valid JSON: ${(err as Error).message}.`);
  }
  if (value === null || typeof value !== 'object' || !Array.isArray((value as Notebook).cells)) {
    return refuse('invalid', 'The file is not a Jupyter notebook (no "cells" array).');
  }
  return value as Notebook;
}

export function sourceText(cell: NotebookCell): string {
  return Array.isArray(cell.source) ? cell.source.join('') : String(cell.source ?? '');
}

/** Notebook -> text for Read: one block per cell, with the id NotebookEdit needs. */
export function renderNotebook(text: string): string | Refusal {
  const nb = parseNotebook(text);
  if (isRefusal(nb)) return nb;
  return nb.cells
    .map(
      (cell, i) =>
        `<cell id="${cell.id ?? `cell-${i}`}" type="${cell.cell_type}">\n${sourceText(cell)}\n</cell>`,
    )
    .join('\n');
}

export function findCell(nb: Notebook, cellId: string): number {
  const byId = nb.cells.findIndex((c) => c.id === cellId);
  if (byId >= 0) return byId;
  const m = /^cell-(\d+)$/.exec(cellId) ?? /^(\d+)$/.exec(cellId);
  if (m) {
    const n = Number(m[1]);
    if (n < nb.cells.length) return n;
  }
  return -1;
}

export interface CellEdit {
  cellId?: string | undefined;
  newSource: string;
  cellType?: 'code' | 'markdown' | undefined;
  mode: EditMode;
}

/** Applies one edit; returns the new notebook text (indent 1, as Jupyter writes) and the cell touched. */
export function editNotebook(
  text: string,
  edit: CellEdit,
): { text: string; cellId: string; index: number } | Refusal {
  const nb = parseNotebook(text);
  if (isRefusal(nb)) return nb;
  const withIds = (nb.nbformat ?? 4) > 4 || ((nb.nbformat ?? 4) === 4 && (nb.nbformat_minor ?? 0) >= 5);
  const at = edit.cellId === undefined ? -1 : findCell(nb, edit.cellId);
  if (edit.cellId !== undefined && at < 0) {
    return refuse('no-match', `No cell "${edit.cellId}" in the notebook; Read it to see the cell ids.`);
  }
  let index: number;
  if (edit.mode === 'insert') {
    if (edit.cellType === undefined)
      return refuse('invalid', 'Inserting a cell needs cell_type (code or markdown).');
    index = at + 1; // after the named cell; at the start when none is named
    const cell: NotebookCell = { cell_type: edit.cellType, metadata: {}, source: edit.newSource };
    if (withIds) cell.id = randomBytes(4).toString('hex');
    if (edit.cellType === 'code') {
      cell.execution_count = null;
      cell.outputs = [];
    }
    nb.cells.splice(index, 0, cell);
  } else {
    if (at < 0)
      return refuse('invalid', `${edit.mode === 'delete' ? 'Deleting' : 'Replacing'} a cell needs cell_id.`);
    index = at;
    if (edit.mode === 'delete') {
      const [removed] = nb.cells.splice(at, 1);
      return { text: `${JSON.stringify(nb, null, 1)}\n`, cellId: removed?.id ?? `cell-${at}`, index };
    }
    const cell = nb.cells[at]!;
    cell.source = edit.newSource;
    if (edit.cellType !== undefined && edit.cellType !== cell.cell_type) cell.cell_type = edit.cellType;
    if (cell.cell_type === 'code') {
      // The old outputs belong to the old source.
      cell.execution_count = null;
      cell.outputs = [];
    } else {
      delete cell.outputs;
      delete cell.execution_count;
    }
  }
  return { text: `${JSON.stringify(nb, null, 1)}\n`, cellId: nb.cells[index]!.id ?? `cell-${index}`, index };
}
