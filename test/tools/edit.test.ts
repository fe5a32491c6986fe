import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EditTool } from '../../src/tools/edit.js';
import { applyEdit, countOccurrences } from '../../src/tools/edit-apply.js';
import { isRefusal } from '../../src/tools/refusal.js';
import { WriteTool } from '../../src/tools/write.js';
import { allowAll, type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-edit-');
});
afterEach(() => ws.cleanup());

const read = (name: string) => fs.readFileSync(path.join(ws.root, name), 'utf8');

describe('Write', () => {
  it('creates (with parents) and overwrites inside the workspace; flags are honest', async () => {
    const created = await call(
      ws.root,
      'Write',
      { file_path: 'a/b/c.txt', content: 'one' },
      { mode: 'acceptEdits' },
    );
    expect(created.text).toContain('created');
    expect(read('a/b/c.txt')).toBe('one');
    const again = await call(
      ws.root,
      'Write',
      { file_path: 'a/b/c.txt', content: 'two' },
      { mode: 'acceptEdits' },
    );
    expect(again.text).toContain('overwritten');
    expect(read('a/b/c.txt')).toBe('two');
    expect(WriteTool.isReadOnly({ file_path: 'x', content: '' })).toBe(false);
    expect(WriteTool.isConcurrencySafe({ file_path: 'x', content: '' })).toBe(false);
  });

  it('an approved write still cannot leave the writable roots, follow a symlink out, or touch a protected path', async () => {
    const outside = workspace('toolgate-outside-');
    try {
      const escaped = await call(
        ws.root,
        'Write',
        { file_path: path.join(outside.root, 'x.txt'), content: 'x' },
        { canUseTool: allowAll },
      );
      expect(escaped.result.is_error).toBe(true);
      expect(escaped.text).toContain('outside the workspace');
      fs.symlinkSync(outside.root, path.join(ws.root, 'link'));
      const viaLink = await call(
        ws.root,
        'Write',
        { file_path: 'link/y.txt', content: 'y' },
        { canUseTool: allowAll },
      );
      expect(viaLink.result.is_error).toBe(true);
      expect(fs.existsSync(path.join(outside.root, 'y.txt'))).toBe(false);
      const hook = await call(
        ws.root,
        'Write',
        { file_path: '.git/hooks/pre-commit', content: 'evil' },
        { canUseTool: allowAll },
      );
      expect(hook.result.is_error).toBe(true);
      expect(fs.existsSync(path.join(ws.root, '.git/hooks/pre-commit'))).toBe(false);
    } finally {
      outside.cleanup();
    }
  });
});

describe('Edit', () => {
  it('replaces a unique string; refuses a missing or ambiguous one; replace_all changes every one', async () => {
    ws.file('f.txt', 'a b a c');
    const opts = { mode: 'acceptEdits' as const };
    const ambiguous = await call(
      ws.root,
      'Edit',
      { file_path: 'f.txt', old_string: 'a', new_string: 'z' },
      opts,
    );
    expect(ambiguous.text).toContain('occurs 2 times');
    const missing = await call(
      ws.root,
      'Edit',
      { file_path: 'f.txt', old_string: 'q', new_string: 'z' },
      opts,
    );
    expect(missing.text).toContain('not found');
    await call(ws.root, 'Edit', { file_path: 'f.txt', old_string: 'b', new_string: '$&$1' }, opts);
    expect(read('f.txt')).toBe('a $&$1 a c');
    const all = await call(
      ws.root,
      'Edit',
      { file_path: 'f.txt', old_string: 'a', new_string: 'x', replace_all: true },
      opts,
    );
    expect(all.text).toContain('2 replacements');
    expect(read('f.txt')).toBe('x $&$1 x c');
  });

  it('an empty old_string creates a new file; a missing file is otherwise refused', async () => {
    const opts = { mode: 'acceptEdits' as const };
    await call(ws.root, 'Edit', { file_path: 'new.txt', old_string: '', new_string: 'hello' }, opts);
    expect(read('new.txt')).toBe('hello');
    const missing = await call(
      ws.root,
      'Edit',
      { file_path: 'gone.txt', old_string: 'x', new_string: 'y' },
      opts,
    );
    expect(missing.text).toContain('does not exist');
    expect(
      EditTool.isConcurrencySafe({ file_path: 'x', old_string: 'a', new_string: 'b', replace_all: false }),
    ).toBe(false);
  });

  it('property: on arbitrary strings, a unique match is replaced exactly once and nothing else changes', () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.string({ minLength: 1 }),
        fc.string(),
        fc.string(),
        (before, needle, after, replacement) => {
          const text = before + needle + after;
          const result = applyEdit(text, needle, replacement, false);
          const count = countOccurrences(text, needle);
          if (needle === replacement) {
            expect(isRefusal(result)).toBe(true);
            return;
          }
          if (count !== 1) {
            expect(isRefusal(result) && result.kind === 'ambiguous').toBe(true);
            return;
          }
          expect(isRefusal(result)).toBe(false);
          if (!isRefusal(result)) {
            const at = text.indexOf(needle);
            expect(result.text).toBe(text.slice(0, at) + replacement + text.slice(at + needle.length));
          }
        },
      ),
    );
  });

  it('property: replace_all leaves no occurrence when the replacement cannot recreate one', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.string({ minLength: 1 }), (pieces, needle) => {
        const text = pieces.join(needle);
        const result = applyEdit(text, needle, '', true);
        if (countOccurrences(text, needle) === 0) {
          expect(isRefusal(result)).toBe(true);
          return;
        }
        if (isRefusal(result)) throw new Error(result.message);
        expect(result.replacements).toBe(countOccurrences(text, needle));
        expect(result.text).toBe(text.split(needle).join(''));
      }),
    );
  });
});

