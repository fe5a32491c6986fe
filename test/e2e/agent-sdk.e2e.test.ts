import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AgentSdkGuard,
  type AgentSdkHookCallback,
  agentSdkGuard,
  canUseToolFrom,
} from '../../src/adapters/agent-sdk.js';
import { DecisionLog } from '../../src/audit/log.js';
import { verifyLog } from '../../src/audit/verify.js';
import { type MessagesApi, startMessagesApi, toolResults } from '../../src/demo/scripted-model.js';
import { loadPolicy } from '../../src/policy/policy.js';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { agentSdkModule } from './agent-sdk-bin.js';

/**
 * The real Claude Agent SDK (`query()`, which runs its bundled Claude Code) against a loopback
 * Messages API that answers with scripted Bash calls, guarded in process by `agentSdkGuard`:
 * the PreToolUse hook callback decides every call, canUseTool answers the dialogs. What must
 * hold: denied calls never run (files survive, secrets stay unread) and the model reads why,
 * allowed ones run, an ask with no one to answer it does not run, every decision is logged in an
 * intact chain; with canUseTool alone a call Claude Code allows by itself is never shown to it
 * (why the hook is the guard); with enforce, allowed Bash runs inside the jail.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

interface Call {
  readonly command: string;
}

interface Session {
  readonly base: string;
  readonly ws: string;
  readonly api: MessagesApi;
  readonly messages: { type: string; subtype?: string }[];
  readonly hookAnswers: unknown[];
  readonly canUseToolCalls: string[];
  readonly logPath: string;
  result(i: number): { is_error: boolean; text: string };
}

const id = (i: number) => `toolu_sdk_${String(i + 1).padStart(2, '0')}`;

/** Runs one query() over the scripted calls with the guard `makeGuard` builds. */
async function session(
  calls: readonly Call[],
  makeGuard: (policyFile: string, ws: string, log: DecisionLog) => Promise<Partial<AgentSdkGuard>>,
): Promise<Session> {
  if (!fs.existsSync(CLI)) throw new Error(`build first (npm run build): ${CLI} is missing`);
  const { query } = (await import(agentSdkModule())) as {
    query: (q: { prompt: string; options: Record<string, unknown> }) => AsyncIterable<{ type: string }>;
  };
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-sdk-e2e-')));
  const ws = path.join(base, 'workspace');
  const home = path.join(base, 'home');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(ws, 'victim.txt'), 'do not delete\n');
  fs.writeFileSync(path.join(ws, '.env'), 'API_TOKEN=hunter2-secret\n');
  const policyFile = path.join(base, 'policy.yaml');
  fs.writeFileSync(
    policyFile,
    [
      'version: 1',
      'extends: builtin:default',
      'rules:',
      '  - deny: "Bash(rm *)"',
      '    reason: nothing is deleted in this workspace',
      '  - allow: "Bash(touch *)"',
      '',
    ].join('\n'),
  );
  const logPath = path.join(base, 'decisions.jsonl');
  const log = await DecisionLog.open(logPath, { checkpointPath: `${logPath}.checkpoint` });
  const guard = await makeGuard(policyFile, ws, log);

  // Record what the hook answered and which calls reached canUseTool, passing both through.
  const hookAnswers: unknown[] = [];
  const canUseToolCalls: string[] = [];
  const hooks = guard.hooks && {
    PreToolUse: guard.hooks.PreToolUse.map((m) => ({
      ...m,
      hooks: m.hooks.map(
        (h): AgentSdkHookCallback =>
          async (...args) => {
            const out = await h(...args);
            hookAnswers.push(out);
            return out;
          },
      ),
    })),
  };
  const canUseTool =
    guard.canUseTool &&
    ((async (tool, input, options) => {
      canUseToolCalls.push(String((input as { command?: unknown }).command));
      return guard.canUseTool!(tool, input, options);
    }) satisfies AgentSdkGuard['canUseTool']);

  let step = 0;
  const api = await startMessagesApi((body) => {
    const mainLoop = Array.isArray(body.tools) && body.tools.some((t) => t.name === 'Bash');
    if (mainLoop && step < calls.length) {
      const i = step++;
      return {
        content: [
          {
            type: 'tool_use',
            id: id(i),
            name: 'Bash',
            input: { command: calls[i]!.command, description: 'd' },
          },
        ],
        stop_reason: 'tool_use',
      };
    }
    return { content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn' };
  });
  const messages: { type: string; subtype?: string }[] = [];
  try {
    for await (const m of query({
      prompt: 'run the scripted calls',
      options: {
        cwd: ws,
        permissionMode: 'default',
        settingSources: [],
        maxTurns: calls.length + 2,
        ...(hooks ? { hooks } : {}),
        ...(canUseTool ? { canUseTool } : {}),
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: home,
          ANTHROPIC_BASE_URL: api.url,
          ANTHROPIC_API_KEY: 'sk-ant-loopback-test',
          DISABLE_AUTOUPDATER: '1',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        },
      },
    }))
      messages.push(m);
  } finally {
    await log.close();
  }
  return {
    base,
    ws,
    api,
    messages,
    hookAnswers,
    canUseToolCalls,
    logPath,
    result(i) {
      for (let r = api.requests.length - 1; r >= 0; r--) {
        const found = toolResults(api.requests[r]!).get(id(i));
        if (found) return found;
      }
      throw new Error(
        `no tool_result for call ${i + 1} (${calls[i]!.command}): ${JSON.stringify(messages).slice(0, 800)}`,
      );
    },
  };
}

