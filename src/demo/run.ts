import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { runAgent } from '../adapters/agent-loop.js';
import { DecisionLog } from '../audit/log.js';
import { verifyLog } from '../audit/verify.js';
import { resultText } from '../pipeline/blocks.js';
import type { ToolUseOutcome } from '../pipeline/run-tool-use.js';
import type { CanUseTool } from '../pipeline/tool.js';
import { loadPolicyFiles } from '../policy/layers.js';
import { probeBwrap } from '../sandbox/bwrap.js';
import { isRefusal } from '../tools/refusal.js';
import { startMessagesApi } from './scripted-model.js';
import { demoApproves, demoScript, seedWorkspace } from './session.js';
import { layoutFor, row as tableRow } from './table.js';

/**
 * The demo: a scripted model (a loopback Messages API) drives the real SDK agent loop through
 * the whole pipeline on the embedded default policy: validation, hooks, decisions, sandbox,
 * scheduling, the decision log. A table shows what happened to each call; the log is verified.
 */
export interface DemoOptions {
  /** Where the workspace and the log go (default: a new temp directory, kept for inspection). */
  dir?: string;
  out: NodeJS.WritableStream;
  color?: boolean;
  /** Columns to fit the table in (default 120); reasons wrap within them. */
  width?: number;
  /** Every call and reason whole, one line a row, whatever the width. */
  wide?: boolean;
}

export interface DemoSummary {
  calls: number;
  counts: Record<string, number>;
  logPath: string;
  logIntact: boolean;
  workspace: string;
  /** Whether allowed commands ran in the jail; false where bubblewrap cannot run (decisions only). */
  jailed: boolean;
}