describe('NotebookEdit', () => {
  const notebook = () =>
    JSON.stringify({
      cells: [
        { cell_type: 'markdown', id: 'm1', metadata: {}, source: ['# Title'] },
        {
          cell_type: 'code',
          id: 'c1',
          metadata: {},
          source: ['1+1'],
          outputs: [{ output_type: 'stream' }],
          execution_count: 3,
        },
      ],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    });
  const cells = () =>
    JSON.parse(read('n.ipynb')).cells as {
      id: string;
      cell_type: string;
      source: unknown;
      outputs?: unknown[];
    }[];
  const opts = { mode: 'acceptEdits' as const };

  it('replaces a cell (clearing code outputs), inserts after a cell, deletes a cell', async () => {
    ws.file('n.ipynb', notebook());
    await call(ws.root, 'NotebookEdit', { notebook_path: 'n.ipynb', cell_id: 'c1', new_source: '2+2' }, opts);
    expect(cells()[1]).toMatchObject({ id: 'c1', source: '2+2', outputs: [], execution_count: null });
    await call(
      ws.root,
      'NotebookEdit',
      {
        notebook_path: 'n.ipynb',
        cell_id: 'm1',
        new_source: 'x = 1',
        cell_type: 'code',
        edit_mode: 'insert',
      },
      opts,
    );
    expect(cells().map((c) => c.cell_type)).toEqual(['markdown', 'code', 'code']);
    expect(cells()[1]?.source).toBe('x = 1');
    await call(
      ws.root,
      'NotebookEdit',
      { notebook_path: 'n.ipynb', cell_id: 'cell-0', edit_mode: 'delete' },
      opts,
    );
    expect(cells().map((c) => c.id)).toEqual([expect.any(String), 'c1']);
  });

  it('refuses an unknown cell, an insert without a type, and a file that is not a notebook', async () => {
    ws.file('n.ipynb', notebook());
    expect(
      (await call(ws.root, 'NotebookEdit', { notebook_path: 'n.ipynb', cell_id: 'zz', new_source: '' }, opts))
        .text,
    ).toContain('No cell "zz"');
    expect(
      (
        await call(
          ws.root,
          'NotebookEdit',
          { notebook_path: 'n.ipynb', edit_mode: 'insert', new_source: 'a' },
          opts,
        )
      ).text,
    ).toContain('cell_type');
    const notNb = await call(
      ws.root,
      'NotebookEdit',
      { notebook_path: 'n.txt', cell_id: 'a', new_source: '' },
      opts,
    );
    expect(notNb.failure?.kind).toBe('validation');
  });
});
