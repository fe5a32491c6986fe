/**
 * Cost of a Bash-tool call through the sandbox, against a bare spawn of the same command.
 * Run: npx tsx bench/sandbox.ts [runs] [jail]   (no assertions; prints a markdown table;
 * `jail` measures only the decision + jail rows)
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

/** A bare spawn that must succeed: a baseline that failed early would flatter the jail. */
async function bareRun(argv: string[], cwd: string): Promise<void> {
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'ignore', 'ignore'] });
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`${argv.join(' ')}: exit ${code}`);
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

/** Each function once per round, in turn, RUNS rounds after WARMUP; the sorted times of each. */
async function measureInterleaved(fns: (() => Promise<void>)[]): Promise<number[][]> {
  for (let i = 0; i < WARMUP; i += 1) for (const fn of fns) await fn();
  const times = fns.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i += 1) {
    for (const [j, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      times[j]!.push(performance.now() - start);
    }
  }
  return times.map((t) => t.sort((a, b) => a - b));
}

/**
 * The plan's arguments for a bare bwrap spawn (the bench workspace has no fd binds), and the
 * ghosts bwrap makes on the host, to be removed after each run as the jail does.
 */
function bareArgs(plan: ReturnType<typeof planBwrap>): { args: string[]; ghosts: string[] } {
  if (!plan.ok) throw new Error(plan.message);
  plan.close();
  return { args: plan.args, ghosts: plan.ghosts };
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

// Not under /tmp: the jail's /tmp is private, so a workspace there costs one more bind to be seen
// again, which a real workspace (under a home directory) does not.
const benchDir = process.env.TOOLGATE_BENCH_DIR ?? os.homedir();
const ws = fs.realpathSync(fs.mkdtempSync(path.join(benchDir, 'toolgate-bench-')));
const kept = fs.realpathSync(fs.mkdtempSync(path.join(benchDir, 'toolgate-bench-kept-')));
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
  for (const argv of process.argv[3] === 'jail' ? [] : [['true'], ['echo', 'hello']]) {
    const bare = await measure(() => bareSpawn(argv, ws));
    // bwrap's own cost, with the mounts runSandboxed would use: separates it from ours.
    const same = bwrap.available ? bareArgs(planBwrap({ cwd: ws, profile })) : { args: [], ghosts: [] };
    const bwrapArgv = [bwrap.path!, ...same.args, '--', ...argv];
    const variants: [string, number[] | undefined][] = [
      ['bare spawn', bare],
      ['runSandboxed, no bwrap', await measure(() => sandboxed(argv, ws, profile))],
      [
        'bare spawn of bwrap (same mounts)',
        bwrap.available
          ? await measure(async () => {
              await bareSpawn(bwrapArgv, ws);
              for (const g of same.ghosts) fs.rmdirSync(g);
            })
          : undefined,
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
  // /tmp, namespaces, caps dropped) and a bare spawn. A read-only line gets the read-only jail; a
  // writing line the workspace jail, whose protected paths are held (the scan, ~40 mounts, and an
  // empty directory made on the host for each missing one, removed afterwards: the ghosts).
  // The variants run interleaved, one of each per round, so that load from elsewhere (this
  // machine is shared) falls on all of them alike and the ratios compare like with like.
  // The bare bwrap runs the same line to the same effect (the writing line's file is written:
  // the workspace is bound writable), and every variant must exit 0. Where the writing jail's
  // time goes: "+ the ghosts' mkdir/rmdir" is the plain spawn plus that many host directories
  // made and removed; "+ the ghosts as writable tmpfs" mounts them too but does not remount them
  // read-only (not a jail to use: what the command wrote there would only vanish), so the
  // difference to the jail's argv is the remounts'.
  if (bwrap.available) {
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    for (let i = 0; i < 50; i += 1) fs.writeFileSync(path.join(ws, 'src', `f${i}.ts`), 'x\n');
    fs.writeFileSync(path.join(ws, '.env'), 'TOKEN=x\n');
    fs.cpSync(ws, kept, { recursive: true });
    const toKept = (x: string) => (x === ws || x.startsWith(`${ws}/`) ? kept + x.slice(ws.length) : x);
    // The same profile with the kept workspace in place of the bench's.
    const inKept = (p: SandboxProfile): SandboxProfile => {
      const swap = (list: readonly string[]) => list.map(toKept);
      return {
        ...p,
        writableRoots: swap(p.writableRoots),
        workspaceRoots: swap(p.workspaceRoots ?? []),
        readDeny: swap(p.readDeny),
        writeDeny: swap(p.writeDeny),
      };
    };
    const policy = await policyFromText('version: 1\nextends: builtin:default\nsandbox: { os: required }\n', {
      root: ws,
    });
    const bareBwrap = (argv: string[], writes: boolean, extra: string[] = []) =>
      bareRun(
        [
          bwrap.path!,
          ...['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'],
          ...(writes ? ['--bind', ws, ws] : []),
          ...extra,
          ...['--unshare-pid', '--unshare-net', '--die-with-parent', '--cap-drop', 'ALL', '--', ...argv],
        ],
        ws,
      );
    for (const [label, script, writes] of [
      ['read-only line `cat src/f1.ts`', 'cat src/f1.ts', false],
      ['writing line `echo x > out.txt`', 'echo x > out.txt', true],
    ] as const) {
      const argv = ['bash', '-c', script];
      const decided = () => {
        const d = decide({ tool: 'Bash', input: { command: script }, cwd: ws }, policy);
        if (d.behavior === 'deny' || !d.sandbox) throw new Error(`denied: ${d.reason}`);
        return d.sandbox;
      };
      const planned = planBwrap({ cwd: ws, profile: decided() });
      if (!planned.ok) throw new Error(planned.message);
      planned.close();
      const ghosts = planned.ghosts.map((g) => `${g}.bench`);
      // The jail's own bwrap arguments, spawned bare: the mounts' cost without toolgate's (the
      // decision, the plan, the ghosts' registry, the end of the run). bwrap makes the ghosts'
      // mount points on the host; they are removed after each run, as the jail does.
      const sameArgv = [bwrap.path!, ...planned.args, '--', ...argv];
      // The design that would leave the ghosts in the workspace between calls, in a second
      // workspace where they were made once: planned again, each is an existing empty directory
      // held read-only, and bwrap makes nothing on the host.
      // Made until none is left: one made where `.git` was missing leaves `.git/hooks` missing.
      let keptPlan = planBwrap({ cwd: kept, profile: inKept(decided()) });
      for (let round = 0; keptPlan.ok && keptPlan.ghosts.length > 0 && round < 5; round += 1) {
        keptPlan.close();
        for (const g of keptPlan.ghosts) fs.mkdirSync(g, { recursive: true });
        keptPlan = planBwrap({ cwd: kept, profile: inKept(decided()) });
      }
      if (!keptPlan.ok || keptPlan.ghosts.length > 0)
        throw new Error('the kept ghosts were planned as ghosts');
      keptPlan.close();
      const keptArgv = [bwrap.path!, ...keptPlan.args, '--', ...argv];
      // Or still mounted as ghosts (a tmpfs remounted read-only over each), which would need the
      // plan to know which empty directories are its own: bwrap finds every mount point there.
      const keptGhostArgv = [bwrap.path!, ...planned.args.map(toKept), '--', ...argv];
      const variants: [string, () => Promise<void>][] = [
        ['bare spawn', () => bareRun(argv, ws)],
        ['bare bwrap (plain mounts)', () => bareBwrap(argv, writes)],
        [
          "bare bwrap, the jail's argv",
          async () => {
            await bareRun(sameArgv, ws);
            for (const g of planned.ghosts) fs.rmdirSync(g);
          },
        ],
        ...(ghosts.length > 0
          ? ([
              [
                `bare bwrap + the ghosts' mkdir/rmdir (${ghosts.length} dirs, no mounts)`,
                async () => {
                  for (const g of ghosts) fs.mkdirSync(g);
                  await bareBwrap(argv, writes);
                  for (const g of ghosts) fs.rmdirSync(g);
                },
              ],
              [
                `bare bwrap, the jail's argv, ghosts left in place (${ghosts.length} empty dirs kept, bound read-only)`,
                () => bareRun(keptArgv, kept),
              ],
              [
                `bare bwrap, the jail's argv, ghosts left in place and mounted as ghosts (no mkdir/rmdir)`,
                () => bareRun(keptGhostArgv, kept),
              ],
              [
                `bare bwrap + the ghosts as writable tmpfs (${ghosts.length} mounts, not remounted read-only)`,
                async () => {
                  await bareBwrap(
                    argv,
                    writes,
                    planned.ghosts.flatMap((g) => ['--tmpfs', g]),
                  );
                  for (const g of planned.ghosts) fs.rmdirSync(g);
                },
              ],
            ] as [string, () => Promise<void>][])
          : []),
        ['decision + jail', () => sandboxed(argv, ws, decided())],
      ];
      const times = await measureInterleaved(variants.map(([, fn]) => fn));
      const m = (t: number[]) => quantile(t, 0.5);
      const [bare, plain] = [times[0]!, times[1]!];
      for (const [i, [name]] of variants.entries()) {
        const t = times[i]!;
        const vsPlain = i >= 2 ? ` (**${(m(t) / m(plain)).toFixed(2)}× bare bwrap**)` : '';
        const vsSame =
          name === 'decision + jail' ? `, ${(m(t) / m(times[2]!)).toFixed(2)}× the jail's argv bare` : '';
        rows.push(
          `| ${label} | ${name} | ${m(t).toFixed(2)} | ${quantile(t, 0.99).toFixed(2)} | ${(m(t) / m(bare)).toFixed(1)}×${vsPlain}${vsSame} |`,
        );
      }
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
  fs.rmSync(kept, { recursive: true, force: true });
}
