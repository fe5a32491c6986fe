import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/main-in-process.js';
import { type Workspace, workspace } from '../pipeline/fixture.js';

let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-exec-');
});
afterEach(() => ws.cleanup());

const POLICY = 'version: 1\nsandbox: { os: "off" }\nrules:\n  - deny: ["Read(**/secret.txt)"]\n';

async function exec(stdin: string, ...argv: string[]) {
  const policy = ws.file('policy.yaml', POLICY);
  const { code, stdout, stderr } = await runMain(['exec', '--policy', policy, ...argv], {
    cwd: ws.root,
    stdin,
  });
  const lines = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const trace = stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
  return { code, results: lines, trace, stderr };
}

const block = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });

describe('toolgate exec', () => {
  it('answers a JSON array with one paired tool_result per block, in order, through the whole pipeline', async () => {
    ws.file('a.txt', 'one\ntwo\n');
    ws.file('secret.txt', 'hunter2');
    const blocks = [
      block('r1', 'Read', { file_path: 'a.txt' }),
      block('r2', 'Read', { file_path: 'secret.txt' }),
      block('w1', 'Write', { file_path: 'b.txt', content: 'x' }),
      block('b1', 'Bash', { command: 'echo hello' }),
      block('x1', 'Nope', {}),
      block('v1', 'Read', {}),
    ];
    const { code, results } = await exec(JSON.stringify(blocks));
    expect(code).toBe(0);
    expect(results.map((r) => r.tool_use_id)).toEqual(['r1', 'r2', 'w1', 'b1', 'x1', 'v1']);
    expect(results.every((r) => r.type === 'tool_result')).toBe(true);
    expect(results[0].content).toContain('two');
    expect(results[1]).toMatchObject({ is_error: true });
    expect(results[1].content).toContain('Read(**/secret.txt)');
    // Headless: an ask is a structured denial, and the file was not written.
    expect(results[2]).toMatchObject({ is_error: true });
    expect(results[2].content).toContain('headless');
    expect(fs.existsSync(path.join(ws.root, 'b.txt'))).toBe(false);
    expect(results[3].content).toContain('hello');
    expect(results[4].is_error).toBe(true);
    expect(results[5].content).toContain('file_path');
  });

  it('reads one block per line; a bad line still gets an is_error result in its place (exit 1)', async () => {
    ws.file('a.txt', 'alpha\n');
    const input = [
      JSON.stringify(block('l1', 'Read', { file_path: 'a.txt' })),
      '{not json',
      JSON.stringify({ type: 'tool_use', id: 'l3' }),
      JSON.stringify(block('l4', 'Grep', { pattern: 'alpha', output_mode: 'count' })),
    ].join('\n');
    const { code, results } = await exec(input);
    expect(code).toBe(1);
    expect(results.map((r) => r.tool_use_id)).toEqual(['l1', '', 'l3', 'l4']);
    expect(results[1].is_error).toBe(true);
    expect(results[2].content).toContain('no "name"');
    expect(results[3].content).toContain('1 total occurrence');
  });

  it('--trace writes start and end events that prove the schedule', async () => {
    ws.file('a.txt', 'alpha\n');
    const blocks = [
      block('A', 'Read', { file_path: 'a.txt' }),
      block('B', 'Grep', { pattern: 'alpha' }),
      block('C', 'Bash', { command: 'echo hi > c.txt' }),
      block('D', 'Glob', { pattern: '*.txt' }),
    ];
    const { results, trace } = await exec(JSON.stringify(blocks), '--trace', '--mode', 'acceptEdits');
    expect(results.map((r) => r.tool_use_id)).toEqual(['A', 'B', 'C', 'D']);
    const order = trace.map((e) => `${e.event}:${e.id}`);
    const at = (s: string) => order.indexOf(s);
    expect(Math.max(at('start:A'), at('start:B'))).toBeLessThan(Math.min(at('end:A'), at('end:B')));
    expect(at('start:C')).toBeGreaterThan(Math.max(at('end:A'), at('end:B')));
    expect(at('start:D')).toBeGreaterThan(at('end:C'));
    expect(trace.every((e) => typeof e.t === 'number')).toBe(true);
    expect(results[3].content).toContain('c.txt');
  });

  it('--log records every decision', async () => {
    ws.file('a.txt', 'alpha\n');
    const logFile = path.join(ws.root, 'decisions.jsonl');
    await exec(
      JSON.stringify([
        block('r', 'Read', { file_path: 'a.txt' }),
        block('w', 'Write', { file_path: 'x', content: '' }),
      ]),
      '--log',
      logFile,
    );
    const records = fs
      .readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(records.map((r) => [r.request.tool, r.decision.behavior])).toEqual([
      ['Read', 'allow'],
      ['Write', 'deny'],
    ]);
  });

  it('--hooks runs Claude Code command hooks (exit 2 blocks)', async () => {
    const hooks = ws.file(
      'settings.json',
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "no shell today" >&2; exit 2' }] },
          ],
        },
      }),
    );
    const { results } = await exec(
      JSON.stringify([block('b', 'Bash', { command: 'echo hi' })]),
      '--hooks',
      hooks,
    );
    expect(results[0]).toMatchObject({ tool_use_id: 'b', is_error: true });
    expect(results[0].content).toContain('no shell today');
  });

  it('works as a process: blocks on stdin, results on stdout', async () => {
    ws.file('a.txt', 'alpha\n');
    const policy = ws.file('policy.yaml', POLICY);
    const mainFile = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
    const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
    const child = spawn(tsx, [mainFile, 'exec', '--policy', policy], {
      cwd: ws.root,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stdin.end(`${JSON.stringify(block('p1', 'Read', { file_path: 'a.txt' }))}\n`);
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    const result = JSON.parse(out.trim());
    expect(result).toMatchObject({ type: 'tool_result', tool_use_id: 'p1' });
    expect(result.content).toContain('alpha');
  });
});
