import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { readJunit } from '../helpers/junit-xml.js';
import { runMain } from '../helpers/main-in-process.js';
import { sarifErrors } from '../helpers/sarif-schema.js';

/**
 * `toolgate test` / `toolgate lint` on a directory, as `opa test .` (issue 19): every policy
 * file under it, each on its own; no argument is the current directory; results as SARIF 2.1.0
 * or JUnit XML for CI. Through the CLI: the real process for the main cases, in-process for
 * the rest.
 */
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-policy-dirs-')));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));
let n = 0;
let dir = '';
beforeEach(() => {
  dir = path.join(base, String(++n));
  fs.mkdirSync(dir);
});

function write(rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), text);
}

const PROJECT = `version: 1
extends: builtin:default
rules:
  - deny: "Bash(terraform apply*)"
tests:
  - { name: no apply, tool: Bash, input: { command: "terraform apply" }, expect: deny }
`;
// A second policy in the tree, with a test that fails: "x < & \\"y\\"" must reach the reports escaped.
const TEAM = `version: 1
rules:
  - deny: "Bash(rm *)"
  - allow: "Bash(make test)"
tests:
  - { name: rm is denied, tool: Bash, input: { command: "rm -rf build" }, expect: deny }
  - { name: "x < & \\"y\\" fails", tool: Bash, input: { command: "rm -rf build" }, expect: allow }
`;

/** A project with two policy files, and JSON and YAML files that are not policies. */
function project(): void {
  write('.toolgate/policy.yaml', PROJECT);
  write('policies/team.yaml', TEAM);
  write('package.json', '{"name": "p", "version": 1}');
  write('docker-compose.yml', "version: '3'\nservices: {}\n");
  write('.cursor/hooks.json', '{"version": 1, "hooks": {}}');
  write('.claude/settings.json', '{"permissions": {"allow": ["Bash(npm *)"]}}');
  // not this project's, and broken: never read
  write('node_modules/dep/.toolgate/policy.yaml', 'rules: [');
}

