import fs from 'node:fs';
import path from 'node:path';
import AjvDraft04 from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';

// Both are CommonJS with the class or plugin as module.exports.default too.
const { default: Ajv } = AjvDraft04;
const { default: addFormats } = ajvFormats;

/**
 * SARIF 2.1.0 validated against the published schema (test/fixtures/sarif), not against what
 * a test author remembers of it: code-scanning services reject a log the schema rejects, and a
 * hand-written check only tests the fields it thought of.
 */
const schema = JSON.parse(
  fs.readFileSync(
    path.join(import.meta.dirname, '..', 'fixtures', 'sarif', 'sarif-2.1.0-rtm.5.json'),
    'utf8',
  ),
);
// unicodeRegExp off: rtm.5's run.language pattern has a stray `]` (fixed in the OASIS errata),
// legal in a JavaScript regular expression only without the u flag.
const ajv = new Ajv({ allErrors: true, unicodeRegExp: false });
addFormats(ajv);
const validate = ajv.compile(schema);

/** The schema's complaints about `log`, one line each ([] when it is valid SARIF 2.1.0). */
export function sarifErrors(log: unknown): string[] {
  if (validate(log)) return [];
  return (validate.errors ?? []).map(
    (e: { instancePath: string; message?: string }) => `${e.instancePath || '/'} ${e.message ?? ''}`,
  );
}
