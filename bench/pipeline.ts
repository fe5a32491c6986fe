/**
 * What the pipeline costs. Run: npx tsx bench/pipeline.ts [calls]   (no assertions; prints a
 * markdown table)
 *
 * 1. Overhead per call of runToolUse (lookup, schema, validateInput, the policy decision with
 *    its sandbox profile, the deadline, result mapping and size check) over calling the same
 *    trivial tool directly. Goal: < 50 µs median.
 * 2. 20 concurrency-safe calls of 100 ms each through runTools against one such call. With the
 *    default cap of 10 that is two waves, so the floor is 2.0x. Goal: <= 2.2x.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { buildTool } from '../src/pipeline/build-tool.js';
import { createToolUseContext, type ToolUseContext } from '../src/pipeline/context.js';
import { ToolRegistry } from '../src/pipeline/registry.js';
import { runToolUse } from '../src/pipeline/run-tool-use.js';
import { runTools } from '../src/pipeline/run-tools.js';
import type { AnyTool, CanUseTool, ToolCallContext } from '../src/pipeline/tool.js';
import { decide } from '../src/policy/decide.js';
import { policyFromText } from '../src/policy/policy.js';

const CALLS = Number(process.argv[2] ?? 5000);
const WAVES = 7;

const Noop = buildTool({
  name: 'Noop',
  inputSchema: z.strictObject({ text: z.string() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  prompt: () => 'noop',
  description: () => 'noop',
  async call(input) {
    return { data: input.text };
  },
}) as AnyTool;

const Sleep = buildTool({
  name: 'Sleep',
  inputSchema: z.strictObject({ ms: z.number() }),
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  prompt: () => 'sleep',
  description: () => 'sleep',
  async call(input) {
    await new Promise((r) => setTimeout(r, input.ms));
    return { data: 'slept' };
  },
}) as AnyTool;

const refuse: CanUseTool = async () => ({ behavior: 'deny', message: 'bench' });

function median(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function p99(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.99 * s.length) - 1)]!;
}

async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(500, n); i++) await fn(i);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn(i);
    out.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return out;
}

async function main(): Promise<void> {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-bench-pipeline-')));
  try {
    const policy = await policyFromText(
      'version: 1\nsandbox: { os: "off" }\nrules:\n  - allow: [Noop, Sleep]\n',
      { root: ws },
    );
    const ctx: ToolUseContext = createToolUseContext({
      tools: new ToolRegistry([Noop, Sleep]),
      policy,
      cwd: ws,
    });

    // 1. Overhead per call.
    const decision = decide({ tool: 'Noop', input: { text: 'x' }, cwd: ws }, policy);
    const callCtx: ToolCallContext = {
      ...ctx,
      toolUseId: 'direct',
      decision,
      sandbox: decision.sandbox!,
      signal: ctx.abortController.signal,
      cwd: ws,
    };
    const direct = await timeEach(CALLS, async () => {
      const out = await Noop.call({ text: 'x' }, callCtx, refuse, undefined, () => undefined);
      return Noop.mapToolResultToToolResultBlockParam(out.data, 'direct');
    });
    const piped = await timeEach(CALLS, async (i) => {
      const outcome = await runToolUse(
        { type: 'tool_use', id: `t${i}`, name: 'Noop', input: { text: 'x' } },
        ctx,
        refuse,
      );
      if (outcome.failure) throw new Error(outcome.failure.message);
      return outcome;
    });
    const decideOnly = await timeEach(CALLS, async () =>
      decide({ tool: 'Noop', input: { text: 'x' }, cwd: ws }, policy),
    );

    // 2. 20 safe calls of 100 ms through runTools vs one.
    const drain = async (n: number) => {
      const blocks = Array.from({ length: n }, (_, i) => ({
        type: 'tool_use' as const,
        id: `s${i}`,
        name: 'Sleep',
        input: { ms: 100 },
      }));
      const start = performance.now();
      for await (const u of runTools(blocks, ctx, refuse)) {
        if (u.type === 'result' && u.outcome.failure) throw new Error(u.outcome.failure.message);
      }
      return performance.now() - start;
    };
    const one: number[] = [];
    const twenty: number[] = [];
    for (let i = 0; i < WAVES; i++) {
      one.push(await drain(1));
      twenty.push(await drain(20));
    }

    const overhead = median(piped) - median(direct);
    const ratio = median(twenty) / median(one);
    const rows: [string, string, string, string][] = [
      ['tool called directly (µs/call)', median(direct).toFixed(2), p99(direct).toFixed(2), ''],
      ['decide() alone (µs/call)', median(decideOnly).toFixed(2), p99(decideOnly).toFixed(2), ''],
      ['runToolUse (µs/call)', median(piped).toFixed(2), p99(piped).toFixed(2), ''],
      [
        'overhead of runToolUse (µs/call)',
        overhead.toFixed(2),
        '',
        overhead < 50 ? 'goal < 50 µs: met' : 'goal < 50 µs: NOT met',
      ],
      ['1 call of 100 ms via runTools (ms)', median(one).toFixed(1), '', ''],
      ['20 safe calls of 100 ms via runTools (ms)', median(twenty).toFixed(1), '', ''],
      [
        'ratio 20 calls / 1 call',
        ratio.toFixed(2),
        '',
        ratio <= 2.2 ? 'goal <= 2.2x: met' : 'goal <= 2.2x: NOT met',
      ],
    ];
    const width = rows.reduce((w, r) => Math.max(w, r[0].length), 0);
    console.log(
      `\nbench/pipeline: ${CALLS} calls per overhead sample, ${WAVES} runs of the concurrency test, Node ${process.version}\n`,
    );
    console.log(`| ${'measure'.padEnd(width)} | median | p99 | note |`);
    console.log(`|${'-'.repeat(width + 2)}|--------|-----|------|`);
    for (const r of rows) console.log(`| ${r[0].padEnd(width)} | ${r[1]} | ${r[2]} | ${r[3]} |`);
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

await main();