describe('toolgate test DIR', () => {
  it('with no argument tests every policy file under the current directory, each on its own', async () => {
    project();
    const r = await runCli(['test'], { cwd: dir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('2 passed, 1 failed (3 tests in .toolgate/policy.yaml, policies/team.yaml)');
    expect(r.stdout).toMatch(/^FAIL policies\/team\.yaml:7 {2}x < & "y" fails$/m);
    // each file on its own: team.yaml's allow is not cut short by the project's default
    expect(r.stdout).toContain('rules no test exercised:\n  policies/team.yaml:4  allow Bash(make test)');
    const dot = await runMain(['test', '.', '--json'], { cwd: dir });
    const named = await runMain(['test', 'policies/team.yaml', '--json'], { cwd: dir });
    expect(JSON.parse(dot.stdout)).toMatchObject({ total: 3, passed: 2, failed: 1 });
    expect(JSON.parse(named.stdout)).toMatchObject({ total: 2, passed: 1, failed: 1 });
  });

  it('a broken file in .toolgate/ fails the run; a directory without policies is a usage error', async () => {
    write('.toolgate/policy.yaml', 'version: 1\nrules: [\n');
    const broken = await runMain(['test'], { cwd: dir });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/the policy does not load:\n {2}.*\.toolgate\/policy\.yaml:/);
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    write('empty/README.md', '# nothing\n');
    const none = await runMain(['test', 'empty'], { cwd: dir });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/no policy file under empty/);
    const lint = await runMain(['lint', 'empty'], { cwd: dir });
    expect(lint.code).toBe(2);
  });

  it('--format junit: a testsuite per policy file, a testcase per test, the failure escaped', async () => {
    project();
    const r = await runCli(['test', '--format', 'junit'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    // parsed as CI parses it: well-formed, every count matching the elements it holds
    const report = readJunit(r.stdout);
    expect(report).toMatchObject({ name: 'toolgate test', tests: 3, failures: 1 });
    expect(report.suites.map((s) => [s.name, s.tests, s.failures])).toEqual([
      ['.toolgate/policy.yaml', 1, 0],
      ['policies/team.yaml', 2, 1],
    ]);
    const failed = report.suites[1]!.cases.find((c) => c.failure !== undefined)!;
    expect(failed).toMatchObject({
      name: 'x < & "y" fails',
      classname: 'policies/team.yaml',
      file: 'policies/team.yaml',
      line: 7,
      failure: { message: 'expected allow, got deny' },
    });
    expect(failed.failure!.text).toMatch(/reason: \S/);
  });

  it('--format sarif: SARIF 2.1.0, each failure an error result at its test line', async () => {
    project();
    const r = await runMain(['test', '--format', 'sarif'], { cwd: dir });
    expect(r.code).toBe(1);
    const log = JSON.parse(r.stdout);
    checkSarif(log);
    const results = log.runs[0].results as SarifResult[];
    const failed = results.filter((x) => x.ruleId === 'test-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      level: 'error',
      locations: [
        { physicalLocation: { artifactLocation: { uri: 'policies/team.yaml' }, region: { startLine: 7 } } },
      ],
    });
    expect(results.filter((x) => x.ruleId === 'rule-not-exercised').map((x) => x.level)).toEqual(['note']);
  });
});

describe('toolgate lint DIR', () => {
  it('lints every policy file and Claude Code settings file under the directory', async () => {
    project();
    const r = await runCli(['lint', '--format', 'sarif'], { cwd: dir });
    expect(r.code, r.stderr).toBe(1);
    const log = JSON.parse(r.stdout);
    checkSarif(log);
    const results = log.runs[0].results as SarifResult[];
    // Bash(npm *) in Claude Code's settings grants arbitrary code execution: an error there
    expect(results).toContainEqual(
      expect.objectContaining({
        ruleId: 'broad-allow',
        level: 'error',
        locations: [
          expect.objectContaining({
            physicalLocation: expect.objectContaining({ artifactLocation: { uri: '.claude/settings.json' } }),
          }),
        ],
      }),
    );
    const text = await runMain(['lint'], { cwd: dir });
    expect(text.stdout).toMatch(
      /in \.claude\/settings\.json, \.toolgate\/policy\.yaml, policies\/team\.yaml\n$/,
    );
    const junit = await runMain(['lint', '--format', 'junit'], { cwd: dir });
    const report = readJunit(junit.stdout);
    expect(report).toMatchObject({ name: 'toolgate lint', tests: 3, failures: 1 });
    const cases = report.suites.flatMap((x) => x.cases);
    expect(cases.filter((c) => c.failure).map((c) => [c.name, c.failure!.message])).toEqual([
      ['lint .claude/settings.json', '1 error'],
    ]);
  });

  it('--format takes one of its formats, and not two at once', async () => {
    write('.toolgate/policy.yaml', PROJECT);
    const bad = await runMain(['lint', '--format', 'xml'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format xml: no such format — use one of text, json, sarif, junit/);
    const two = await runMain(['test', '--json', '--format', 'junit'], { cwd: dir });
    expect(two.code).toBe(2);
  });
});

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: { physicalLocation: { artifactLocation: { uri: string }; region?: { startLine: number } } }[];
}

/**
 * Valid against the SARIF 2.1.0 schema (ajv), and what the schema cannot say: one run by
 * toolgate, each result's ruleIndex pointing at its ruleId, paths relative as the services
 * resolve them against the checkout.
 */
function checkSarif(log: {
  runs: { tool: { driver: { name: string; rules: { id: string }[] } }; results: SarifResult[] }[];
}): void {
  expect(sarifErrors(log)).toEqual([]);
  expect(log.runs).toHaveLength(1);
  const { driver } = log.runs[0]!.tool;
  expect(driver.name).toBe('toolgate');
  for (const r of log.runs[0]!.results) {
    expect(driver.rules[r.ruleIndex]?.id).toBe(r.ruleId);
    for (const l of r.locations) expect(l.physicalLocation.artifactLocation.uri).not.toMatch(/^\/|\\/);
  }
}
