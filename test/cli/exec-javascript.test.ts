import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChildIsolateRunner } from '../../src/isolate/index.js';
import { type Workspace, workspace } from '../pipeline/fixture.js';

/**
 * exec starts without --no-node-snapshot when its policy has no conditions, so a JavaScript
 * call runs its isolate in a child node (src/isolate/child-runner.ts). Through the real CLI, in
 * a real process whose environment does not carry the flag.
 */
let ws: Workspace;
beforeEach(() => {
  ws = workspace('toolgate-exec-js-');
});
afterEach(() => ws.cleanup());

const POLICY = 'version: 1\nsandbox: { os: "off" }\nrules:\n  - allow: ["JavaScript"]\n';
const block = (id: string, input: unknown) => ({ type: 'tool_use', id, name: 'JavaScript', input });

function execProcess(stdin: string): Promise<{ code: number | null; results: Record<string, unknown>[] }> {
  const policy = ws.file('policy.yaml', POLICY);
  const mainFile = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  delete env.TOOLGATE_REEXEC;
  const child = spawn(tsx, [mainFile, 'exec', '--policy', policy], {
    cwd: ws.root,
    env,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stdin.end(stdin);
  return new Promise((resolve) =>
    child.on('close', (code) =>
      resolve({
        code,
        results: out
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      }),
    ),
  );
}

describe('toolgate exec: the JavaScript tool', () => {
  it('runs code in an isolate, with its time limit, though exec did not restart', async () => {
    const { code, results } = await execProcess(
      [
        block('j1', { code: 'input.a + 1', input: { a: 41 } }),
        block('j2', { code: 'typeof process + typeof require' }),
        block('j3', { code: 'while (true) {}', timeout: 200 }),
        block('j4', { code: '[1, 2].map((x) => x * 2)' }),
      ]
        .map((b) => JSON.stringify(b))
        .join('\n'),
    );
    expect(code).toBe(0);
    expect(results.map((r) => r.tool_use_id)).toEqual(['j1', 'j2', 'j3', 'j4']);
    expect(results[0]).toMatchObject({ content: '42' });
    expect(results[0]?.is_error).toBeFalsy();
    expect(results[1]).toMatchObject({ content: '"undefinedundefined"' });
    expect(results[2]).toMatchObject({ is_error: true });
    expect(String(results[2]?.content)).toContain('timeout');
    expect(JSON.parse(String(results[3]?.content))).toEqual([2, 4]);
  }, 60_000);
});

describe('createChildIsolateRunner', () => {
  it('fails closed when the child cannot start: every call is unavailable, nothing runs', async () => {
    const runner = createChildIsolateRunner({ execPath: '/nonexistent/node', args: [] }, 16);
    const compiled = await runner.compile('1 + 1', { kind: 'script' });
    expect(compiled).toMatchObject({ ok: false, kind: 'unavailable' });
    const run = await runner.run({ kind: 'script', source: '1 + 1' }, {}, { timeoutMs: 1000 });
    expect(run).toMatchObject({ ok: false, kind: 'unavailable' });
    runner.dispose();
  });
});
