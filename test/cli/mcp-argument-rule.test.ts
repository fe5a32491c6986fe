import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

/**
 * A rule on an MCP call's arguments (issue 19): the error names a form that is itself accepted
 * (before, it suggested one that was refused too). Through the real CLI: the suggestion is
 * taken from the message, written as a policy, and must load and bite only on those arguments.
 */
const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-arg-')));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const env = {
  TOOLGATE_MANAGED_POLICY: '',
  XDG_CONFIG_HOME: path.join(dir, 'config'),
  CLAUDE_PROJECT_DIR: '',
};
const check = (policy: string, input: object) =>
  runCli(
    ['check', '--policy', policy, '--tool', 'mcp__github__create_issue', '--input', JSON.stringify(input)],
    {
      cwd: dir,
      env,
    },
  );

describe('an MCP rule on arguments', { timeout: 60_000 }, () => {
  it('is refused with a suggestion that loads and matches those arguments', async () => {
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'version: 1\nrules:\n  - deny: "mcp__github__create_issue(repo:prod)"\n');
    const refused = await check(bad, { repo: 'prod' });
    expect(refused.code).toBe(2);
    const hint = /write the rule "([^"]+)" with when: "([^"]+)"/.exec(refused.stderr);
    expect(hint, refused.stderr).not.toBeNull();
    const good = path.join(dir, 'good.yaml');
    fs.writeFileSync(
      good,
      `version: 1\nrules:\n  - deny: "${hint![1]}"\n    when: ${JSON.stringify(hint![2])}\n`,
    );
    const prod = await check(good, { repo: 'prod' });
    expect(prod.code, prod.stderr).toBe(0);
    expect(prod.stdout).toMatch(/^DENY: /);
    const other = await check(good, { repo: 'docs' });
    expect(other.code, other.stderr).toBe(0);
    expect(other.stdout).not.toMatch(/^DENY: /);
  });
});
