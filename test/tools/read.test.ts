import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReadTool } from '../../src/tools/read.js';
import { type Workspace, workspace } from '../pipeline/fixture.js';
import { call } from './helpers.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-read-');
});
afterEach(() => ws.cleanup());

describe('Read', () => {
  it('numbers lines like cat -n and pages with offset/limit', async () => {
    ws.file('f.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'));
    const all = await call(ws.root, 'Read', { file_path: 'f.txt' });
    expect(all.text.split('\n')[0]).toBe('     1\tline 1');
    expect(all.text.split('\n')).toHaveLength(10);
    const part = await call(ws.root, 'Read', { file_path: path.join(ws.root, 'f.txt'), offset: 4, limit: 2 });
    expect(part.text).toContain('     4\tline 4\n     5\tline 5');
    expect(part.text).toContain('continue with offset 6');
  });

  it('is read-only and concurrency-safe, and never spilled by the pipeline', () => {
    expect(ReadTool.isReadOnly({ file_path: 'x' })).toBe(true);
    expect(ReadTool.isConcurrencySafe({ file_path: 'x' })).toBe(true);
    expect(ReadTool.maxResultSizeChars).toBe(Number.POSITIVE_INFINITY);
  });

  it('refuses what it cannot show, saying what to do instead', async () => {
    ws.file('big.txt', 'x'.repeat(300 * 1024));
    ws.file('bin.dat', Buffer.from([1, 2, 0, 3]) as unknown as string);
    fs.mkdirSync(path.join(ws.root, 'dir'));
    const big = await call(ws.root, 'Read', { file_path: 'big.txt' });
    expect(big.result.is_error).toBe(true);
    expect(big.text).toContain('offset and limit');
    expect((await call(ws.root, 'Read', { file_path: 'big.txt', limit: 1 })).result.is_error).toBeUndefined();
    expect((await call(ws.root, 'Read', { file_path: 'bin.dat' })).text).toContain('binary');
    expect((await call(ws.root, 'Read', { file_path: 'dir' })).text).toContain('directory');
    expect((await call(ws.root, 'Read', { file_path: 'nope.txt' })).text).toContain('does not exist');
  });

  it('cuts long lines and reports an empty file as such', async () => {
    ws.file('long.txt', 'y'.repeat(5000));
    ws.file('empty.txt', '');
    expect((await call(ws.root, 'Read', { file_path: 'long.txt' })).text).toContain('line cut at 2000');
    expect((await call(ws.root, 'Read', { file_path: 'empty.txt' })).text).toContain('exists but is empty');
  });

  it('returns images and PDFs as content blocks', async () => {
    ws.file('p.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]) as unknown as string);
    ws.file('d.pdf', '%PDF-1.4\n%%EOF\n');
    const png = await call(ws.root, 'Read', { file_path: 'p.png' });
    expect(png.result.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw==' } },
    ]);
    const pdf = await call(ws.root, 'Read', { file_path: 'd.pdf' });
    expect(pdf.result.content).toMatchObject([
      { type: 'document', source: { media_type: 'application/pdf' } },
    ]);
  });

  it('shows a notebook as its cells', async () => {
    ws.file(
      'n.ipynb',
      JSON.stringify({
        cells: [{ cell_type: 'code', id: 'abc', source: ['print(1)'] }],
        nbformat: 4,
        nbformat_minor: 5,
      }),
    );
    const out = await call(ws.root, 'Read', { file_path: 'n.ipynb' });
    expect(out.text).toContain('<cell id="abc" type="code">');
    expect(out.text).toContain('print(1)');
  });

  it('the path guard refuses what the profile denies, even where the policy allowed the call', async () => {
    ws.file('keys/k.txt', 'secret');
    const out = await call(
      ws.root,
      'Read',
      { file_path: 'keys/k.txt' },
      { sandbox: 'read: { deny: ["keys"] }' },
    );
    expect(out.decision?.behavior).toBe('allow');
    expect(out.result.is_error).toBe(true);
    expect(out.text).toContain('denied by the policy');
  });
});
