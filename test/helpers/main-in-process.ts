import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/toolgate.js';

/**
 * Runs `main(argv, io)` in this process, as a program embedding the CLI would, with stdout and
 * stderr captured. Without `stdin` the command gets an input that never ends (as a terminal
 * would give one that nobody types into); with it, that text and then the end.
 */
export interface MainRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runMain(
  argv: string[],
  io: { cwd: string; env?: NodeJS.ProcessEnv; stdin?: string; stderrIsTTY?: boolean },
): Promise<MainRun> {
  const stdin = new PassThrough();
  if (io.stdin !== undefined) stdin.end(io.stdin);
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), io.stderrIsTTY ? { isTTY: true } : {});
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (d) => out.push(String(d)));
  stderr.on('data', (d) => err.push(String(d)));
  const code = await main(argv, { stdin, stdout, stderr, env: io.env ?? {}, cwd: io.cwd, isTTY: false });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
