import { describe, expect, it } from 'vitest';
import { sarifLog } from '../../src/cli/sarif.js';
import { readJunit } from '../helpers/junit-xml.js';
import { sarifErrors } from '../helpers/sarif-schema.js';

/**
 * The checks the CLI's SARIF and JUnit output are held to (test/cli/policy-dirs.test.ts runs
 * them on the real CLI's output) refuse what the text checks they replaced let through.
 */
const good = sarifLog(
  '0.1.0',
  [{ id: 'test-failed', description: 'A policy test failed' }],
  [{ ruleId: 'test-failed', level: 'error', message: 'expected deny', file: 'p.yaml', line: 3 }],
);

describe('SARIF against the SARIF 2.1.0 schema', () => {
  it('takes what sarifLog writes', () => {
    expect(sarifErrors(good)).toEqual([]);
  });

  it('refuses an unknown property, a start line of 0, and a URI with a space', () => {
    const result = good.runs[0]!.results[0]!;
    const log = (r: object) => ({ ...good, runs: [{ ...good.runs[0]!, results: [{ ...result, ...r }] }] });
    expect(sarifErrors(log({ severity: 'high' }))).toContainEqual(
      expect.stringMatching(/must NOT have additional properties/),
    );
    const at = (region: object, uri = 'p.yaml') => ({
      locations: [{ physicalLocation: { artifactLocation: { uri }, region } }],
    });
    expect(sarifErrors(log(at({ startLine: 0 })))).toContainEqual(
      expect.stringMatching(/startLine must be >= 1/),
    );
    expect(sarifErrors(log(at({ startLine: 1 }, 'a b.yaml')))).toContainEqual(
      expect.stringMatching(/uri must match format "uri-reference"/),
    );
    expect(sarifErrors({ ...good, version: '2.0.0' })).not.toEqual([]);
  });
});

describe('JUnit XML read by an XML parser', () => {
  const xml = (inner: string, tests = 1, failures = 0) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="t" tests="${tests}" failures="${failures}">\n  <testsuite name="s" tests="${tests}" failures="${failures}">${inner}</testsuite>\n</testsuites>\n`;

  it('reads the counts, names and failures back', () => {
    const r = readJunit(xml('<testcase name="a &amp; b" classname="p.yaml" file="p.yaml" line="4"/>'));
    expect(r.suites[0]!.cases).toEqual([{ name: 'a & b', classname: 'p.yaml', file: 'p.yaml', line: 4 }]);
  });

  it('refuses a report that is not well-formed or whose counts are not what it holds', () => {
    expect(() => readJunit(xml('<testcase name="a">'))).toThrow(/not well-formed/);
    expect(() => readJunit(xml('<testcase name="a"></failure>'))).toThrow(/not well-formed/);
    expect(() => readJunit(xml('<testcase name="a"/><testcase name="b"/>'))).toThrow(
      /tests="1" but it holds 2/,
    );
    expect(() => readJunit(xml('<testcase name="a"><failure message="m">x</failure></testcase>'))).toThrow(
      /failures="0" but it holds 1/,
    );
  });
});
