import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { policyFromText } from '../../src/policy/policy.js';
import { PolicyError } from '../../src/policy/policy-file.js';

/**
 * policyFromText, the library's policy-from-a-string, follows `extends` as a policy file does.
 * It used to drop it silently: `extends: builtin:default` gave a policy without the default's
 * deny rules, so `cat .env` was allowed as read-only — a fail-open in the public API.
 */
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-from-text-')));
fs.writeFileSync(path.join(root, '.env'), 'SECRET=1\n');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const catEnv = { tool: 'Bash', input: { command: 'cat .env' }, cwd: root, mode: 'default' as const };

describe('policyFromText follows extends', () => {
  it('extends: builtin:default brings the default deny rules (cat .env is denied)', async () => {
    const p = await policyFromText('version: 1\nextends: builtin:default\n', { root });
    const d = decide(catEnv, p);
    expect(d.behavior, d.reason).toBe('deny');
    const read = decide(
      { tool: 'Read', input: { file_path: path.join(root, '.env') }, cwd: root, mode: 'default' },
      p,
    );
    expect(read.behavior, read.reason).toBe('deny');
  });

  it('a relative extends is read from root, and its rules apply', async () => {
    fs.writeFileSync(
      path.join(root, 'base.yaml'),
      'version: 1\npermissions:\n  deny: ["Bash(terraform apply *)"]\n',
    );
    const p = await policyFromText('version: 1\nextends: ./base.yaml\n', { root });
    const d = decide({ ...catEnv, input: { command: 'terraform apply -auto-approve' } }, p);
    expect(d.behavior, d.reason).toBe('deny');
  });

  it('an extends that cannot be read refuses the policy instead of dropping it', async () => {
    await expect(policyFromText('version: 1\nextends: ./missing.yaml\n', { root })).rejects.toBeInstanceOf(
      PolicyError,
    );
    await expect(policyFromText('version: 1\nextends: builtin:nope\n', { root })).rejects.toThrow();
  });
});