async function cleanup(s: Session | undefined): Promise<void> {
  if (!s) return;
  await s.api.close();
  fs.rmSync(s.base, { recursive: true, force: true });
}

const guarded = async (policyFile: string, ws: string, log: DecisionLog, enforce = false) =>
  agentSdkGuard(await loadPolicy({ files: [policyFile], cwd: ws }), { cwd: ws, log, enforce });

describe('the Claude Agent SDK with agentSdkGuard (PreToolUse hook callback + canUseTool)', () => {
  const calls: Call[] = [
    { command: 'ls' },
    { command: 'cat .env' },
    { command: 'rm victim.txt' },
    { command: 'touch made.txt' },
    { command: 'echo x > out.txt' },
  ];
  let s: Session;
  beforeAll(async () => {
    s = await session(calls, (p, ws, log) => guarded(p, ws, log));
  }, 300_000);
  afterAll(() => cleanup(s));

  it('ran every call through the hook callback, which answered each one', () => {
    expect(s.messages.at(-1)?.type).toBe('result');
    expect(s.hookAnswers).toHaveLength(calls.length);
  });

  it('runs what the policy allows', () => {
    expect(s.result(0).is_error).toBe(false);
    expect(s.result(0).text).toContain('victim.txt');
    expect(fs.existsSync(path.join(s.ws, 'made.txt'))).toBe(true);
  });

  it('never runs what the policy denies, even a read Claude Code would allow by itself, and the model reads why', () => {
    const env = s.result(1);
    expect(env.is_error).toBe(true);
    expect(env.text).not.toContain('hunter2');
    expect(env.text).toMatch(/\.env/);
    expect(fs.readFileSync(path.join(s.ws, 'victim.txt'), 'utf8')).toBe('do not delete\n');
    expect(s.result(2).is_error).toBe(true);
    expect(s.result(2).text).toContain('nothing is deleted in this workspace');
    // the hook answered these; canUseTool never saw them
    expect(s.canUseToolCalls).not.toContain('cat .env');
    expect(s.canUseToolCalls).not.toContain('rm victim.txt');
  });

  it('does not run an ask nobody can answer', () => {
    expect(fs.existsSync(path.join(s.ws, 'out.txt'))).toBe(false);
    expect(s.result(4).is_error).toBe(true);
    expect(s.result(4).text).toMatch(/approval|approve/);
  });

  it('logged one decision per call in an intact chain', async () => {
    const records = fs
      .readFileSync(s.logPath, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { request: { input: { command: string } }; decision: { behavior: string } },
      );
    expect(records.map((r) => [r.request.input.command, r.decision.behavior])).toEqual([
      ['ls', 'allow'],
      ['cat .env', 'deny'],
      ['rm victim.txt', 'deny'],
      ['touch made.txt', 'allow'],
      ['echo x > out.txt', 'ask'],
    ]);
    expect((await verifyLog(s.logPath)).ok).toBe(true);
  });
});

describe('the Claude Agent SDK with canUseToolFrom alone', () => {
  let s: Session;
  beforeAll(async () => {
    s = await session([{ command: 'cat .env' }], async (p, ws, log) => ({
      canUseTool: canUseToolFrom(await loadPolicy({ files: [p], cwd: ws }), { cwd: ws, log }),
    }));
  }, 300_000);
  afterAll(() => cleanup(s));

  it('is never asked about a call Claude Code allows by itself: the hook callback is the guard', () => {
    // What this shows is the SDK's behaviour (0.3.333), the reason agentSdkGuard registers the hook.
    expect(s.canUseToolCalls).toEqual([]);
    expect(s.result(0).text).toContain('hunter2');
  });
});

const bwrap = await probeBwrap();

describe.skipIf(!bwrap.available)('the Claude Agent SDK with agentSdkGuard and enforce', () => {
  let s: Session;
  let outside: string;
  beforeAll(async () => {
    const probe = fs.mkdtempSync(path.join(os.homedir(), '.toolgate-sdk-e2e-outside-'));
    outside = path.join(probe, 'escaped.txt');
    s = await session(
      [{ command: 'ls' }, { command: `touch made.txt ${outside}` }, { command: 'rm victim.txt' }],
      (p, ws, log) => guarded(p, ws, log, true),
    );
  }, 300_000);
  afterAll(async () => {
    fs.rmSync(path.dirname(outside), { recursive: true, force: true });
    await cleanup(s);
  });

  it('runs allowed Bash as `toolgate jail ... -- <command>`', () => {
    const rewritten = s.hookAnswers
      .map((a) => (a as { hookSpecificOutput?: { updatedInput?: { command?: string } } }).hookSpecificOutput)
      .map((o) => o?.updatedInput?.command ?? '');
    expect(rewritten[0]).toContain(`${CLI}' 'jail'`);
    expect(rewritten[1]).toContain(`${CLI}' 'jail'`);
    expect(rewritten[2]).toBe('');
    expect(s.result(0).is_error).toBe(false);
    expect(s.result(0).text).toContain('victim.txt');
  });

  it('holds an allowed write to what the jail makes writable: the workspace, not the home directory', () => {
    expect(fs.existsSync(path.join(s.ws, 'made.txt'))).toBe(true);
    expect(fs.existsSync(outside)).toBe(false);
    expect(s.result(1).is_error).toBe(true);
    expect(fs.readFileSync(path.join(s.ws, 'victim.txt'), 'utf8')).toBe('do not delete\n');
  });
});
