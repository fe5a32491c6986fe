/**
 * JUnit XML, the report CI systems read for test results (Jenkins, GitLab's
 * artifacts:reports:junit, GitHub test-reporter actions): a testsuites element holding one
 * testsuite per policy file, a testcase per test, a failure element for each that failed.
 */
export interface JunitCase {
  readonly name: string;
  /** The file the case is in, and where (shown as classname, file and line). */
  readonly file: string;
  readonly line?: number;
  /** Set when the case failed: a one-line message and the details. */
  readonly failure?: { readonly message: string; readonly details: string };
  readonly output?: string;
}

export interface JunitSuite {
  readonly name: string;
  readonly cases: readonly JunitCase[];
}

export function junitXml(name: string, suites: readonly JunitSuite[]): string {
  const count = (cases: readonly JunitCase[]) => ({
    tests: cases.length,
    failures: cases.filter((c) => c.failure !== undefined).length,
  });
  const all = count(suites.flatMap((s) => s.cases));
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${esc(name)}" tests="${all.tests}" failures="${all.failures}" errors="0">`,
  ];
  for (const s of suites) {
    const c = count(s.cases);
    out.push(
      `  <testsuite name="${esc(s.name)}" tests="${c.tests}" failures="${c.failures}" errors="0" skipped="0">`,
    );
    for (const t of s.cases) {
      const attrs = `name="${esc(t.name)}" classname="${esc(t.file)}" file="${esc(t.file)}"${t.line === undefined ? '' : ` line="${t.line}"`}`;
      if (t.failure === undefined && t.output === undefined) {
        out.push(`    <testcase ${attrs}/>`);
        continue;
      }
      out.push(`    <testcase ${attrs}>`);
      if (t.failure !== undefined)
        out.push(`      <failure message="${esc(t.failure.message)}">${esc(t.failure.details)}</failure>`);
      if (t.output !== undefined) out.push(`      <system-out>${esc(t.output)}</system-out>`);
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/**
 * Text as XML 1.0 attribute or element content: the five special characters escaped, and the
 * characters XML 1.0 cannot hold at all (most C0 controls, lone surrogates) as U+FFFD, so
 * that a command line with control bytes in a test cannot make the report unreadable.
 */
export function esc(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}
