// Runs every benchmark under bench/ one after the other (each prints its own table), or only
// the ones named: `npm run bench -- classify decide`. Benchmarks use dist/: `npm run bench`
// builds first.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const helpers = new Set(['stats']);
const all = fs
  .readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.slice(0, -3))
  .filter((name) => !helpers.has(name))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((w) => !all.includes(w));
if (unknown.length > 0) {
  console.error(`npm run bench: no benchmark named ${unknown.join(', ')} (have: ${all.join(', ')})`);
  process.exit(2);
}
const tsx = path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
let failed = 0;
for (const name of wanted.length > 0 ? wanted : all) {
  console.log(`\n## bench/${name}.ts\n`);
  const run = spawnSync(process.execPath, [tsx, path.join('bench', `${name}.ts`)], {
    cwd: root,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    console.error(`bench/${name}.ts failed (exit ${run.status ?? run.signal})`);
    failed++;
  }
}
process.exit(failed > 0 ? 1 : 0);
