/**
 * bench/decide: decide() for a non-Bash request (Read), an MCP call beside many path deny rules,
 * Bash requests, and a Bash line that meets an ask rule in a group of rules sharing its first two
 * words (`git push remote<i> *`), under policies of 10, 100, 1,000 and 10,000 rules, beside
 * classifyBash alone on the same commands, in one run. The last table is each row's median over
 * the 10-rule policy's in the same run (goal: at most 2x at 10,000 rules).
 * Run: npx tsx bench/decide.ts   (uses the compiled dist/: run `npm run build` first)
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { classifyBash } from '../dist/bash/classify.js';
import { decide } from '../dist/policy/decide.js';
import { policyFromText } from '../dist/policy/policy.js';
import { summarize, table, timeMicros } from './stats.js';

const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-decide-'));
fs.mkdirSync(path.join(ws, 'src'));
fs.writeFileSync(path.join(ws, 'src', 'app.ts'), 'x');

/** A mix that looks like a large organisation's policy: commands, paths, domains, MCP tools. */
function rules(n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    switch (i % 10) {
      case 0:
      case 1:
        out.push(`  - allow: "Bash(tool${i} run *)"`);
        break;
      case 2:
        out.push(`  - deny: "Bash(danger${i} *)"`);
        break;
      case 3:
        out.push(`  - ask: "Bash(git push remote${i} *)"`);
        break;
      case 4:
      case 5:
        out.push(`  - deny: "Read(**/secret-dir-${i}/**)"`);
        break;
      case 6:
        out.push(`  - allow: "Edit(./generated-${i}/**)"`);
        break;
      case 7:
        out.push(`  - allow: "WebFetch(domain:*.site${i}.example.com)"`);
        break;
      case 8:
        out.push(`  - deny: "mcp__server${i}__delete_*"`);
        break;
      default:
        out.push(`  - allow: "mcp__server${i}__get_status"`);
    }
  }
  return `version: 1\nrules:\n${out.join('\n')}\n`;
}

const read = { tool: 'Read', input: { file_path: path.join(ws, 'src', 'app.ts') }, cwd: ws };
// A tool call that names no file: rule lookup alone, without the realpath a file path needs.
const mcp = { tool: 'mcp__server9__get_status', input: {}, cwd: ws };
// Meets `ask: Bash(git push remote3 *)`, one of n/10 rules that all start `git push`.
const groupAsk = { tool: 'Bash', input: { command: 'git push remote3 main' }, cwd: ws };
const commands = [
  'git status',
  'ls -la src | grep app',
  'git log --oneline -5',
  'cat src/app.ts | wc -l',
  'npm test',
  'rm -rf build',
];
const rounds = Number(process.argv[2] ?? 2000);

const sizes = [10, 100, 1000, 10000];
const policies = new Map<number, Awaited<ReturnType<typeof policyFromText>>>();
for (const n of sizes) policies.set(n, await policyFromText(rules(n), { root: ws }));
// Warm every path of every policy before measuring any (JIT, caches, path pattern compilation).
for (const policy of policies.values()) {
  for (let i = 0; i < 500; i++) {
    decide(read, policy);
    decide(mcp, policy);
    decide(groupAsk, policy);
    for (const command of commands) decide({ tool: 'Bash', input: { command }, cwd: ws }, policy);
  }
}
const rows: (string | number)[][] = [];
const medians = new Map<number, number[]>();
for (const n of sizes) {
  const policy = policies.get(n)!;
  const nonBash: number[] = [];
  const noPath: number[] = [];
  const group: number[] = [];
  for (let i = 0; i < rounds; i++) {
    nonBash.push(timeMicros(() => decide(read, policy)));
    noPath.push(timeMicros(() => decide(mcp, policy)));
    group.push(timeMicros(() => decide(groupAsk, policy)));
  }
  const bash: number[] = [];
  const classify: number[] = [];
  for (let r = 0; r < Math.max(50, rounds / commands.length / 2); r++) {
    for (const command of commands) {
      const request = { tool: 'Bash', input: { command }, cwd: ws };
      bash.push(timeMicros(() => decide(request, policy)));
      classify.push(timeMicros(() => classifyBash(command)));
    }
  }
  const nb = summarize(nonBash);
  const np = summarize(noPath);
  const b = summarize(bash);
  const c = summarize(classify);
  const g = summarize(group);
  rows.push([
    String(n),
    np.median,
    np.p99,
    nb.median,
    nb.p99,
    b.median,
    b.p99,
    g.median,
    g.p99,
    c.median,
    b.median - c.median,
  ]);
  medians.set(n, [np.median, nb.median, b.median, g.median]);
}
console.log(
  `## bench/decide — medians and p99 in µs (${rounds} non-Bash decisions per size; Read includes one realpath system call)\n`,
);
console.log(
  table(
    [
      'rules',
      'MCP call median',
      'MCP p99',
      'Read median',
      'Read p99',
      'Bash median',
      'Bash p99',
      'Bash ask, 2-word group',
      'group p99',
      'classifyBash median',
      'Bash − classify',
    ],
    rows,
  ),
);
const first = medians.get(sizes[0]!)!;
console.log(`\n### median over the ${sizes[0]}-rule policy's, same run\n`);
console.log(
  table(
    ['rules', 'MCP call', 'Read', 'Bash', 'Bash ask, 2-word group'],
    sizes.map((n) => [String(n), ...medians.get(n)!.map((m, i) => `${(m / first[i]!).toFixed(2)}x`)]),
  ),
);
fs.rmSync(ws, { recursive: true, force: true });
