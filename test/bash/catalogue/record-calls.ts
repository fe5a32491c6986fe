/**
 * `npx tsx test/bash/catalogue/record-calls.ts GROUP...`: record what the catalogue's analyzers
 * of each group do on its lines into test/fixtures/catalogue-calls/GROUP.jsonl. Run it after a
 * reviewed change to the group's entries; the fixture's diff is the change in behaviour.
 */
import { REGISTRY } from '../../../src/bash/catalogue/index.js';
import { recordCalls, saveCalls } from './recorded-calls.js';
import { linesOf, namesOf, RECORDED_GROUPS, type RecordedGroup } from './recorded-lines.js';

const groups = process.argv.slice(2);
for (const g of groups) {
  if (!(RECORDED_GROUPS as readonly string[]).includes(g)) {
    process.stderr.write(`record-calls: unknown group "${g}" (${RECORDED_GROUPS.join(', ')})\n`);
    process.exit(2);
  }
  const names = namesOf(g);
  const records = recordCalls((n) => REGISTRY.spec(n), new Set(names), linesOf(g as RecordedGroup, names));
  saveCalls(g, records);
  process.stdout.write(`${g}: ${records.length} records\n`);
}
