import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { readStdin, writeStdout } from '../../src/cli/stdio.js';

/** The hook's stdin and stdout: the process's descriptors when it has them, else the streams. */
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-stdio-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

function io(stdin: NodeJS.ReadableStream, fds?: { stdin: number; stdout: number }): CliIO {
  const stdout = new PassThrough();
  return {
    stdin,
    stdout,
    stderr: new PassThrough(),
    env: {},
    cwd: base,
    isTTY: false,
    ...(fds ? { fds } : {}),
  };
}

describe('readStdin and writeStdout', () => {
  it('read all of a descriptor, and write to one', async () => {
    const input = path.join(base, 'in.json');
    const text = `{"a":"${'é'.repeat(100_000)}"}`;
    fs.writeFileSync(input, text);
    const output = path.join(base, 'out.json');
    const inFd = fs.openSync(input, 'r');
    const outFd = fs.openSync(output, 'w');
    try {
      const cli = io(Readable.from([]), { stdin: inFd, stdout: outFd });
      expect(await readStdin(cli, 1 << 20, 'hook input')).toBe(text);
      writeStdout(cli, 'answer ✓\n');
    } finally {
      fs.closeSync(inFd);
      fs.closeSync(outFd);
    }
    expect(fs.readFileSync(output, 'utf8')).toBe('answer ✓\n');
  });

  it('read the stream when there is no descriptor, and refuse too much input either way', async () => {
    expect(await readStdin(io(Readable.from([Buffer.from('ab'), 'c'])), 10, 'hook input')).toBe('abc');
    await expect(readStdin(io(Readable.from([Buffer.alloc(11)])), 10, 'hook input')).rejects.toThrow(
      'hook input is larger than 10 bytes',
    );
    const big = path.join(base, 'big');
    fs.writeFileSync(big, Buffer.alloc(11));
    const fd = fs.openSync(big, 'r');
    try {
      await expect(readStdin(io(Readable.from([]), { stdin: fd, stdout: 1 }), 10, 'x')).rejects.toThrow(
        'x is larger than 10 bytes',
      );
    } finally {
      fs.closeSync(fd);
    }
  });
});
