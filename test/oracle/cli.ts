/**
 * `npm run oracle -- [--stdin | FILE...] [--jobs N] [--timeout MS] [--classify]`: run each JSON Lines
 * record's `command` in the jail and print the record again with an `oracle` field (what the run
 * did). With --classify, also classifyBash's answer, and a summary on stderr of the lines it calls
 * read-only that the oracle saw do something (false read-only) and its read-only recall.
 */
import fs from 'node:fs';
import { classifyBash } from '../../src/bash/classify.js';
import { probeOracle, runOracle } from './jail.js';
import { verdictOf } from './verdict.js';

const args = process.argv.slice(2);
const flag = (name: string) => args.includes(name);
const value = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const jobs = value('--jobs', 2);
const timeoutMs = value('--timeout', 10_000);
const files = args.filter(
  (a, i) => !a.startsWith('--') && !['--jobs', '--timeout'].includes(args[i - 1] ?? ''),
);

const probe = probeOracle();
if (!probe.available) {
  process.stderr.write(`oracle: ${probe.reason}\n`);
  process.exit(2);
}

const text =
  flag('--stdin') || files.length === 0
    ? fs.readFileSync(0, 'utf8')
    : files.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
const records = text
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Record<string, unknown> & { command: string });

let falseReadOnly = 0;
let provenReadOnly = 0;
let claimedReadOnly = 0;
let next = 0;
const results: string[] = new Array(records.length);
async function worker(): Promise<void> {
  while (next < records.length) {
    const i = next++;
    const record = records[i]!;
    const oracle = verdictOf(await runOracle(record.command, { timeoutMs }));
    const out: Record<string, unknown> = { ...record, oracle };
    if (flag('--classify')) {
      const classified = classifyBash(record.command).readOnly;
      out.classifiedReadOnly = classified;
      if (oracle.readOnly) provenReadOnly++;
      if (classified && oracle.readOnly) claimedReadOnly++;
      if (classified && !oracle.readOnly) {
        falseReadOnly++;
        process.stderr.write(`FALSE READ-ONLY: ${record.command}  <-  ${oracle.effects.join('; ')}\n`);
      }
    }
    results[i] = JSON.stringify(out);
    // In input order, as soon as the lines before are done: a long run shows progress.
    while (written < records.length && results[written] !== undefined)
      process.stdout.write(`${results[written++]}\n`);
  }
}
let written = 0;
await Promise.all(Array.from({ length: Math.max(1, jobs) }, worker));
if (flag('--classify'))
  process.stderr.write(
    `oracle: ${records.length} lines; false read-only ${falseReadOnly}; read-only recall ${claimedReadOnly}/${provenReadOnly}\n`,
  );
