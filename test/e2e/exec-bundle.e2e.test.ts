import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * The built `toolgate exec` (dist/cli/main.js -> exec.cjs, with V8's code cache and the parsed
 * policy cache under $XDG_CACHE_HOME) must answer exactly as the source does, on the first run
 * and on every later one, when a policy file changes, and when the policy has conditions (exec
 * restarts node for isolated-vm).
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-exec-bundle-')));
const ws = path.join(base, 'ws');
const env = {
  PATH: process.env.PATH,
  HOME: path.join(base, 'home'),
  XDG_CONFIG_HOME: path.join(base, 'config'),
  XDG_CACHE_HOME: path.join(base, 'cache'),
  TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed.yaml'),
};
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

beforeAll(() => {
  if (!fs.existsSync(CLI)) throw new Error(`build first (npm run build): ${CLI} is missing`);
  fs.mkdirSync(path.join(ws, '.toolgate'), { recursive: true });
  fs.mkdirSync(env.HOME, { recursive: true });
  fs.writeFileSync(path.join(ws, 'README.md'), '# ws\nsecond line\n');
  fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=x\n');
});

const block = (id: string, name: string, input: unknown) =>
  JSON.stringify({ type: 'tool_use', id, name, input });
const blocks = [
  block('r1', 'Read', { file_path: path.join(ws, 'README.md') }),
  block('r2', 'Read', { file_path: path.join(ws, '.env') }),
  block('b1', 'Bash', { command: 'echo hi && cat README.md | head -n 1' }),
  block('b2', 'Bash', { command: 'rm -rf build' }),
  block('b3', 'Bash', { command: 'touch made.txt' }),
  block('g1', 'Glob', { pattern: '*.md' }),
  block('w1', 'WebFetch', { url: 'http://docs.example.com/x', prompt: 'p' }),
  '{"type": "tool_use", "id": "bad"}',
].join('\n');

function built(stdin: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, 'exec', '--json'], {
    cwd: ws,
    env,
    input: stdin,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

async function sameAnswers(policyText: string): Promise<void> {
  fs.writeFileSync(path.join(ws, '.toolgate', 'policy.yaml'), policyText);
  const expected = await runCli(['exec', '--json'], { stdin: blocks, cwd: ws, env });
  // The first run fills the caches, the later ones read them.
  for (let round = 0; round < 3; round++) {
    const got = built(blocks);
    expect({ round, ...got }).toEqual({
      round,
      code: expected.code,
      stdout: expected.stdout,
      stderr: expected.stderr,
    });
  }
}

describe('the built exec', () => {
  it('answers as the source does, run after run, and keeps its compiled code and parsed policies', async () => {
    await sameAnswers('version: 1\nextends: builtin:default\nrules:\n  - allow: "Bash(touch made.txt)"\n');
    // exec's own bundle left V8's code cache (before it had one, exec wrote none) and the policy cache
    expect(fs.readdirSync(path.join(env.XDG_CACHE_HOME, 'toolgate', 'v8')).length).toBeGreaterThan(0);
    expect(fs.readdirSync(path.join(env.XDG_CACHE_HOME, 'toolgate', 'policy')).length).toBeGreaterThan(0);
  }, 120_000);

  it('sees an edited policy on the next run, and refuses a broken one every time', async () => {
    await sameAnswers('version: 1\nextends: builtin:default\nrules:\n  - deny: "Bash(echo *)"\n');
    fs.writeFileSync(
      path.join(ws, '.toolgate', 'policy.yaml'),
      'version: 1\nrules:\n  - allow: "Bash(touch made.txt"\n',
    );
    for (let i = 0; i < 2; i++) {
      const r = built(blocks);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/the policy was refused, nothing is allowed/);
    }
  }, 120_000);

  it('answers as the source does on a policy with conditions (restarted once for isolated-vm)', async () => {
    await sameAnswers(
      [
        'version: 1',
        'extends: builtin:default',
        'rules:',
        '  - allow: "Glob"',
        '    when: "input.pattern.endsWith(\'.md\')"',
        '',
      ].join('\n'),
    );
  }, 120_000);
});
