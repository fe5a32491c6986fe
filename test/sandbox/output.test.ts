import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { OutputCapture, removeSpill } from '../../src/sandbox/output.js';

async function capture(
  maxOutputChars: number,
  maxOutputBytes: number,
  chunks: (string | Buffer)[],
  failed = false,
) {
  const made = await OutputCapture.create({ maxOutputChars, maxOutputBytes });
  if ('kind' in made) throw new Error(made.message);
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let overflows = 0;
  made.onOverflow(() => {
    overflows += 1;
  });
  made.attach(stdout, 'stdout');
  made.attach(stderr, 'stderr');
  for (const [i, c] of chunks.entries()) (i % 2 === 0 ? stdout : stderr).write(c);
  stdout.end();
  stderr.end();
  await made.drained();
  return { result: await made.finish(failed), overflows };
}

describe('OutputCapture', () => {
  it('returns small output inline, interleaved, and leaves no spill file', async () => {
    const { result } = await capture(100, 1000, ['out ', 'err ', 'out']);
    expect(result).toEqual({ inline: 'out err out', truncated: false, totalBytes: 11, capped: false });
  });

  it('for a success: a head preview and the spill path, within maxOutputChars', async () => {
    const text = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join('');
    const { result } = await capture(500, 1_000_000, [text]);
    expect(result.truncated).toBe(true);
    expect(result.inline.length).toBeLessThanOrEqual(500);
    expect(result.inline.startsWith('line 0\nline 1\n')).toBe(true);
    expect(result.inline).toContain(result.spillPath);
    expect(fs.readFileSync(result.spillPath!, 'utf8')).toBe(text);
    await removeSpill(result.spillPath!);
    expect(fs.existsSync(result.spillPath!)).toBe(false);
  });

  it('for a failure: head and tail, so the error at the end is visible', async () => {
    const text = `${'noise\n'.repeat(5000)}FATAL: the real error\n`;
    const { result } = await capture(400, 1_000_000, [text], true);
    expect(result.inline.length).toBeLessThanOrEqual(400);
    expect(result.inline.startsWith('noise\n')).toBe(true);
    expect(result.inline.endsWith('FATAL: the real error\n')).toBe(true);
    expect(result.inline).toContain('middle omitted');
    await removeSpill(result.spillPath!);
  });

  it('counts characters, not bytes, and never splits a multi-byte character', async () => {
    const text = '€'.repeat(300); // 3 bytes each
    const fits = await capture(300, 10_000, [text]);
    expect(fits.result).toMatchObject({ inline: text, truncated: false, totalBytes: 900 });
    const cut = await capture(
      200,
      10_000,
      [Buffer.from(text).subarray(0, 451), Buffer.from(text).subarray(451)],
      true,
    );
    expect(cut.result.inline).not.toContain('\uFFFD');
    await removeSpill(cut.result.spillPath!);
  });

  it('stops keeping output at the hard cap and asks once for the writer to be killed', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const { result, overflows } = await capture(1000, 200_000, [chunk, chunk, chunk, chunk, chunk]);
    expect(overflows).toBe(1);
    expect(result).toMatchObject({ capped: true, truncated: true, totalBytes: 5 * chunk.length });
    expect(fs.statSync(result.spillPath!).size).toBe(200_000);
    expect(result.inline).toContain('200000-byte limit');
    await removeSpill(result.spillPath!);
  });

  it('removeSpill deletes only spill directories it created', async () => {
    fs.writeFileSync('/tmp/toolgate-not-a-spill.txt', 'keep');
    await removeSpill('/tmp/toolgate-not-a-spill.txt');
    expect(fs.existsSync('/tmp/toolgate-not-a-spill.txt')).toBe(true);
    fs.rmSync('/tmp/toolgate-not-a-spill.txt');
  });
});
