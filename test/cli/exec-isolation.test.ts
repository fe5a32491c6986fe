import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { type Workspace, workspace } from '../pipeline/fixture.js';

/**
 * `toolgate exec` runs an allowed Bash call inside bubblewrap or not at all: `sandbox.os:
 * required` is the default, and only a policy that says `os: off` (or `auto`) runs one unjailed.
 * "bubblewrap cannot run here" is a `bwrap` first on PATH that fails as one without user
 * namespaces does.
 */
let ws: Workspace;
let brokenBin: string;
beforeEach(() => {
  ws = workspace('toolgate-exec-os-');
  brokenBin = path.join(ws.root, 'broken-bin');
  fs.mkdirSync(brokenBin);
  const fake = path.join(brokenBin, 'bwrap');
  fs.writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create a new namespace" >&2\nexit 1\n');
  fs.chmodSync(fake, 0o755);
});
afterEach(() => ws.cleanup());

const touchCall = JSON.stringify({
  type: 'tool_use',
  id: 't1',
  name: 'Bash',
  input: { command: 'touch made.txt' },
});

async function execWith(sandbox: string, env: NodeJS.ProcessEnv = {}) {
  const work = fs.mkdtempSync(path.join(ws.root, 'work-'));
  const policy = ws.file(
    `${path.basename(work)}.yaml`,
    `version: 1\n${sandbox}rules:\n  - allow: ["Bash(touch made.txt)"]\n`,
  );
  const run = await runCli(['exec', '--policy', policy, '--cwd', work], { stdin: touchCall, cwd: work, env });
  const [result] = run.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { tool_use_id: string; is_error?: boolean; content: unknown });
  return { run, result: result!, made: fs.existsSync(path.join(work, 'made.txt')) };
}

const withoutBwrap = () => ({ PATH: `${brokenBin}:${process.env.PATH}` });

describe('toolgate exec: sandbox.os', () => {
  it('by default refuses an allowed Bash call where bubblewrap cannot run, naming the setting', async () => {
    const { result, made } = await execWith('', withoutBwrap());
    expect(result).toMatchObject({ tool_use_id: 't1', is_error: true });
    expect(String(result.content)).toMatch(/sandbox\.os is required \(the default\)/);
    expect(String(result.content)).toMatch(/sandbox: \{ os: off \}/);
    expect(String(result.content)).toMatch(/No permissions to create a new namespace/);
    expect(made).toBe(false);
  });

  it('runs it unjailed when the policy says os: off explicitly', async () => {
    const off = await execWith('sandbox: { os: off }\n', withoutBwrap());
    expect(off.result.is_error).toBeUndefined();
    expect(off.made).toBe(true);
  });

  it('and under os: auto, saying so', async () => {
    const auto = await execWith('sandbox: { os: auto }\n', withoutBwrap());
    expect(auto.made).toBe(true);
    expect(String(auto.result.content)).toMatch(/without OS isolation/);
  });

  it('by default runs it inside bubblewrap where bubblewrap works', async () => {
    const { result, made } = await execWith('');
    expect(result.is_error).toBeUndefined();
    expect(made).toBe(true);
  });
});
