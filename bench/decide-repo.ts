/**
 * bench/decide-repo: decide() for each Bash line of the labelled corpus in a real repository
 * (a git checkout of toolgate's own sources: a few hundred files, .git, nested directories),
 * under the embedded default policy, beside classifyBash of the same line, interleaved per line
 * so machine noise hits both alike. The ratio is the median of decide() over the median of
 * classifyBash (goal: at most 1.5x), and per line (median of the per-line ratios).
 * Run: npx tsx bench/decide-repo.ts [rounds]   (uses the compiled dist/: run `npm run build` first)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { classifyBash } from '../dist/bash/classify.js';
import { decide } from '../dist/policy/decide.js';
import { policyFromText } from '../dist/policy/policy.js';
import { summarize, table, timeMicros } from './stats.js';

const root = path.resolve(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 20);
const lines = fs
  .readFileSync(path.join(root, 'test', 'fixtures', 'bash-labelled.jsonl'), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => (JSON.parse(l) as { command: string }).command);

// The repository: toolgate's tracked sources at HEAD, checked out into a fresh git repository.
const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-repo-'));
const tar = execFileSync(
  'git',
  ['-C', root, 'archive', 'HEAD', 'src', 'test', 'bench', 'policies', 'package.json', 'README.md'],
  {
    maxBuffer: 1 << 30,
  },
);
execFileSync('tar', ['-x', '-C', ws], { input: tar });
execFileSync('git', ['init', '-q', ws]);
fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=x\n');
const files = execFileSync('find', [ws, '-type', 'f'], { encoding: 'utf8' }).split('\n').length - 1;

const policy = await policyFromText('version: 1\nextends: builtin:default\n', { root: ws });
const request = (command: string) => ({
  tool: 'Bash',
  input: { command },
  cwd: ws,
  mode: 'default' as const,
});

// Warm up (JIT, grammar, path patterns) before measuring.
for (let i = 0; i < 3; i++)
  for (const l of lines) {
    classifyBash(l);
    decide(request(l), policy);
  }

const decideSamples: number[] = [];
const classifySamples: number[] = [];
const perLine = lines.map(() => ({ d: [] as number[], c: [] as number[] }));
for (let r = 0; r < rounds; r++) {
  lines.forEach((l, i) => {
    const req = request(l);
    const c = timeMicros(() => classifyBash(l));
    const d = timeMicros(() => decide(req, policy));
    classifySamples.push(c);
    decideSamples.push(d);
    perLine[i]!.c.push(c);
    perLine[i]!.d.push(d);
  });
}
const d = summarize(decideSamples);
const c = summarize(classifySamples);
const ratios = perLine.map((s) => summarize(s.d).median / summarize(s.c).median);
const byRatio = lines
  .map((l, i) => ({ l, r: ratios[i]!, d: summarize(perLine[i]!.d).median }))
  .sort((a, b) => b.r - a.r);
console.log(
  `## bench/decide-repo — ${lines.length} corpus lines x ${rounds} rounds in a repository of ${files} files, default policy (µs)\n`,
);
console.log(
  table(
    ['subject', 'median', 'p99', 'mean'],
    [
      ['classifyBash', c.median, c.p99, c.mean],
      ['decide()', d.median, d.p99, d.mean],
    ],
  ),
);
console.log(
  `\ndecide() / classifyBash: ${(d.median / c.median).toFixed(2)}x of the medians; per line, median ${summarize(ratios).median.toFixed(2)}x (goal <= 1.5x)\n`,
);
console.log('Costliest lines against their own classification:\n');
console.log(
  table(
    ['line', 'decide median µs', 'x classify'],
    byRatio.slice(0, 12).map((x) => [x.l.slice(0, 60), x.d, x.r]),
  ),
);
fs.rmSync(ws, { recursive: true, force: true });
