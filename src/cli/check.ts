import type { Decision } from '../policy/decision.js';
import type { ToolRequest } from '../policy/request.js';
import { forEachJsonLine, parseCliArgs } from './args.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import { cwdOf, logFor, modeOf, POLICY_OPTIONS, PolicyLoadFailed, policyFor } from './policy-args.js';

const HELP = `usage: toolgate check --tool T --input JSON [--policy F]... [--mode M] [--cwd D] [--json] [--explain] [--log FILE [--log-key KEY]]
       toolgate check --stdin [--policy F]...   (JSON Lines in: {"tool","input","mode"?,"cwd"?}; a Decision per line out)

Asks the policy whether a tool call may run. Prints the decision: allow, ask or deny, and why.
Policies: --policy F (repeatable, first is highest), else .toolgate/policy.yaml and friends,
else the embedded default. Exit status: 0 decided; 1 bad input lines (--stdin); 2 usage or policy errors.
`;

export async function checkCommand(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCliArgs(argv, {
    ...POLICY_OPTIONS,
    tool: { type: 'string' },
    input: { type: 'string' },
    stdin: { type: 'boolean' },
    json: { type: 'boolean' },
    explain: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const mode = modeOf(values.mode);
  if (!values.stdin && values.tool === undefined) throw new UsageError('missing --tool (or use --stdin)');
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
  const { decide } = await import('../policy/decide.js');
  const cwd = cwdOf(values, io);
  const log = await logFor(values, io, cwd);
  try {
    if (values.stdin) {
      let bad = 0;
      await forEachJsonLine(
        io.stdin,
        async (value, n) => {
          const req = value as Partial<ToolRequest> | null;
          if (req === null || typeof req !== 'object' || typeof req.tool !== 'string') {
            bad++;
            io.stdout.write(
              `${JSON.stringify({ line: n, error: 'expected {"tool": "<name>", "input": {...}}' })}\n`,
            );
            return;
          }
          let lineMode = mode;
          try {
            lineMode = req.mode === undefined ? mode : modeOf(req.mode);
          } catch (err) {
            bad++;
            io.stdout.write(`${JSON.stringify({ line: n, error: (err as Error).message })}\n`);
            return;
          }
          const request: ToolRequest = {
            tool: req.tool,
            input: req.input ?? {},
            cwd: typeof req.cwd === 'string' ? req.cwd : cwd,
            ...(lineMode ? { mode: lineMode } : {}),
          };
          const decision = decide(request, policy);
          await log?.append({ request, decision });
          io.stdout.write(`${JSON.stringify(decision)}\n`);
        },
        (n, message) => {
          bad++;
          io.stdout.write(`${JSON.stringify({ line: n, error: message })}\n`);
        },
      );
      return bad > 0 ? 1 : 0;
    }
    let input: unknown = {};
    if (values.input !== undefined) {
      try {
        input = JSON.parse(values.input);
      } catch (err) {
        throw new UsageError(`--input is not JSON: ${(err as Error).message}`);
      }
    }
    const request: ToolRequest = { tool: values.tool!, input, cwd, ...(mode ? { mode } : {}) };
    const trace: string[] = [];
    const decision = decide(request, policy, values.explain ? { trace } : {});
    await log?.append({ request, decision });
    if (values.json) io.stdout.write(`${JSON.stringify(decision, null, values.explain ? 2 : undefined)}\n`);
    else io.stdout.write(describe(decision));
    if (values.explain) io.stdout.write(explain(decision, policy, trace));
    return 0;
  } finally {
    await log?.close();
  }
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
  lines.push(`  policy digest: ${d.policyDigest}`);
  return `${lines.join('\n')}\n`;
}
