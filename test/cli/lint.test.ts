import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
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

const toolgate = (argv: string[], cwd = dir) =>
  runMain(['lint', ...argv], { cwd, env: { HOME: join(t.dir, 'home') } });

function write(name: string, text: string): string {
  writeFileSync(join(dir, name), text);
  return name;
}

describe('toolgate lint', () => {
  it.each(['default', 'strict', 'readonly-review'])('exits 0 on the built-in policy %s', async (name) => {
    const r = await toolgate([`policies/${name}.yaml`], REPO);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(`0 errors, \\d+ warnings?, \\d+ notes? in policies/${name}\\.yaml\\n$`),
    );
  });

  it('exits 1 on an error-level finding, printing file:line, severity, kind, rule and message', async () => {
    write(
      'p.yaml',
      'version: 1\nrules:\n  - allow: ["Bash(git status)", "Bash(python *)"]\n  - deny: Bassh\n',
    );
    const r = await toolgate(['p.yaml']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(
      [
        'p.yaml:3: error [broad-allow] Bash(python *)',
        '  allows "python -c print(1)": an interpreter runs whatever code it is given, so this rule grants arbitrary code execution (and a way around every Bash deny rule)',
        'p.yaml:4: error [unknown-tool] Bassh',
        '  "Bassh" is not a tool toolgate knows (nor an mcp__ tool): the rule applies only to a tool of exactly that name, and a deny rule on a misspelled name protects nothing; did you mean "Bash"?',
        '2 errors, 0 warnings, 0 notes in p.yaml',
        '',
      ].join('\n'),
    );
  });

  it('exits 0 with warnings, and prints them', async () => {
    write(
      'p.yaml',
      'version: 1\nrules:\n  - deny: "Bash(git push *)"\n  - allow: "Bash(git push origin main)"\n',
    );
    const r = await toolgate(['p.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^p\.yaml:4: warning \[shadowed\] Bash\(git push origin main\)\n {2}never applies: /,
    );
    expect(r.stdout).toMatch(/0 errors, 1 warning, 0 notes in p\.yaml\n$/);
  });

  it('lints several files as one policy, naming the file of each finding', async () => {
    write('a.yaml', 'version: 1\nrules:\n  - deny: "Read(./secrets/**)"\n');
    write('b.yaml', 'version: 1\nrules:\n  - allow: "Read(./secrets/**)"\n  - deny: "Read(./secrets/**)"\n');
    mkdirSync(join(dir, 'secrets'));
    const r = await toolgate(['a.yaml', 'b.yaml', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      ok: true,
      findings: [
        expect.objectContaining({ file: 'b.yaml', line: 3, kind: 'shadowed', rule: 'Read(./secrets/**)' }),
        expect.objectContaining({
          file: 'b.yaml',
          line: 4,
          kind: 'duplicate',
          message: expect.stringContaining('a.yaml:3'),
        }),
      ],
    });
  });

  it('resolves ./x anchors against --cwd', async () => {
    write('p.yaml', 'version: 1\nrules:\n  - allow: "Edit(./build/**)"\n');
    expect((await toolgate(['p.yaml'])).stdout).toMatch(/warning \[dangling-anchor\]/);
    mkdirSync(join(dir, 'ws', 'build'), { recursive: true });
    expect((await toolgate(['p.yaml', '--cwd', 'ws'])).stdout).toBe(
      '0 errors, 0 warnings, 0 notes in p.yaml\n',
    );
  });

  describe('a policy that does not load is an error finding (exit 1), and nothing is written', () => {
    it.each([
      [
        'a bad rule',
        'version: 1\nrules:\n  - allow: "Bash("\n',
        /^p\.yaml:3:\d+: error \[invalid\] Bash\(\n {2}bad allow rule/,
      ],
      [
        'a condition that does not compile',
        'version: 1\nrules:\n  - allow: Read\n    when: "input.("\n',
        /^p\.yaml:4:\d+: error \[condition\]/,
      ],
      ['not YAML', 'rules: [\n', /^p\.yaml:\d+:\d+: error \[invalid\]/],
    ])('%s', async (_what, text, message) => {
      write('p.yaml', text);
      const before = snapshot(dir);
      const r = await toolgate(['p.yaml']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(message);
      expect(snapshot(dir)).toEqual(before);
    });

    it('a missing file', async () => {
      const r = await toolgate(['nope.yaml']);
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(
        /nope\.yaml: error \[invalid\]\n {2}cannot read the policy file: no such file/,
      );
    });
  });

  it('usage errors exit 2', async () => {
    expect((await toolgate([])).code).toBe(2);
    expect((await toolgate(['p.yaml', '--bogus'])).code).toBe(2);
  });

  it('prints its help with --help', async () => {
    const r = await toolgate(['--help']);
    expect(r).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^usage: toolgate lint \[POLICY \| DIR\]/),
    });
  });
});
