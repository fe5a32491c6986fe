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
import { simpleSyntax } from '../dist/bash/simple-syntax.js';
import { parseSyntax } from '../dist/bash/syntax.js';
import { summarize, table, timeMicros } from './stats.js';

// toolgate loads tree-sitter itself, as it does in every command and in the hook: it reads the
// binding before tree-sitter's JavaScript wraps it (src/bash/grammar.ts). A process where other
// code loaded tree-sitter first gets the same trees ~1.5 µs slower (the root then comes
// through tree-sitter's getter, which makes and registers an object for it). A parse, not a
// classification: a simple line is classified without loading the parser.
parseSyntax('true', 'bulk');

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

// The same samples by how classifyBash read each line: a simple line's tree built without the
// parser (simple-syntax.ts), or parsed by tree-sitter. Each group beside the bare parse of the
// same lines.
const byPath = new Map<string, { bare: number[]; classify: number[]; lines: number }>();
lines.forEach((l, i) => {
  const path = simpleSyntax(l) !== undefined ? 'simple line, no parse' : 'parsed';
  const group = byPath.get(path) ?? { bare: [], classify: [], lines: 0 };
  byPath.set(path, group);
  group.lines++;
  for (let r = 0; r < rounds; r++) {
    const at = r * lines.length + i;
    group.bare.push(samples['tree-sitter parse (bare)']![at]!);
    group.classify.push(samples['classifyBash (toolgate)']![at]!);
  }
});
console.log('\n### classifyBash by how it read the line\n');
console.log(
  table(
    ['path', 'lines', 'classifyBash median µs', 'bare parse median µs', 'ratio'],
    ['simple line, no parse', 'parsed'].map((path) => {
      const g = byPath.get(path) ?? { bare: [], classify: [], lines: 0 };
      const c = summarize(g.classify).median;
      const b = summarize(g.bare).median;
      return [path, String(g.lines), c, b, c / b];
    }),
  ),
);

// Where classifyBash's time goes on a line it parses: the parse with the input buffer it uses
// (the binding's default zero-fills 64 KB per parse), then the copy of the tree it reads
// (src/bash/syntax.ts) by the bulk walk it uses and by the cursor walk it falls back to. Measured on its own, after
// the table above, so it does not change that table's conditions.
const floor: Record<string, (l: string) => unknown> = {
  'tree-sitter parse (bare)': (l) => parser.parse(l),
  'parse, buffer sized to the line': (l) => parser.parse(l, undefined, { bufferSize: l.length + 1 }),
  'parse + copy, bulk walk (used)': (l) => parseSyntax(l, 'bulk'),
  'parse + copy, cursor walk (fallback)': (l) => parseSyntax(l, 'cursor'),
};
for (const fn of Object.values(floor)) for (let i = 0; i < 3; i++) for (const l of lines) fn(l);
const floorSamples: Record<string, number[]> = Object.fromEntries(Object.keys(floor).map((k) => [k, []]));
for (let r = 0; r < rounds; r++) {
  for (const l of lines) {
    for (const [name, fn] of Object.entries(floor)) floorSamples[name]!.push(timeMicros(() => fn(l)));
  }
}
const floorBase = summarize(floorSamples['tree-sitter parse (bare)']!);
console.log('\n### where the time goes: the parse and the copy of the tree\n');
console.log(
  table(
    ['subject', 'median µs', 'p99 µs', 'median vs bare parse'],
    Object.entries(floorSamples).map(([name, s]) => {
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
