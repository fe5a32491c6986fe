import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BASELINE_ENV, buildChildEnv, isSecretName } from '../../src/sandbox/env.js';

const source = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  LANG: 'C.UTF-8',
  LC_ALL: 'C',
  TERM: 'xterm',
  EDITOR: 'vim',
  NODE_ENV: 'test',
  NODE_AUTH_TOKEN: 'npm-secret',
  GITHUB_TOKEN: 'ghp_x',
  GH_TOKEN: 'gho_x',
  AWS_ACCESS_KEY_ID: 'AKIA',
  AWS_REGION: 'eu-west-1',
  ANTHROPIC_API_KEY: 'sk-ant',
  MY_SERVICE_SECRET: 's',
  DB_PASSWORD: 'p',
  SSH_AUTH_SOCK: '/tmp/agent',
  STRIPE_KEY: 'k',
};

describe('buildChildEnv', () => {
  it('passes only the baseline when nothing is allowed', () => {
    const { env } = buildChildEnv(source, []);
    expect(Object.keys(env).sort()).toEqual(['HOME', 'LANG', 'LC_ALL', 'PATH', 'TERM']);
  });

  it('admits exact names and prefixes', () => {
    const { env } = buildChildEnv(source, ['EDITOR', 'NODE_*']);
    expect(env.EDITOR).toBe('vim');
    expect(env.NODE_ENV).toBe('test');
  });

  it('drops secrets that a prefix or * admits, and says which', () => {
    const { env, droppedSecrets } = buildChildEnv(source, ['*']);
    for (const secret of [
      'NODE_AUTH_TOKEN',
      'GITHUB_TOKEN',
      'GH_TOKEN',
      'AWS_ACCESS_KEY_ID',
      'AWS_REGION',
      'ANTHROPIC_API_KEY',
      'MY_SERVICE_SECRET',
      'DB_PASSWORD',
      'SSH_AUTH_SOCK',
      'STRIPE_KEY',
    ]) {
      expect(env[secret], secret).toBeUndefined();
      expect(droppedSecrets).toContain(secret);
    }
    expect(env.EDITOR).toBe('vim');
  });

  it('passes a secret that is named exactly', () => {
    const { env } = buildChildEnv(source, ['GITHUB_TOKEN', 'AWS_*']);
    expect(env.GITHUB_TOKEN).toBe('ghp_x');
    expect(env.AWS_REGION).toBeUndefined();
  });

  it('never lets a wildcard admit a name that looks like a secret (property)', () => {
    const name = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,20}$/);
    fc.assert(
      fc.property(
        name,
        fc.constantFrom('*_TOKEN', '*_KEY', 'AWS_*', '*PASSWORD*', '*_SECRET'),
        (base, shape) => {
          const secret = shape.replace('*', base);
          const { env } = buildChildEnv({ [secret]: 'v' }, ['*', `${secret.slice(0, 1)}*`]);
          expect(env[secret]).toBeUndefined();
        },
      ),
    );
  });

  it('documents a baseline that holds no secret names', () => {
    for (const name of BASELINE_ENV) expect(isSecretName(name.replace('*', 'X')), name).toBe(false);
  });
});
