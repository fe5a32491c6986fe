import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/io.js';
import { failureLine } from '../../src/cli/run-command.js';
import { MAIN, runCli } from '../helpers/cli.js';

/**
 * The CLI's one error style (issue 19): `toolgate <command>: <what> — <what to do>` on stderr,
 * one line, exit 2 for a usage error, no stack trace unless TOOLGATE_DEBUG=1; a reader that
 * leaves a pipe early ends the command quietly.
 */
let dir: string;
let env: NodeJS.ProcessEnv;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-errors-'));
  // Keep the machine's own managed and user policies out of these runs.
  env = { TOOLGATE_MANAGED_POLICY: path.join(dir, 'none.yaml'), XDG_CONFIG_HOME: path.join(dir, 'config') };
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** One line in the house style, and no trace of a stack. */
function expectOneLine(stderr: string, command: string, what: RegExp, todo: RegExp): void {
  const lines = stderr.split('\n').filter((l) => l !== '');
  expect(lines, stderr).toHaveLength(1);
  const [head, hint] = lines[0]!.split(' — ');
  expect(head).toMatch(new RegExp(`^toolgate( ${command})?: `));
  expect(head).toMatch(what);
  expect(hint).toMatch(todo);
  expect(stderr).not.toMatch(/\n\s+at /);
}

// Each case starts a process; on a loaded machine that is seconds each.
describe('usage errors: one line, what to do, exit 2', { timeout: 120_000 }, () => {
  it('suggests the nearest option for a mistyped one', async () => {
    const r = await runCli(['check', '--too', 'Bash', '--input', '{}'], { env });
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, 'check', /unknown option --too/, /did you mean --tool\?/);
    const abbreviated = await runCli(['classify', '--js', 'ls'], { env });
    expectOneLine(abbreviated.stderr, 'classify', /unknown option --js/, /did you mean --json\?/);
  });

  it('points at --help when nothing is near', async () => {
    const r = await runCli(['verify', '--zzzzzz'], { env });
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, 'verify', /unknown option --zzzzzz/, /toolgate verify --help/);
  });

  it('names an option that needs a value', async () => {
    const r = await runCli(['check', '--tool'], { env });
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, 'check', /--tool needs a value/, /--tool VALUE/);
  });

  it('suggests the nearest command for a mistyped one', async () => {
    const r = await runCli(['chek', '--', 'ls'], { env });
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, 'chek', /unknown command "chek"/, /did you mean "toolgate check"\?/);
  });
});

describe('what the environment refuses: one clear line', { timeout: 120_000 }, () => {
  it('a decision log whose directory cannot be made (check, serve)', async () => {
    // A missing directory is made (policy-args.ts); one under a plain file cannot be.
    fs.writeFileSync(path.join(dir, 'plain'), '');
    const log = path.join(dir, 'plain', 'logs', 'decisions.jsonl');
    for (const args of [
      ['check', '--log', log, '--', 'ls'],
      ['serve', '--port', '0', '--log', log],
    ]) {
      const r = await runCli(args, { env });
      expect(r.code, args.join(' ')).toBe(2);
      expectOneLine(
        r.stderr,
        args[0]!,
        /cannot open the decision log .* is not a directory/,
        /another file with --log/,
      );
    }
  });

  it('serve on a port that is in use', async () => {
    const busy = net.createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as net.AddressInfo).port;
    try {
      const r = await runCli(['serve', '--port', String(port)], { env });
      expect(r.code).toBe(2);
      expectOneLine(
        r.stderr,
        'serve',
        new RegExp(`127\\.0\\.0\\.1:${port} is already in use`),
        /another --port/,
      );
    } finally {
      busy.close();
    }
  });

  it('serve on a socket in a directory that does not exist', async () => {
    const r = await runCli(['serve', '--socket', path.join(dir, 'nope', 's.sock')], { env });
    expect(r.code).toBe(2);
    expectOneLine(r.stderr, 'serve', /there is no directory/, /mkdir -p/);
  });
});

describe('a reader that leaves early (| head)', { timeout: 120_000 }, () => {
  /** Starts the CLI on endless-enough JSON Lines and closes its stdout after the first answer. */
  function headOne(
    args: string[],
    line: string,
  ): Promise<{ code: number | null; stderr: string; got: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
        env: { ...process.env, ...env },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stderr = '';
      let got = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      child.stdout.once('data', (c: Buffer) => {
        got = c.toString();
        child.stdout.destroy();
      });
      child.stdin.on('error', () => {}); // it may leave before reading everything: that is the point
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr, got }));
      child.stdin.end(`${line}\n`.repeat(20_000));
    });
  }

  it('check --stdin and classify --stdin end quietly, exit 0', async () => {
    for (const [args, line] of [
      [['check', '--stdin'], '{"tool":"Bash","input":{"command":"ls"}}'],
      [['classify', '--stdin'], '{"command":"ls"}'],
    ] as const) {
      const r = await headOne([...args], line);
      expect(r.got).toMatch(/^\{/);
      expect(r.stderr, args.join(' ')).toBe('');
      expect(r.code, args.join(' ')).toBe(0);
    }
  });
});

describe('internal errors', () => {
  it('say so in one line; the stack only with TOOLGATE_DEBUG=1', () => {
    const err = new Error('boom');
    const plain = failureLine('check', err, {});
    expect(plain).toBe(
      'toolgate check: internal error: boom — a bug in toolgate; TOOLGATE_DEBUG=1 shows where\n',
    );
    expect(failureLine('check', err, { TOOLGATE_DEBUG: '1' })).toContain(err.stack!);
    expect(failureLine('lint', new UsageError('no policy', 'give one'), {})).toBe(
      'toolgate lint: no policy — give one\n',
    );
  });
});
