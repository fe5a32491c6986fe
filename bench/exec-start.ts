/**
 * `toolgate exec` start: a process that reads no block (empty stdin) under the default policy,
 * beside `node -e ''`, rounds interleaved so that load hits every row alike. Optional builds to
 * compare (before/after) are named by TOOLGATE_EXEC_BUILDS=label=path/to/main.js,...
 *   npx tsx bench/exec-start.ts [rounds]
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { summarize } from './stats.js';

const rounds = Number(process.argv[2] ?? 11);
const here = path.resolve(import.meta.dirname, '../dist/cli/main.js');
const builds = (process.env.TOOLGATE_EXEC_BUILDS ?? `this=${here}`).split(',').map((b) => b.split('='));
const env = { ...process.env };
delete env.NODE_OPTIONS;
delete env.TOOLGATE_REEXEC;

const rows: [string, string[]][] = [['node -e ""', ['-e', '']]];
for (const [label, main] of builds) rows.push([`exec ${label}`, [main as string, 'exec']]);

const times = new Map<string, number[]>(rows.map(([l]) => [l, []]));
for (let r = 0; r < rounds + 1; r++) {
  for (const [label, args] of rows) {
    const t = performance.now();
    const out = spawnSync(process.execPath, args, { input: '', env, cwd: import.meta.dirname });
    const ms = performance.now() - t;
    if (out.status !== 0) throw new Error(`${label}: exit ${out.status}: ${out.stderr}`);
    if (r > 0) times.get(label)?.push(ms); // round 0 warms the page cache
  }
}
const median = (xs: number[]) => summarize(xs).median;
const base = median(times.get('node -e ""') ?? []);
for (const [label, xs] of times)
  console.log(
    `${label.padEnd(24)} ${median(xs).toFixed(0).padStart(6)} ms  ${(median(xs) / base).toFixed(2)}x`,
  );