export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const root = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-demo-'));
  const ws = path.join(root, 'workspace');
  fs.mkdirSync(ws, { recursive: true });
  seedWorkspace(ws);
  const logPath = path.join(root, 'decisions.jsonl');
  const out = options.out;
  const paint = painter(options.color ?? false);

  const policy = loadPolicyFiles([{ file: 'builtin:default', layer: 'builtin' }]);
  const turns = demoScript(ws);
  let calls = 0;
  const api = await startMessagesApi((_body, i) => {
    const turn = turns[i];
    if (turn === undefined)
      return { content: [{ type: 'text', text: 'All done.' }], stop_reason: 'end_turn' };
    return {
      content: [
        { type: 'text', text: turn.say },
        ...turn.calls.map((c) => ({
          type: 'tool_use' as const,
          id: `toolu_demo_${String(++calls).padStart(2, '0')}`,
          name: c.name,
          input: c.input,
        })),
      ],
      stop_reason: 'tool_use',
    };
  });
  const whatById = new Map(
    turns.flatMap((t) => t.calls).map((c, i) => [`toolu_demo_${String(i + 1).padStart(2, '0')}`, c.what]),
  );

  const log = await DecisionLog.open(logPath);
  const approver: CanUseTool = async (tool, input) =>
    demoApproves(tool.name, input, ws)
      ? { behavior: 'allow', message: 'approved by the demo user' }
      : { behavior: 'deny', message: 'refused by the demo user' };

  out.write(
    `${paint.bold('toolgate demo')}: a scripted agent session through the full pipeline, embedded default policy\n`,
  );
  out.write(`workspace ${ws}\n`);
  // The default policy runs an allowed command in the jail or not at all (sandbox.os:
  // required): where bubblewrap cannot run, say before the table that those rows are decisions
  // only, instead of letting them look like commands that ran and failed.
  const probe = await probeBwrap();
  if (!probe.available) {
    out.write(
      `${paint.yellow('no jail here')}: bubblewrap cannot run (${probe.reason}). The default policy runs an allowed command inside it or not at all (sandbox.os: required), so the Bash rows allowed below show the decision only ("${NO_JAIL}"); nothing runs unjailed. The decisions, the file tools, the asks and the log are the real thing. Install bubblewrap with user namespaces enabled to see those commands run.\n`,
    );
  }
  out.write('\n');
  const width = options.width ?? 120;
  const callTexts = [...whatById.values()].map((w) => w.replace(/\n/g, '⏎'));
  const layout = layoutFor(width, options.wide === true, callTexts);
  const header = tableRow(layout, {
    n: Number.NaN,
    tool: 'tool',
    call: 'call',
    outcome: 'outcome',
    why: 'why',
  }).replace(/^NaN/, '#  ');
  out.write(
    `${paint.bold(header)}\n${'─'.repeat(options.wide ? header.length + 40 : Math.min(width, 140))}\n`,
  );
  const counts: Record<string, number> = {};
  let n = 0;
  const row = (o: ToolUseOutcome): void => {
    n++;
    const outcome = classify(o);
    counts[outcome] = (counts[outcome] ?? 0) + 1;
    const what = whatById.get(o.toolUseId) ?? o.toolUseId;
    const reason = o.decision?.reason ?? resultText(o.result.content);
    // For asks, what matters is why the policy asked; the person's answer is in the outcome column.
    const asked = /the policy asked: (.*?)\)?$/s.exec(reason)?.[1];
    const why = (asked ?? reason).split(`${ws}/`).join('').split(ws).join('.');
    const color =
      outcome === 'ran' || outcome === 'approved, ran'
        ? 'green'
        : outcome.startsWith('denied')
          ? 'red'
          : 'yellow';
    const cells = { n, tool: o.tool?.name ?? '?', call: what.replace(/\n/g, '⏎'), outcome, why };
    out.write(`${tableRow(layout, cells, paint[color])}\n`);
  };

  try {
    const client = new Anthropic({ apiKey: 'sk-demo-loopback', baseURL: api.url, maxRetries: 0 });
    await runAgent({
      client,
      model: 'scripted-demo-model',
      policy,
      cwd: ws,
      prompt: 'Please tidy up the project.',
      canUseTool: approver,
      context: { sessionId: 'demo', options: { decisionLog: log, isNonInteractive: false } },
      onOutcome: row,
    });
  } finally {
    await log.close();
    await api.close();
  }
  const verified = await verifyLog(logPath);
  out.write(
    `\n${paint.bold('summary')}: ${n} calls — ${Object.entries(counts)
      .map(([k, v]) => `${v} ${k}`)
      .join(', ')}\n`,
  );
  out.write(
    `the files the denied calls targeted are intact: README.md ${exists(ws, 'README.md')}, src/ ${exists(ws, 'src')}, .git/hooks/pre-commit absent ${!fs.existsSync(path.join(ws, '.git/hooks/pre-commit'))}\n`,
  );
  out.write(
    `decision log: ${logPath}\n  verify: ${verified.ok ? paint.green(`intact, ${verified.count} records, head ${verified.head.slice(0, 16)}…`) : paint.red(`${verified.kind}: ${verified.message}`)}\n`,
  );
  if (!probe.available) {
    out.write(
      `  ${counts[NO_JAIL] ?? 0} allowed commands did not run: bubblewrap cannot run here (see above); their decisions are in the log\n`,
    );
  }
  out.write(`  replay it: toolgate verify ${logPath} && toolgate replay ${logPath} --policy <your policy>\n`);
  return { calls: n, counts, logPath, logIntact: verified.ok, workspace: ws, jailed: probe.available };
}

/** The outcome of an allowed command the sandbox refused to run because no jail can be built. */
const NO_JAIL = 'allowed, no jail';

function classify(o: ToolUseOutcome): string {
  const d = o.decision;
  const reason = d?.reason ?? '';
  if (o.failure?.kind === 'ask-refused') return 'asked, refused';
  if (isRefusal(o.output) && o.output.kind === 'sandbox' && /sandbox\.os is required/.test(o.output.message))
    return NO_JAIL;
  if (reason.startsWith('Approved through canUseTool'))
    return o.result.is_error ? 'approved, failed' : 'approved, ran';
  if (d?.behavior === 'deny')
    return d.decidedBy === 'guard' ? 'denied (guard)' : d.decidedBy === 'rule' ? 'denied (rule)' : 'denied';
  if (o.result.is_error) return o.failure ? `failed (${o.failure.kind})` : 'ran, exit≠0';
  return 'ran';
}

function exists(ws: string, rel: string): boolean {
  return fs.existsSync(path.join(ws, rel));
}

function painter(on: boolean) {
  const wrap = (code: string) => (s: string) => (on ? `\x1b[${code}m${s}\x1b[0m` : s);
  return { bold: wrap('1'), green: wrap('32'), red: wrap('31'), yellow: wrap('33') };
}
