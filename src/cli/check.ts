import { rank } from '../policy/behavior.js';
import type { Decision } from '../policy/decision.js';
import { explainProfile } from '../policy/profile.js';
import type { ToolRequest } from '../policy/request.js';
import { commandLineOf, forEachJsonLine, parseCliArgs, splitCommandWords } from './args.js';
import { decideCall } from './decide-call.js';
import { DurableAnswers } from './durable-answers.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { cwdOf, logFor, modeOf, POLICY_OPTIONS, PolicyLoadFailed, policyFor } from './policy-args.js';

const HELP = `usage: toolgate check [options] [--tool Bash] -- COMMAND WORDS...
       toolgate check [options] --tool T --input JSON
       toolgate check [options] --stdin   (JSON Lines in: {"tool","input","mode"?,"cwd"?}; a Decision per line out)

Asks the policy whether a tool call may run, as the hook would (auto mode included: an ask
goes to the policy's classifier, the offline one unless its auto: block names another).
Prints the decision: allow, ask or deny, and why.

  -- WORDS...        a Bash command: one word is a command line as typed ('git status | head'),
                     several are the words of one command (-- git push --force origin main)
  --tool T --input J  any tool, its input as JSON
  --fail-on deny|ask  exit 1 when a decision is that strict or stricter (for CI and scripts)
  --policy F          repeatable, first is highest; else .toolgate/policy.yaml and friends,
                      else the embedded default
  --mode M  --cwd D  --json  --explain  --log FILE [--log-key KEY] [--otlp URL]

Exit status: 0 decided; 1 a decision at or above --fail-on, or bad input lines (--stdin);
2 usage or policy errors.
`;

