import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { ToolUseBlock } from '../../src/pipeline/blocks.js';
import { buildTool } from '../../src/pipeline/build-tool.js';
import {
  createToolUseContext,
  type ScheduleEvent,
  type ToolUseContext,
  type ToolUseOptions,
} from '../../src/pipeline/context.js';
import { ToolRegistry } from '../../src/pipeline/registry.js';
import type { AnyTool, CanUseTool } from '../../src/pipeline/tool.js';
import type { Mode } from '../../src/policy/mode.js';
import { policyFromText } from '../../src/policy/policy.js';

/** Shared by the pipeline and tool tests: temp workspaces, policies, contexts and test tools. */
export interface Workspace {
  root: string;
  file(name: string, content?: string): string;
  cleanup(): void;
}

export function workspace(prefix = 'toolgate-pipeline-'): Workspace {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return {
    root,
    file(name, content = '') {
      const p = path.join(root, name);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
      return p;
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A policy for tests: the given YAML body after a header that turns OS isolation off (speed). */
export async function testPolicy(body = '', root = process.cwd(), sandbox = '') {
  return policyFromText(
    `version: 1\nsandbox: { ${sandbox.includes('os:') ? '' : 'os: "off", '}timeoutMs: 20000${sandbox ? `, ${sandbox}` : ''} }\n${body}`,
    {
      root,
      source: 'test-policy.yaml',
    },
  );
}

export async function testContext(
  tools: readonly AnyTool[],
  cwd: string,
  options: {
    policy?: string;
    /** Extra members of the policy's sandbox block, e.g. `read: { deny: ["keys"] }`. */
    sandbox?: string;
    mode?: Mode;
    toolOptions?: ToolUseOptions;
    abortController?: AbortController;
  } = {},
): Promise<ToolUseContext> {
  return createToolUseContext({
    tools: new ToolRegistry(tools),
    policy: await testPolicy(options.policy ?? '', cwd, options.sandbox),
    cwd,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.abortController ? { abortController: options.abortController } : {}),
    options: options.toolOptions ?? {},
  });
}

export const refuseAll: CanUseTool = async () => ({ behavior: 'deny', message: 'no one to ask (test)' });
export const allowAll: CanUseTool = async () => ({ behavior: 'allow' });

export function use(
  name: string,
  input: unknown,
  id = `toolu_${name}_${Math.random().toString(36).slice(2, 8)}`,
): ToolUseBlock {
  return { type: 'tool_use', id, name, input };
}

/** Records start/end events for schedule assertions. */
export function recorder() {
  const events: ScheduleEvent[] = [];
  return {
    events,
    onEvent: (e: ScheduleEvent) => events.push(e),
    /** The most calls running at once, from the events alone. */
    maxRunning(): number {
      let running = 0;
      let max = 0;
      for (const e of events) {
        running += e.event === 'start' ? 1 : -1;
        max = Math.max(max, running);
      }
      return max;
    },
    order(): string[] {
      return events.map((e) => `${e.event}:${e.id}`);
    },
  };
}

/**
 * A tool whose calls wait until the test releases them, so schedules are controlled by the
 * test, never by timing. `safe` decides concurrency per input; `harmless` in the policy means
 * the call is allowed by default (ToolSearch-like), so the tool is registered under a name the
 * policy treats as harmless only when asked to.
 */
export function gateTool(
  name: string,
  opts: { safe?: (input: { key: string }) => boolean; modifier?: boolean } = {},
) {
  const waiting = new Map<string, () => void>();
  const started: string[] = [];
  const tool = buildTool({
    name,
    inputSchema: z.strictObject({ key: z.string(), safe: z.boolean().optional() }),
    isConcurrencySafe: (input) => (opts.safe ? opts.safe(input) : input.safe === true),
    isReadOnly: (input) => input.safe === true,
    prompt: () => `${name} test tool`,
    description: () => name,
    async call(input, ctx) {
      started.push(input.key);
      await new Promise<void>((resolve) => {
        waiting.set(input.key, resolve);
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      const out: { data: string; contextModifier?: (c: ToolUseContext) => ToolUseContext } = {
        data: `done ${input.key}`,
      };
      if (opts.modifier) {
        out.contextModifier = (c) => ({
          ...c,
          appState: { ...c.appState, trail: [...((c.appState.trail as string[]) ?? []), input.key] },
        });
      }
      return out;
    },
  });
  return {
    tool: tool as AnyTool,
    started,
    release(key: string) {
      waiting.get(key)?.();
    },
    isWaiting: (key: string) => waiting.has(key),
  };
}

/** Waits (by polling the event loop, never by asserting a time) until a condition holds. */
export async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (condition()) return;
    await new Promise((r) => setTimeout(r, 2));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A tool that finishes after a small delay of its input's choosing (never asserted). */
export const Delay = buildTool({
  name: 'Delay',
  inputSchema: z.strictObject({ key: z.string(), safe: z.boolean(), delay: z.number().int().min(0) }),
  isConcurrencySafe: (input) => input.safe,
  isReadOnly: (input) => input.safe,
  prompt: () => 'delay',
  description: () => 'delay',
  async call(input) {
    await new Promise((r) => setTimeout(r, input.delay));
    return { data: input.key };
  },
}) as AnyTool;

/** From start/end events: was an unsafe call ever running beside another call? */
export function unsafeOverlap(events: { event: string; id: string }[], unsafe: Set<string>): boolean {
  const running = new Set<string>();
  for (const e of events) {
    if (e.event === 'start') {
      running.add(e.id);
      if (running.size > 1 && [...running].some((id) => unsafe.has(id))) return true;
    } else running.delete(e.id);
  }
  return false;
}
