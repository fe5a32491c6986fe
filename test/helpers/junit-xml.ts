import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * JUnit XML read by a real XML parser, as CI systems read it: well-formed or an error, and
 * the counts each element claims held against the elements it holds (a report whose
 * `tests="3"` sits over two testcases shows the wrong totals in CI, yet text-matches fine).
 * fast-xml-parser's validator catches unclosed and mismatched elements but lets a raw `<`
 * inside an attribute value through; test/cli/junit.test.ts holds the escaping to XML 1.0.
 */
export interface JunitReport {
  name: string;
  tests: number;
  failures: number;
  suites: { name: string; tests: number; failures: number; cases: JunitCaseRead[] }[];
}

export interface JunitCaseRead {
  name: string;
  classname: string;
  file: string;
  line?: number;
  failure?: { message: string; text: string };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: '#text',
  parseAttributeValue: false,
  isArray: (name) => name === 'testsuite' || name === 'testcase' || name === 'failure',
});

/** Parses `xml` and throws unless it is well-formed and every count matches what it holds. */
export function readJunit(xml: string): JunitReport {
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`not well-formed XML: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as { testsuites?: Record<string, unknown> };
  const root = doc.testsuites;
  if (root === undefined) throw new Error('no <testsuites> root element');
  const suites = ((root.testsuite ?? []) as Record<string, unknown>[]).map((s) => {
    const cases = ((s.testcase ?? []) as Record<string, unknown>[]).map(readCase);
    const suite = {
      name: String(s.name),
      tests: Number(s.tests),
      failures: Number(s.failures),
      cases,
    };
    expectCount(`testsuite ${suite.name} tests`, suite.tests, cases.length);
    expectCount(`testsuite ${suite.name} failures`, suite.failures, cases.filter((c) => c.failure).length);
    return suite;
  });
  const report = {
    name: String(root.name),
    tests: Number(root.tests),
    failures: Number(root.failures),
    suites,
  };
  expectCount('testsuites tests', report.tests, sum(suites.map((s) => s.cases.length)));
  expectCount('testsuites failures', report.failures, sum(suites.map((s) => s.failures)));
  return report;
}

function readCase(c: Record<string, unknown>): JunitCaseRead {
  const failures = (c.failure ?? []) as (Record<string, unknown> | string)[];
  if (failures.length > 1) throw new Error(`testcase ${String(c.name)} has ${failures.length} failures`);
  const f = failures[0];
  return {
    name: String(c.name),
    classname: String(c.classname),
    file: String(c.file),
    ...(c.line !== undefined && { line: Number(c.line) }),
    ...(f !== undefined && {
      failure:
        typeof f === 'string'
          ? { message: '', text: f }
          : { message: String(f.message ?? ''), text: String(f['#text'] ?? '') },
    }),
  };
}

function expectCount(what: string, claimed: number, held: number): void {
  if (claimed !== held) throw new Error(`${what}="${claimed}" but it holds ${held}`);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
