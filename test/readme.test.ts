import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

/**
 * The README's example policy is true (issue 19): extracted from the README as a reader copies
 * it, it loads, its own tests pass, its showcase rules deny the commands those tests say they
 * cover (`kubectl … --context=prod-eu` in every position and spelling), and it meets the
 * `--min-coverage 80` the README runs it with.
 */
const README = fs.readFileSync(path.join(import.meta.dirname, '..', 'README.md'), 'utf8');

function policyExample(): string {
  const section = README.slice(README.indexOf('\n## Policies'));
  const block = /```yaml\n([\s\S]*?)```/.exec(section);
  if (block === null) throw new Error('no yaml block under ## Policies');
  return block[1]!;
}

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-readme-'));
  // the workspace the example names: "." with src/, and ../shared-lib beside it
  fs.mkdirSync(path.join(dir, 'project', 'src'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'shared-lib'));
  fs.mkdirSync(path.join(dir, 'project', '.toolgate'));
  fs.writeFileSync(path.join(dir, 'project', '.toolgate', 'policy.yaml'), policyExample());
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the README policy example', { timeout: 120_000 }, () => {
  it('passes its own tests with the --min-coverage 80 the README runs it with', async () => {
    const cwd = path.join(dir, 'project');
    const env = {
      TOOLGATE_MANAGED_POLICY: path.join(dir, 'none.yaml'),
      XDG_CONFIG_HOME: path.join(dir, 'config'),
    };
    const r = await runCli(['test', '.toolgate/policy.yaml', '--min-coverage', '80'], { cwd, env });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/0 failed/);
  });

  it('covers kubectl --context=prod* in every position and spelling', () => {
    const policy = policyExample();
    for (const command of [
      'kubectl apply -f x.yaml --context=prod-eu',
      'kubectl --context=prod-eu apply -f x.yaml',
      'kubectl --context prod-eu apply -f x.yaml',
    ])
      expect(policy).toContain(`command: "${command}" }, expect: deny`);
  });
});
