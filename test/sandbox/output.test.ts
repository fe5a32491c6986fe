import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { OutputCapture, removeSpill } from '../../src/sandbox/output.js';

/** Writes the chunks alternately to stdout and stderr (or all to stdout with `oneStream`). */
async function capture(
  maxOutputChars: number,
  maxOutputBytes: number,
  chunks: (string | Buffer)[],
  failed = false,
  oneStream = false,
) {
  const made = new OutputCapture({ maxOutputChars, maxOutputBytes });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let overflows = 0;
  made.onOverflow(() => {
    overflows += 1;
  });
  made.attach(stdout, 'stdout');
  made.attach(stderr, 'stderr');
  for (const [i, c] of chunks.entries()) (oneStream || i % 2 === 0 ? stdout : stderr).write(c);
  stdout.end();
  stderr.end();
  await made.drained();
  const result = await made.finish(failed);
  if (result.spillPath) spills.push(result.spillPath);
  return { result, overflows };
}

/** Removed after each test, whether it passed or not. */
const spills: string[] = [];
afterEach(async () => {
  for (const spill of spills.splice(0)) await removeSpill(spill);
});

function spillDirs(): string[] {
  return fs.readdirSync(os.tmpdir()).filter((name) => name.startsWith('toolgate-out-'));
}

describe('OutputCapture', () => {
  it('returns small output inline, interleaved, and leaves no spill file', async () => {
    const before = spillDirs();
    const { result } = await capture(100, 1000, ['out ', 'err ', 'out']);
    expect(result).toEqual({ inline: 'out err out', truncated: false, totalBytes: 11, capped: false });
    expect(spillDirs()).toEqual(before);
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
    expect(fs.existsSync(path.dirname(result.spillPath!))).toBe(false);
  });

  it('for a failure: head and tail, so the error at the end is visible', async () => {
    const text = `${'noise\n'.repeat(5000)}FATAL: the real error\n`;
    const { result } = await capture(400, 1_000_000, [text], true);
    expect(result.inline.length).toBeLessThanOrEqual(400);
    expect(result.inline.startsWith('noise\n')).toBe(true);
    expect(result.inline.endsWith('FATAL: the real error\n')).toBe(true);
    expect(result.inline).toContain('middle omitted');
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
  });

  it('stops keeping output at the hard cap and asks once for the writer to be killed', async () => {
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const { result, overflows } = await capture(1000, 200_000, [chunk, chunk, chunk, chunk, chunk]);
    expect(overflows).toBe(1);
    expect(result).toMatchObject({ capped: true, truncated: true, totalBytes: 5 * chunk.length });
    expect(fs.statSync(result.spillPath!).size).toBe(200_000);
    expect(result.inline).toContain('200000-byte limit');
  });

  it('saves output that fits in memory but not inline', async () => {
    const text = 'x'.repeat(150);
    const { result } = await capture(100, 10_000, [text]);
    expect(result.truncated).toBe(true);
    expect(fs.readFileSync(result.spillPath!, 'utf8')).toBe(text);
  });

  // Within one stream order is exact; between stdout and stderr it is only as exact as the
  // moments the two pipes are read, as with any two pipes.
  it('keeps the order of a stream when the spill file starts in the middle of a chunk', async () => {
    const chunks = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(4, '0')}:${'y'.repeat(995)}\n`);
    const { result } = await capture(300, 1_000_000, chunks, false, true);
    expect(fs.readFileSync(result.spillPath!, 'utf8')).toBe(chunks.join(''));
  });

  it('removeSpill deletes only spill directories it created', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-out-'));
    const other = path.join(dir, 'not-output.txt');
    fs.writeFileSync(other, 'keep');
    await removeSpill(other);
    expect(fs.existsSync(other)).toBe(true);
    fs.rmSync(dir, { recursive: true });
  });
});