const OPTIONS = {
  ...POLICY_OPTIONS,
  tool: { type: 'string' },
  input: { type: 'string' },
  stdin: { type: 'boolean' },
  json: { type: 'boolean' },
  explain: { type: 'boolean' },
  'fail-on': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function checkCommand(argv: string[], io: CliIO): Promise<number> {
  const { own, words } = splitCommandWords(argv, OPTIONS);
  const { values } = parseCliArgs(own, OPTIONS);
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const mode = modeOf(values.mode);
  const failOn = failOnOf(values['fail-on']);
  const single = values.stdin ? undefined : callOf(values, words);
  if (values.stdin && words.length > 0) throw new UsageError('--stdin takes no command words');
  let policy: Awaited<ReturnType<typeof policyFor>>;
  try {
    policy = await policyFor(values, io);
  } catch (err) {
    if (err instanceof PolicyLoadFailed) {
      io.stderr.write(`toolgate check: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const cwd = cwdOf(values, io);
  const log = await logFor(values, io, cwd);
  const fails = (d: Decision) => failOn !== undefined && rank(d.behavior) >= rank(failOn);
  try {
    if (single === undefined) {
      let bad = 0;
      let failed = false;
      // Answers leave in input order, each once its record is durable (see durable-answers.ts).
      const answers = new DurableAnswers(io.stdout);
      const refuse = (n: number, error: string) => {
        bad++;
        answers.push(`${JSON.stringify({ line: n, error })}\n`).catch(() => {}); // rethrown by finish()
      };
      await forEachJsonLine(
        io.stdin,
        async (value, n) => {
          const req = value as Partial<ToolRequest> | null;
          if (req === null || typeof req !== 'object' || typeof req.tool !== 'string') {
            refuse(n, 'expected {"tool": "<name>", "input": {...}}');
            return;
          }
          let lineMode = mode;
          try {
            lineMode = req.mode === undefined ? mode : modeOf(req.mode);
          } catch (err) {
            refuse(n, (err as Error).message);
            return;
          }
          const request: ToolRequest = {
            tool: req.tool,
            input: req.input ?? {},
            cwd: typeof req.cwd === 'string' ? req.cwd : cwd,
            ...(lineMode ? { mode: lineMode } : {}),
          };
          const decision = await decideCall(request, policy, io);
          failed ||= fails(decision);
          await answers.push(`${JSON.stringify(decision)}\n`, log?.append({ request, decision }));
        },
        refuse,
      );
      await answers.finish();
      return bad > 0 || failed ? 1 : 0;
    }
    const request: ToolRequest = { ...single, cwd, ...(mode ? { mode } : {}) };
    const trace: string[] = [];
    const decision = await decideCall(request, policy, io, values.explain ? trace : undefined);
    await log?.append({ request, decision });
    if (values.json) io.stdout.write(`${JSON.stringify(decision, null, values.explain ? 2 : undefined)}\n`);
    else io.stdout.write(describe(decision));
    if (values.explain) io.stdout.write(explain(decision, policy, trace));
    return fails(decision) ? 1 : 0;
  } finally {
    policy.conditions?.dispose?.();
    await log?.close();
  }
}

/** The one call to decide: command words (a Bash call), or --tool with its --input. */
function callOf(
  values: { tool?: string | undefined; input?: string | undefined },
  words: string[],
): Pick<ToolRequest, 'tool' | 'input'> {
  if (words.length > 0) {
    if (values.input !== undefined)
      throw new UsageError('give the call either as command words or as --input, not both');
    if (values.tool !== undefined && values.tool !== 'Bash')
      throw new UsageError(
        `command words are a Bash command, not a ${values.tool} call`,
        `give ${values.tool}'s input as --input JSON`,
      );
    return { tool: 'Bash', input: { command: commandLineOf(words) } };
  }
  if (values.tool === undefined)
    throw new UsageError(
      'nothing to check',
      'give a command (toolgate check -- git push origin main), --tool T --input JSON, or --stdin',
    );
  if (values.input === undefined)
    throw new UsageError(
      `missing --input for ${values.tool}`,
      values.tool === 'Bash'
        ? `give the command after --, e.g. toolgate check -- git status, or --input '{"command":"git status"}'`
        : `give its input as JSON, e.g. --input '{"file_path":"src/a.ts"}'`,
    );
  try {
    return { tool: values.tool, input: JSON.parse(values.input) };
  } catch (err) {
    throw new UsageError(
      `--input is not JSON: ${(err as Error).message}`,
      `quote it for the shell: --input '{"command":"ls"}'`,
    );
  }
}

function failOnOf(text: string | undefined): 'deny' | 'ask' | undefined {
  if (text === undefined || text === 'deny' || text === 'ask') return text;
  throw new UsageError(`--fail-on must be deny or ask (got "${text}")`);
}

function describe(d: Decision): string {
  const where = d.rule
    ? `\n  rule:   ${d.rule.text}  (${d.rule.source}${d.rule.line === undefined ? '' : `:${d.rule.line}`})`
    : '';
  return `${d.behavior.toUpperCase()}: ${d.reason}\n  by:     ${d.decidedBy} (mode ${d.mode})${where}\n`;
}

function explain(d: Decision, policy: Awaited<ReturnType<typeof policyFor>>, trace: string[]): string {
  const lines = ['', 'decision path:'];
  lines.push(
    `  policy files (highest first): ${policy.files.map((f) => `${f.source} [${f.layer}]`).join(', ') || '(none)'}`,
  );
  lines.push(`  mode: ${d.mode}${policy.modeSource ? ` (policy mode from ${policy.modeSource})` : ''}`);
  lines.push(
    `  facts: read-only ${d.facts.readOnly}, concurrency-safe ${d.facts.concurrencySafe}, destructive ${d.facts.destructive}`,
  );
  for (const r of d.facts.reasons) lines.push(`    - ${r}`);
  for (const t of trace) lines.push(`  ${t}`);
  if (d.sandbox) {
    lines.push(`  jail (${d.sandbox.kind ?? 'workspace'}), and why each limit:`);
    for (const why of explainProfile(d.sandbox)) lines.push(`    - ${why}`);
  }
  lines.push(`  policy digest: ${d.policyDigest}`);
  return `${lines.join('\n')}\n`;
}
