/**
 * bench/classify: per-line cost of classifyBash on the labelled corpus, beside the bare
 * tree-sitter parse of the same lines and a shell-quote split, measured in one run.
 * Run: npx tsx bench/classify.ts [rounds]
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse as shellQuote } from 'shell-quote';
import { classifyBash } from '../dist/bash/classify.js';
import { summarize, table, timeMicros } from './stats.js';

const require = createRequire(import.meta.url);
const rounds = Number(process.argv[2] ?? 30);
const corpusFile = path.join(import.meta.dirname, '..', 'test', 'fixtures', 'bash-labelled.jsonl');
const lines = fs
  .readFileSync(corpusFile, 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { command: string }).command);

const Parser = require('tree-sitter');
const Bash = require('tree-sitter-bash');
const parser = new Parser();
parser.setLanguage(Bash);

const subjects: Record<string, (line: string) => void> = {
  'tree-sitter parse (bare)': (l) => parser.parse(l),
  'shell-quote split': (l) => shellQuote(l, (k: string) => `$${k}`),
  'classifyBash (toolgate)': (l) => classifyBash(l),
};

// Warm up every subject (JIT, grammar load) before measuring.
for (const fn of Object.values(subjects)) for (let i = 0; i < 3; i++) for (const l of lines) fn(l);

// Interleave subjects per line so machine noise hits them alike.
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(subjects).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const l of lines) {
    for (const [name, fn] of Object.entries(subjects)) samples[name]!.push(timeMicros(() => fn(l)));
  }
}

const base = summarize(samples['tree-sitter parse (bare)']!);
const rows = Object.entries(samples).map(([name, s]) => {
  const st = summarize(s);
  return [name, st.median, st.p99, st.median / base.median];
});
console.log(`## bench/classify — ${lines.length} corpus lines x ${rounds} rounds (µs per line)\n`);
console.log(table(['subject', 'median µs', 'p99 µs', 'median vs bare parse'], rows));

// The floor of any classifier on this binding: parse, then visit every node through the cursor
// and read what src/bash/syntax.ts reads (type id; start and end of named nodes; the error flag).
// Measured on its own, after the table above, so it does not change that table's conditions.
const named = new Set(
  (Bash.nodeTypeInfo as { type: string; named: boolean }[]).filter((t) => t.named).map((t) => t.type),
);
const namedById: boolean[] = [];
function parseAndWalk(l: string): number {
  const root = parser.parse(l).rootNode;
  const cursor = root.walk();
  let sum = 0;
  for (;;) {
    const id: number = cursor.nodeTypeId;
    namedById[id] ??= named.has(cursor.nodeType);
    if (namedById[id]) sum += cursor.startIndex + cursor.endIndex;
    if (cursor.gotoFirstChild()) continue;
    while (!cursor.gotoNextSibling()) if (!cursor.gotoParent()) return root.hasError ? -sum : sum;
  }
}
// classifyBash parses with an input buffer the size of the line (src/bash/syntax.ts): the
// binding's default zero-fills 64 KB per parse. Shown here, beside the bare parse, so the table
// above can be read knowing how much of the difference that is.
const sized = (l: string) => parser.parse(l, undefined, { bufferSize: l.length + 1 });
const floor: Record<string, number[]> = {
  'tree-sitter parse (bare)': [],
  'parse, buffer sized to the line': [],
  'parse + cursor walk': [],
};
for (let i = 0; i < 3; i++) for (const l of lines) parseAndWalk(l);
for (let r = 0; r < rounds; r++) {
  for (const l of lines) {
    floor['tree-sitter parse (bare)']!.push(timeMicros(() => parser.parse(l)));
    floor['parse, buffer sized to the line']!.push(timeMicros(() => sized(l)));
    floor['parse + cursor walk']!.push(timeMicros(() => parseAndWalk(l)));
  }
}
const floorBase = summarize(floor['tree-sitter parse (bare)']!);
console.log('\n### the tree walk alone (the floor of a classifier on the node binding)\n');
console.log(
  table(
    ['subject', 'median µs', 'p99 µs', 'median vs bare parse'],
    Object.entries(floor).map(([name, s]) => {
      const st = summarize(s);
      return [name, st.median, st.p99, st.median / floorBase.median];
    }),
  ),
);

// Hostile sizes: each must come back quickly with "too complex".
const hostile: Record<string, string> = {
  '1 MB line': `echo ${'a'.repeat(1024 * 1024)}`,
  '10,000-deep $( ) nesting': `${'$('.repeat(10_000)}ls${')'.repeat(10_000)}`,
  '10,000-deep ( ) nesting': `${'('.repeat(10_000)}ls${')'.repeat(10_000)}`,
  '100,000 pipes': Array.from({ length: 100_000 }, () => 'cat').join(' | '),
  '6,000 pipes (under the size limit)': Array.from({ length: 6_000 }, () => 'cat').join(' | '),
};
const hostileRows = Object.entries(hostile).map(([name, line]) => {
  const times: number[] = [];
  let readOnly = true;
  for (let i = 0; i < 5; i++) times.push(timeMicros(() => (readOnly = classifyBash(line).readOnly)) / 1000);
  return [name, summarize(times).median, readOnly ? 'read-only' : 'not read-only'];
});
console.log('\n### hostile inputs (ms, median of 5)\n');
console.log(table(['input', 'median ms', 'answer'], hostileRows));
