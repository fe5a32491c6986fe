/**
 * Cost of a Bash-tool call through the sandbox, against a bare spawn of the same command.
 * Run: npx tsx bench/sandbox.ts [runs]   (no assertions; prints a markdown table)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxProfile } from '../src/policy/obligations.js';
import { planBwrap, probeBwrap } from '../src/sandbox/bwrap.js';
import { removeSpill } from '../src/sandbox/output.js';
import { runSandboxed } from '../src/sandbox/run.js';

const RUNS = Number(process.argv[2] ?? 200);
const WARMUP = 10;

function bareSpawn(argv: string[], cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function sandboxed(argv: string[], cwd: string, profile: SandboxProfile): Promise<void> {
  const result = await runSandboxed({ argv, cwd, profile });
  if (!result.ok) throw new Error(`${result.kind}: ${result.message}`);
  if (result.exitCode !== 0) throw new Error(`exit ${result.exitCode}: ${result.output.inline}`);
  if (result.output.spillPath) await removeSpill(result.output.spillPath);
}

async function measure(fn: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b);
}

/** The plan's arguments for a bare bwrap spawn (the bench workspace has no fd binds). */
function bareArgs(plan: ReturnType<typeof planBwrap>): string[] {
  if (!plan.ok) throw new Error(plan.message);
  plan.close();
  return plan.args;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-')));
try {
  const profile: SandboxProfile = {
    timeoutMs: 30_000,
    maxOutputChars: 30_000,
    maxOutputBytes: 10_000_000,
    writableRoots: [ws],
    readableRoots: [],
    readDeny: [],
    writeDeny: [],
    network: false,
    envAllow: [],
    os: 'off',
  };
  const bwrap = await probeBwrap();
  const rows: string[] = [];
  for (const argv of [['true'], ['echo', 'hello']]) {
    const bare = await measure(() => bareSpawn(argv, ws));
    // bwrap's own cost, with the mounts runSandboxed would use: separates it from ours.
    const bwrapArgv = bwrap.available
      ? [bwrap.path!, ...bareArgs(planBwrap({ cwd: ws, profile })), '--', ...argv]
      : [];
    const variants: [string, number[] | undefined][] = [
      ['bare spawn', bare],
      ['runSandboxed, no bwrap', await measure(() => sandboxed(argv, ws, profile))],
      [
        'bare spawn of bwrap (same mounts)',
        bwrap.available ? await measure(() => bareSpawn(bwrapArgv, ws)) : undefined,
      ],
      [
        'runSandboxed, bwrap',
        bwrap.available
          ? await measure(() => sandboxed(argv, ws, { ...profile, os: 'required' }))
          : undefined,
      ],
    ];
    const bareMedian = quantile(bare, 0.5);
    for (const [name, times] of variants) {
      if (!times) {
        rows.push(`| \`${argv.join(' ')}\` | ${name} | n/a (${bwrap.reason}) | | |`);
        continue;
      }
      const median = quantile(times, 0.5);
      const p99 = quantile(times, 0.99);
      rows.push(
        `| \`${argv.join(' ')}\` | ${name} | ${median.toFixed(2)} | ${p99.toFixed(2)} | ${(median / bareMedian).toFixed(1)}× |`,
      );
    }
  }
  console.log(
    `Sandbox cost per call, ${RUNS} runs each after ${WARMUP} warm-up runs (node ${process.version}, ${os.cpus().length} CPUs)\n`,
  );
  console.log('| command | variant | median ms | p99 ms | median vs bare |');
  console.log('|---|---|---:|---:|---:|');
  for (const row of rows) console.log(row);
} finally {
  fs.rmSync(ws, { recursive: true, force: true });
}
