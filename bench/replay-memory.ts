/**
 * Peak memory of `toolgate replay` and `toolgate verify` over big logs (issue #18: replay of 1M
 * records under 100 MB, memory flat in the log's size), each command its own process, its peak
 * RSS as /usr/bin/time reports it (%M), beside `node -e ''` measured in the same run.
 * Run: npm run build && npx tsx bench/replay-memory.ts [--records 200000,1000000]
 * Needs /usr/bin/time (GNU). No assertions: numbers depend on the machine.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { seal } from '../src/audit/chain.js';
import { toUnchainedRecord } from '../src/audit/entry.js';
import { GENESIS } from '../src/audit/format.js';

const { values } = parseArgs({ options: { records: { type: 'string', default: '200000,1000000' } } });
const SIZES = values.records.split(',').map(Number);
const CLI = resolve(import.meta.dirname, '..', 'dist', 'cli', 'main.js');

const dir = mkdtempSync(join(tmpdir(), 'toolgate-bench-replay-memory-'));
const workspace = join(dir, 'ws');
mkdirSync(join(workspace, 'src'), { recursive: true });

const BASH = [
  (i: number) => `git diff --stat -- src/module${i % 100}/file${i}.ts`,
  (i: number) => `grep -rn "needle${i}" src | head -20`,
  (i: number) => `cat docs/page${i}.md`,
  (i: number) => `ls -la src/module${i % 100}`,
];

/**
 * A chained log of n distinct records, half Bash lines and half Reads of files that do not
 * exist (so neither replay's memo nor its file-system snapshot can hold them all). Sealed
 * directly, 10k lines per write: appending through DecisionLog would take minutes at 1M.
 */
function writeLog(path: string, n: number): void {
  const fd = openSync(path, 'w');
  let prev = GENESIS;
  let lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const bash = i % 2 === 0;
    const body = toUnchainedRecord(
      {
        request: {
          tool: bash ? 'Bash' : 'Read',
          input: bash
            ? { command: BASH[(i >> 1) % BASH.length]!(i) }
            : { file_path: `${workspace}/src/m${i % 1000}/f${i}.ts` },
          cwd: workspace,
          mode: 'default',
          sessionId: `s${i % 50}`,
        },
        decision: {
          behavior: 'allow',
          reason: 'Read-only inside the workspace',
          decidedBy: 'default',
          mode: 'default',
          facts: { readOnly: true, concurrencySafe: true, destructive: false, reasons: [] },
          policyDigest: '3f'.repeat(32),
        },
      },
      { engine: '0.1.0', grammar: '0.25.1', redact: false, id: randomUUID },
    );
    const s = seal(body, { seq: i + 1, prev, ts: new Date().toISOString() });
    prev = s.record.hash;
    lines.push(s.line);
    if (lines.length === 10_000 || i === n - 1) {
      writeSync(fd, `${lines.join('\n')}\n`);
      lines = [];
    }
  }
  closeSync(fd);
}

/** Peak RSS (MB) and wall time (s) of one process, from GNU time. */
function measure(args: string[]): { mb: number; s: number } {
  const run = spawnSync('/usr/bin/time', ['-f', '%M %e', process.execPath, ...args], {
    cwd: workspace,
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const last = run.stderr.trim().split('\n').at(-1) ?? '';
  const [kb, s] = last.split(' ').map(Number);
  if (run.status !== 0 || kb === undefined || s === undefined || Number.isNaN(kb))
    throw new Error(`${args.join(' ')} failed (exit ${run.status}): ${run.stderr.slice(-500)}`);
  return { mb: kb / 1024, s };
}

const fmt = (x: number, d = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
try {
  const load = () => loadavg()[0]!.toFixed(1);
  console.log(
    `load average at start: ${load()} (2-core machines shared with other work: read the times as upper bounds)\n`,
  );
  const floor = measure(['-e', '']);
  console.log('| What | Records | Peak RSS | Time | Records/s |');
  console.log('|---|---|---|---|---|');
  console.log(`| \`node -e ''\` | — | ${fmt(floor.mb)} MB | ${fmt(floor.s, 2)} s | — |`);
  for (const n of SIZES) {
    const log = join(dir, `${n}.jsonl`);
    writeLog(log, n);
    const mb = statSync(log).size / 2 ** 20;
    for (const command of ['verify', 'replay'] as const) {
      const r = measure([CLI, command, log, ...(command === 'replay' ? ['--json'] : [])]);
      console.log(
        `| \`toolgate ${command}\` (${fmt(mb)} MB log) | ${fmt(n)} | ${fmt(r.mb)} MB | ${fmt(r.s, 1)} s | ${fmt(n / r.s)} |`,
      );
    }
    rmSync(log);
  }
  console.log(`\nload average at end: ${load()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
