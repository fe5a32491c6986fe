import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadPolicyFiles } from '../../src/policy/layers.js';
import { runPolicyTests } from '../../src/policy/test.js';
import { snapshot } from '../audit/fixtures/decided.js';
import { tempDir } from '../audit/fixtures/sample.js';
import { runMain } from '../helpers/main-in-process.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const t = tempDir();
afterAll(() => t.cleanup());
let n = 0;
let dir = '';
beforeEach(() => {
  dir = join(t.dir, String(++n));
  mkdirSync(dir);
});

const toolgate = (argv: string[], cwd = dir) => runMain(['test', ...argv], { cwd });

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

const GUARDED = `version: 1
rules:
  - id: no-curl
    deny: "Bash(curl *)"
  - allow: "Bash(make test)"
  - ask: "Bash(git push *)"
tests:
  - { name: curl is denied, tool: Bash, input: { command: "curl https://example.com" }, expect: deny }
  - { name: make test runs, tool: Bash, input: { command: "make test" }, expect: allow }
`;

describe('toolgate test', () => {
  it.each(['default', 'strict', 'readonly-review'])('passes on the built-in policy %s', async (name) => {
    const byPath = await toolgate([`policies/${name}.yaml`], REPO);
    expect(byPath.code).toBe(0);
    expect(byPath.stdout).toMatch(
      new RegExp(`^\\d+ passed, 0 failed \\(\\d+ tests? in policies/${name}\\.yaml\\)`),
    );
    const byName = await toolgate([`builtin:${name}`]);
    expect(byName.code).toBe(0);
  });

  it('counts coverage as runPolicyTests does for a policy without extends', async () => {
    const file = join(REPO, 'policies/default.yaml');
    const own = runPolicyTests(loadPolicyFiles([{ file, layer: 'cli' }]), { cwd: dir });
    const r = await toolgate([file, '--json']);
    const report = JSON.parse(r.stdout);
    expect(report.coverage.covered).toBe(own.covered.length);
    expect(report.coverage.rules).toBe(own.covered.length + own.uncovered.length);
    expect(report.coverage.uncovered).toHaveLength(own.uncovered.length);
  });

  it('reports rules no test exercised, in file order', async () => {
    const r = await toolgate([write('p.yaml', GUARDED)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^2 passed, 0 failed \(2 tests in p\.yaml\)\n/);
    expect(r.stdout).toMatch(/rule coverage: 2 of 3 rule\(s\) decided at least one test \(66\.7%\)\n/);
    expect(r.stdout).toMatch(/rules no test exercised:\n {2}p\.yaml:6 {2}ask Bash\(git push \*\)\n$/);
  });

  it('exits 1 naming the file:line of a failing test and the reason of the decision', async () => {
    const text = `${GUARDED}  - { name: pushes are fine, tool: Bash, input: { command: "git push origin main" }, expect: allow }\n`;
    const r = await toolgate([write('p.yaml', text)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^FAIL p\.yaml:10 {2}pushes are fine\n/);
    expect(r.stdout).toMatch(/ {5}Bash \{"command":"git push origin main"\}\n/);
    expect(r.stdout).toMatch(
      /expected allow, got ask \(decided by rule: Bash\(git push \*\) \(p\.yaml:6\)\)/,
    );
    expect(r.stdout).toMatch(/reason: Needs approval by rule "Bash\(git push \*\)"/);
    expect(r.stdout).toMatch(/2 passed, 1 failed \(3 tests in p\.yaml\)/);
    const json = JSON.parse((await toolgate(['p.yaml', '--json'])).stdout);
    expect(json).toMatchObject({
      ok: false,
      failed: 1,
      failures: [{ file: 'p.yaml', line: 10, name: 'pushes are fine', expect: 'allow', got: 'ask' }],
    });
  });

  it('reports a reason that does not match the expected pattern', async () => {
    const text = `${GUARDED}  - { tool: Bash, input: { command: "curl x" }, expect: deny, reason: "no network" }\n`;
    const r = await toolgate([write('p.yaml', text)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/FAIL p\.yaml:10\n[\s\S]*does not match \/no network\//);
  });

  it('applies --min-coverage as a percentage', async () => {
    write('p.yaml', GUARDED);
    expect((await toolgate(['p.yaml', '--min-coverage', '66'])).code).toBe(0);
    const low = await toolgate(['p.yaml', '--min-coverage', '67']);
    expect(low.code).toBe(1);
    expect(low.stdout).toMatch(/\(66\.7%\), minimum 67%: TOO LOW/);
    expect((await toolgate(['p.yaml', '--min-coverage', '100%'])).code).toBe(1);
    expect((await toolgate(['p.yaml', '--min-coverage', '0'])).code).toBe(0);
  });

  it('tests the given files as one merged policy', async () => {
    write(
      'tests.yaml',
      'version: 1\ntests:\n  - { tool: Bash, input: { command: "curl x" }, expect: deny }\n',
    );
    write('rules.yaml', 'version: 1\nrules:\n  - deny: "Bash(curl *)"\n');
    expect((await toolgate(['tests.yaml'])).code).toBe(1);
    expect((await toolgate(['tests.yaml', 'rules.yaml'])).code).toBe(0);
  });

  it('runs tests in a fresh workspace unless a test gives its cwd', async () => {
    const text = `version: 1
rules:
  - deny: "Read(//srv/app/**)"
tests:
  - { tool: Read, input: { file_path: config.json }, expect: allow }
  - { tool: Read, input: { file_path: config.json }, cwd: /srv/app, expect: deny }
`;
    const r = await toolgate([write('p.yaml', text)]);
    expect(r.stdout).toMatch(/^2 passed/);
    expect(r.code).toBe(0);
  });

  it('runs conditions of the policy', async () => {
    const text = `version: 1
rules:
  - allow: "WebFetch(domain:*.github.com)"
    when: "input.url.startsWith('https://')"
tests:
  - { tool: WebFetch, input: { url: "https://api.github.com/x" }, expect: allow }
  - { tool: WebFetch, input: { url: "http://api.github.com/x" }, expect: ask }
`;
    expect(await toolgate([write('p.yaml', text)])).toMatchObject({ code: 0 });
  });

  it('exits 1 when there is no test to run', async () => {
    const r = await toolgate([write('p.yaml', 'version: 1\nrules:\n  - deny: Bash\n')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^no tests: p\.yaml has no "tests:" to run/);
  });

  describe('a policy that does not load: exit 2, every problem with file:line, nothing written', () => {
    it.each([
      ['a bad rule', 'version: 1\nrules:\n  - allow: "Bash("\n', /p\.yaml:3:\d+: bad allow rule/],
      [
        'a bad test',
        'version: 1\ntests:\n  - { tool: Bash, expect: maybe }\n',
        /p\.yaml:3:\d+: tests\.0\.expect/,
      ],
      ['not YAML', 'version: 1\nrules: [\n', /p\.yaml:\d+:\d+: /],
      [
        'a condition that does not compile',
        'version: 1\nrules:\n  - allow: Read\n    when: "input.("\n',
        /p\.yaml:4:\d+: condition does not compile/,
      ],
    ])('%s', async (_what, text, message) => {
      write('p.yaml', text);
      const before = snapshot(dir);
      const r = await toolgate(['p.yaml']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^toolgate test: the policy does not load:\n/);
      expect(r.stderr).toMatch(message);
      expect(snapshot(dir)).toEqual(before);
    });

    it('a missing file', async () => {
      const r = await toolgate(['nope.yaml']);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/nope\.yaml: cannot read the policy file: no such file/);
    });
  });

  describe('usage errors exit 2', () => {
    it.each([
      [[]],
      [['p.yaml', '--min-coverage', '150']],
      [['p.yaml', '--min-coverage', 'most']],
      [['--bogus']],
    ])('%j', async (argv) => {
      const r = await toolgate(argv);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^toolgate test: /);
    });
  });
});
