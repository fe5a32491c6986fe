import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildChildEnv } from '../../src/sandbox/env.js';

/**
 * An agent that hardens the git it runs (Gemini CLI 0.61.0's getSafeGitEnv, copied as it sets it)
 * must find git just as hardened inside the jail: before, the jail's allow list dropped these
 * variables, and a repository's core.fsmonitor ran in the jail where it would not have outside.
 */
const GEMINI_SAFE_GIT_ENV = {
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_SYSTEM: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_COUNT: '8',
  GIT_CONFIG_KEY_0: 'credential.helper',
  GIT_CONFIG_VALUE_0: '',
  GIT_CONFIG_KEY_1: 'core.fsmonitor',
  GIT_CONFIG_VALUE_1: '',
  GIT_CONFIG_KEY_2: 'core.hooksPath',
  GIT_CONFIG_VALUE_2: '',
  GIT_CONFIG_KEY_3: 'core.sshCommand',
  GIT_CONFIG_VALUE_3: '',
  GIT_CONFIG_KEY_4: 'core.pager',
  GIT_CONFIG_VALUE_4: 'cat',
  GIT_CONFIG_KEY_5: 'core.editor',
  GIT_CONFIG_VALUE_5: '',
  GIT_CONFIG_KEY_6: 'sequence.editor',
  GIT_CONFIG_VALUE_6: '',
  GIT_CONFIG_KEY_7: 'diff.external',
  GIT_CONFIG_VALUE_7: '',
};

describe('git hardening carried into the child environment', () => {
  it("carries an agent's hardened git settings as it set them", () => {
    const { env } = buildChildEnv({ PATH: '/usr/bin', ...GEMINI_SAFE_GIT_ENV }, []);
    expect(env).toMatchObject(GEMINI_SAFE_GIT_ENV);
  });

  it('keeps only settings that name a program, re-numbered; a filled-in credential helper stays out', () => {
    const { env } = buildChildEnv(
      {
        GIT_CONFIG_COUNT: '4',
        GIT_CONFIG_KEY_0: 'http.extraHeader',
        GIT_CONFIG_VALUE_0: 'Authorization: Bearer ghp_secret',
        GIT_CONFIG_KEY_1: 'core.fsmonitor',
        GIT_CONFIG_VALUE_1: '',
        GIT_CONFIG_KEY_2: 'credential.helper',
        GIT_CONFIG_VALUE_2: '!f() { echo password=hunter2; }; f',
        GIT_CONFIG_KEY_3: 'Diff.External',
        GIT_CONFIG_VALUE_3: '',
        GIT_CONFIG_PARAMETERS: "'http.extraheader'='x'",
      },
      [],
    );
    expect(env).toEqual({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'core.fsmonitor',
      GIT_CONFIG_VALUE_0: '',
      GIT_CONFIG_KEY_1: 'Diff.External',
      GIT_CONFIG_VALUE_1: '',
    });
  });

  it('adds nothing when the caller set none, or a count git could not read', () => {
    expect(buildChildEnv({ PATH: '/usr/bin' }, []).env).toEqual({ PATH: '/usr/bin' });
    const bad = buildChildEnv(
      { GIT_CONFIG_COUNT: 'x', GIT_CONFIG_KEY_0: 'core.fsmonitor', GIT_CONFIG_VALUE_0: '' },
      [],
    );
    expect(bad.env).toEqual({});
  });

  it('the numbered pairs are the carried ones even when the allow list admits GIT_CONFIG_*', () => {
    const source = {
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'user.name',
      GIT_CONFIG_VALUE_0: 'me',
      GIT_CONFIG_KEY_1: 'core.hooksPath',
      GIT_CONFIG_VALUE_1: '',
    };
    expect(buildChildEnv(source, ['GIT_CONFIG_*']).env).toEqual({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'core.hooksPath',
      GIT_CONFIG_VALUE_0: '',
    });
  });

  it("with the carried settings, a repository's core.fsmonitor does not run (real git)", () => {
    const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-fsmonitor-'));
    try {
      const git = (env: NodeJS.ProcessEnv, ...args: string[]) =>
        execFileSync('git', args, { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
      const base = { PATH: process.env.PATH ?? '/usr/bin', HOME: repo };
      git(base, 'init', '-q');
      const marker = path.join(repo, 'fsmonitor-ran');
      git(base, 'config', 'core.fsmonitor', `touch ${marker}; false`);
      fs.writeFileSync(path.join(repo, 'f'), 'x');
      const child = buildChildEnv({ ...base, ...GEMINI_SAFE_GIT_ENV }, []).env;
      git(child, 'status', '--porcelain');
      expect(fs.existsSync(marker)).toBe(false);
      // The planted monitor is real: without the agent's settings git runs it.
      git(buildChildEnv(base, []).env, 'status', '--porcelain');
      expect(fs.existsSync(marker)).toBe(true);
    } finally {
      fs.rmSync(repo, { recursive: true, force: true });
    }
  });
});
