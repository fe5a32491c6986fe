import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeLine } from '../../src/bash/analyze.js';
import { parseConfigParameters } from '../../src/bash/commands/git-environment.js';

/**
 * git's configuration from the environment (src/bash/commands/git-environment.ts): the
 * GIT_CONFIG_PARAMETERS reader must take exactly what git takes, since an alias it misreads
 * is a `git push` a deny rule never meets. Checked against git itself: `git config --list
 * --show-scope` prints the command-line settings git read from the variable.
 */

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-git-env-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

/** What git reads from GIT_CONFIG_PARAMETERS=text, or undefined when git refuses it. */
function gitReads(text: string): string[] | undefined {
  const r = spawnSync('git', ['config', '--list', '--show-scope'], {
    cwd: home,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_PARAMETERS: text },
  });
  if (r.status !== 0) return undefined;
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('command\t'))
    .map((l) => l.slice('command\t'.length));
}

/** Keys as git prints them: section and name in lower case (a subsection keeps its case); a bare key is `true`. */
function canonical(setting: string): string {
  const eq = setting.indexOf('=');
  const key = eq < 0 ? setting : setting.slice(0, eq);
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  const canon =
    first < 0
      ? key.toLowerCase()
      : key.slice(0, first).toLowerCase() + key.slice(first, last) + key.slice(last).toLowerCase();
  return eq < 0 ? canon : canon + setting.slice(eq);
}

const hasGit = spawnSync('git', ['--version']).status === 0;

describe.skipIf(!hasGit)('GIT_CONFIG_PARAMETERS is read as git reads it', () => {
  it.each([
    ["'alias.p'='push'", ['alias.p=push']],
    ["'alias.p=push'", ['alias.p=push']],
    ["'x.y'='1' 'alias.p'='push -f'", ['x.y=1', 'alias.p=push -f']],
    ["'alias.p'='it'\\''s'", ["alias.p=it's"]],
    ["'core.bare'=", ['core.bare']],
    [" 'alias.p=push'", undefined],
    ["'alias.p'=push", undefined],
    ["'alias.p", undefined],
  ])('%s', (text, want) => {
    expect(parseConfigParameters(text)).toEqual(want);
    const git = gitReads(text);
    expect(git).toEqual(want === undefined ? undefined : want.map(canonical));
  });

  it('property: whatever git takes, the reader takes the same settings', () => {
    const piece = fc.constantFrom("'", "'", '=', '\\', '!', ' ', 'a', 'b', '.', 'alias.p', 'push', "'\\''");
    const quoted = fc
      .tuple(fc.constantFrom('alias.p', 'x.y', 'A.b', 'core.bare'), fc.constantFrom('push', "a'b", 'x y', ''))
      .map(([k, v]) => `'${k}'='${v.replaceAll("'", "'\\''")}'`);
    const text = fc.oneof(
      fc.array(piece, { maxLength: 12 }).map((p) => p.join('')),
      fc.array(quoted, { minLength: 1, maxLength: 3 }).map((q) => q.join(' ')),
    );
    fc.assert(
      fc.property(text, (t) => {
        const git = gitReads(t);
        if (git === undefined) return; // git refuses it and runs nothing
        const ours = parseConfigParameters(t);
        expect(ours?.map(canonical)).toEqual(git);
      }),
      { numRuns: 150, seed: 1616 },
    );
  });
});

describe('the environment makes a git command run in another form', () => {
  /** Each git command the line runs, without its `-c` settings. */
  const forms = (line: string) =>
    analyzeLine(line)
      .reports.map((r) => r.argv.map((w) => w.value).join(' '))
      .filter((t) => t.startsWith('git '))
      .map((t) => t.replace(/ -c \S+/g, ''));
  it('an alias to a reading command stays that command', () => {
    const f = forms(`GIT_CONFIG_PARAMETERS="'alias.x'='status'" git x`);
    expect(f).toContain('git status');
    expect(f.some((t) => t.includes('push'))).toBe(false);
  });
  it('every value the line shows is a form of its own', () => {
    const f = forms('X=log; X=push; export X; git --config-env=alias.x=X x');
    expect(f).toContain('git push');
    expect(f).toContain('git log');
  });
  it('too many combinations fail closed', () => {
    const values = Array.from({ length: 5 }, (_, i) => `if a; then V=${i}; fi`).join('; ');
    const line = `${values}; export V; GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0=$V git --config-env=a.b=V --config-env=c.d=V x`;
    const git = analyzeLine(line).reports.find((r) => r.argv[0]?.value === 'git' && r.via === 'line');
    expect(git?.unknownCode.join(' ')).toMatch(/more environment values than can be checked/);
  });
});
