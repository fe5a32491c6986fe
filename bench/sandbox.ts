/**
 * Cost of a Bash-tool call through the sandbox, against a bare spawn of the same command.
 * Run: npx tsx bench/sandbox.ts [runs]   (no assertions; prints a markdown table)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { decide } from '../src/policy/decide.js';
import type { SandboxProfile } from '../src/policy/obligations.js';
import { policyFromText } from '../src/policy/policy.js';
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
  // Decision + jail (what `toolgate jail` and hook --enforce cost per call, minus node's start)
  // against a bare bwrap spawn of the same command with the plain mounts (read-only root, private
  // /tmp, namespaces, caps dropped) and a bare spawn, in the same run. A read-only line gets the
  // read-only jail; a writing line the workspace jail, whose protected paths are held (the
  // scan, ~40 mounts and the ghosts' cleanup).
  if (bwrap.available) {
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    for (let i = 0; i < 50; i += 1) fs.writeFileSync(path.join(ws, 'src', `f${i}.ts`), 'x\n');
    fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=x\n');
    const policy = await policyFromText('version: 1\nextends: builtin:default\nsandbox: { os: required }\n', {
      root: ws,
    });
    const bareBwrap = (argv: string[]) =>
      bareSpawn(
        [
          bwrap.path!,
          ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'],
          ...['--unshare-pid', '--unshare-net', '--die-with-parent', '--cap-drop', 'ALL', '--', ...argv],
        ],
        ws,
      );
    for (const [label, script] of [
      ['read-only line `cat src/f1.ts`', 'cat src/f1.ts'],
      ['writing line `echo x > out.txt`', 'echo x > out.txt'],
    ] as const) {
      const jailed = () => {
        const d = decide({ tool: 'Bash', input: { command: script }, cwd: ws }, policy);
        if (d.behavior === 'deny' || !d.sandbox) throw new Error(`denied: ${d.reason}`);
        return sandboxed(['bash', '-c', script], ws, d.sandbox);
      };
      const bare = await measure(() => bareSpawn(['bash', '-c', script], ws));
      const plain = await measure(() => bareBwrap(['bash', '-c', script]));
      const full = await measure(jailed);
      const m = (t: number[]) => quantile(t, 0.5);
      rows.push(
        `| ${label} | bare spawn | ${m(bare).toFixed(2)} | ${quantile(bare, 0.99).toFixed(2)} | 1.0× |`,
      );
      rows.push(
        `| ${label} | bare bwrap (plain mounts) | ${m(plain).toFixed(2)} | ${quantile(plain, 0.99).toFixed(2)} | ${(m(plain) / m(bare)).toFixed(1)}× |`,
      );
      rows.push(
        `| ${label} | decision + jail | ${m(full).toFixed(2)} | ${quantile(full, 0.99).toFixed(2)} | ${(m(full) / m(bare)).toFixed(1)}× (**${(m(full) / m(plain)).toFixed(2)}× bare bwrap**) |`,
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
