import path from 'node:path';
import { analyzeBash, factsOf } from '../bash/classify.js';
import { type BashPart, bashParts } from './bash-parts.js';
import type { CompiledPolicy } from './compile.js';
import type { Decision, DecisionFacts } from './decision.js';
import { DecisionFs } from './decision-fs.js';
import { type FileSystemView, nodeFileSystem } from './fs-view.js';
import { hostOf } from './match/domain.js';
import { type Mode, parseMode } from './mode.js';
import type { BashLine, ToolCall, Verdict } from './order/subject.js';
import { DECISION_ORDER } from './order/table.js';
import { walk } from './order/walk.js';
import { sandboxProfile } from './profile.js';
import type { ToolRequest } from './request.js';
import { canonicalToolName } from './rule.js';
import { type ConditionEvaluator, hasDomainRules, type MatchContext } from './rule-match.js';
import { checkInput, type ToolClass, toolInfo } from './tools.js';
import { openedPath, type Workspace, workspaceFor } from './workspace.js';

/**
 * decide(request, policy) -> Decision: the request becomes a subject (a tool call, or a Bash
 * line and its parts) and the decision order (order/table.ts) is walked over it (order/walk.ts):
 * the strictest answer of every restricting step (deny rules, guards, ask rules, plan mode)
 * and of each subject's first grant (a mode, an allow rule, the default) wins. Then an ask is
 * a deny in dontAsk mode; in auto mode the classifier decides (decideWithClassifier).
 * Deterministic for a given policy and file system.
 */
export interface DecideOptions {
  readonly fs?: FileSystemView;
  readonly conditions?: ConditionEvaluator;
  /** Receives the steps of the decision, for `toolgate check --explain`. */
  readonly trace?: string[];
  /**
   * Default true: an allow or an ask carries the sandbox profile the call would run under.
   * false leaves `sandbox` out, for callers that only compare decisions (replay): the
   * behavior, reason, rule and facts are the same either way.
   */
  readonly sandboxProfile?: boolean;
}

type Outcome = Verdict & { readonly dontAskDenied?: true };

let defaultFs: FileSystemView | undefined;

export function decide(request: ToolRequest, policy: CompiledPolicy, options: DecideOptions = {}): Decision {
  defaultFs ??= nodeFileSystem();
  const fs = new DecisionFs(options.fs ?? defaultFs);
  const { mode, note, unknown } = effectiveMode(request.mode, policy);
  const tool = canonicalToolName(request.tool);
  const end: Ending = {
    mode,
    note,
    policy,
    request,
    home: fs.home,
    profile: options.sandboxProfile !== false,
  };
  const invalid =
    unknown !== undefined
      ? // A mode toolgate does not know may be stricter than any it knows: nothing is allowed.
        `unknown permission mode "${unknown}"; nothing is allowed`
      : typeof request.cwd !== 'string' || !path.isAbsolute(request.cwd)
        ? `the working directory must be an absolute path (got ${JSON.stringify(request.cwd)})`
        : checkInput(tool, request.input);
  if (invalid !== undefined) {
    const subject = { kind: 'invalid', mode, reason: invalid } as const;
    return toDecision(end, finish(walk(DECISION_ORDER, subject, options.trace), mode), NOT_READ_ONLY);
  }

  const workspace = workspaceFor(request.cwd, policy, fs);
  const info = toolInfo(tool);
  const input = (request.input ?? {}) as Record<string, unknown>;
  if (info.class === 'shell') {
    const analysis = analyzeBash(String(input.command));
    const facts = publicFacts(factsOf(analysis));
    const ctx = matchContext(policy, options, fs, workspace, tool, request, mode, facts);
    const parts = bashParts(analysis, request.cwd, fs);
    if (options.trace) traceParts(options.trace, parts);
    const contentRules = hasContentRules(ctx);
    const line: BashLine = {
      kind: 'bash',
      ctx,
      mode,
      facts,
      workspace,
      parts,
      notUnderstood:
        analysis.complete && analysis.lineReasons.length === 0
          ? undefined
          : (analysis.lineReasons[0] ?? 'part of the line was not understood'),
      complete: analysis.complete,
      contentRules,
      // What cannot be seen into may also connect to a host a WebFetch(domain:...) rule names;
      // and with no jail (`sandbox.os: off`) it may write a protected path that nothing then holds.
      hiddenMatters: contentRules || hasDomainRules(ctx) || policy.sandbox.os === 'off',
    };
    return toDecision(
      end,
      finish(walk(DECISION_ORDER, line, options.trace), mode),
      facts,
      workspace,
      parts.some((p) => p.report.network),
    );
  }
  const facts = toolFacts(info.class, tool);
  const ctx = matchContext(policy, options, fs, workspace, tool, request, mode, facts);
  const call = toolCall(tool, info.class, input, info.target, facts, ctx, mode, workspace, request.cwd);
  return toDecision(
    end,
    finish(walk(DECISION_ORDER, call, options.trace), mode),
    facts,
    workspace,
    info.class === 'fetch',
  );
}

function matchContext(
  policy: CompiledPolicy,
  options: DecideOptions,
  fs: FileSystemView,
  workspace: Workspace,
  tool: string,
  request: ToolRequest,
  mode: Mode,
  facts: DecisionFacts,
): MatchContext {
  return {
    policy,
    conditions: options.conditions ?? policy.conditions,
    fs,
    workspaceRoot: workspace.root,
    condition: {
      tool,
      input: request.input,
      cwd: request.cwd,
      mode,
      facts: { readOnly: facts.readOnly, destructive: facts.destructive },
    },
  };
}

/** A call of a tool that is not a shell, as the decision order sees it. */
function toolCall(
  tool: string,
  cls: ToolClass,
  input: Record<string, unknown>,
  targetField: string | undefined,
  facts: DecisionFacts,
  ctx: MatchContext,
  mode: Mode,
  workspace: Workspace,
  cwd: string,
): ToolCall {
  const target = targetField === undefined ? undefined : input[targetField];
  const access = cls === 'read' || cls === 'search' ? 'read' : cls === 'edit' ? 'edit' : undefined;
  let file: string | undefined;
  if (access !== undefined) {
    file = typeof target === 'string' && target !== '' ? openedPath(target, cwd, ctx.fs) : cwd;
  }
  const host = cls === 'fetch' && typeof target === 'string' ? hostOf(target) : undefined;
  const extract = {
    ...(host === undefined ? {} : { host }),
    ...(cls === 'agent' && typeof target === 'string' ? { agent: target } : {}),
    ...(typeof target === 'string' ? { primary: target } : {}),
  };
  return {
    kind: 'tool',
    ctx,
    mode,
    facts,
    workspace,
    tool,
    cls,
    input,
    target,
    file,
    access,
    host,
    extract,
    display: file ?? (host ? `${tool} ${host}` : tool),
  };
}

/** Whether any rule could match the contents of a Bash line (Bash patterns or path rules). */
function hasContentRules(ctx: MatchContext): boolean {
  const p = ctx.policy;
  const bash = p.ruleSetForTool('Bash');
  return (
    bash.deny.length + bash.ask.length > 0 ||
    p.pathRules.read.deny.length +
      p.pathRules.read.ask.length +
      p.pathRules.edit.deny.length +
      p.pathRules.edit.ask.length >
      0
  );
}

// ---------------------------------------------------------------- helpers

function traceParts(trace: string[], parts: readonly BashPart[]): void {
  for (const p of parts) {
    const status =
      p.report.notReadOnly.length === 0 ? 'read-only' : `not read-only: ${p.report.notReadOnly[0]}`;
    const via = p.report.via === 'line' ? '' : ` [via ${p.report.via}]`;
    trace.push(`command: ${p.display}${via} -> ${status}`);
    for (const r of p.reads)
      trace.push(`    reads ${r.paths?.join(', ') ?? `"${r.raw}" (only known at run time)`}`);
    for (const w of p.writes)
      trace.push(
        `    writes ${w.paths?.join(', ') ?? `"${w.raw}" (only known at run time)`}${w.viaRedirect ? ' (redirect)' : ''}`,
      );
    for (const r of p.removes)
      trace.push(`    deletes ${r.paths?.join(', ') ?? `"${r.raw}" (only known at run time)`}`);
    if (p.cwds === undefined) trace.push('    runs in a directory only known at run time');
  }
}

const NOT_READ_ONLY: DecisionFacts = {
  readOnly: false,
  concurrencySafe: false,
  destructive: false,
  reasons: [],
};

function publicFacts(f: {
  readOnly: boolean;
  concurrencySafe: boolean;
  destructive: boolean;
  reasons: string[];
}): DecisionFacts {
  return {
    readOnly: f.readOnly,
    concurrencySafe: f.concurrencySafe,
    destructive: f.destructive,
    reasons: f.reasons,
  };
}

function toolFacts(cls: ToolClass, tool: string): DecisionFacts {
  switch (cls) {
    case 'read':
    case 'search':
      return { readOnly: true, concurrencySafe: true, destructive: false, reasons: [] };
    case 'harmless':
      return {
        readOnly: true,
        concurrencySafe: true,
        destructive: false,
        reasons: [`${tool} only changes the agent's own state`],
      };
    case 'isolated':
      return {
        readOnly: true,
        concurrencySafe: true,
        destructive: false,
        reasons: [`${tool} runs in an isolate with no access to the host`],
      };
    case 'agent':
      return {
        readOnly: true,
        concurrencySafe: false,
        destructive: false,
        reasons: [`${tool} starts a subagent, whose own calls are checked`],
      };
    case 'edit':
      return {
        readOnly: false,
        concurrencySafe: false,
        destructive: true,
        reasons: [`${tool} writes a file`],
      };
    case 'fetch':
      return {
        readOnly: false,
        concurrencySafe: true,
        destructive: false,
        reasons: [`${tool} fetches a URL over the network`],
      };
    case 'network':
      return {
        readOnly: false,
        concurrencySafe: true,
        destructive: false,
        reasons: [`${tool} uses the network`],
      };
    case 'kill':
      return {
        readOnly: false,
        concurrencySafe: false,
        destructive: true,
        reasons: [`${tool} stops a running process`],
      };
    default:
      return {
        readOnly: false,
        concurrencySafe: false,
        destructive: false,
        reasons: [`${tool} is not a tool toolgate knows`],
      };
  }
}

/** After the walk: an ask in dontAsk mode is a deny; in auto mode it waits for the classifier. */
function finish(verdict: Verdict, mode: Mode): Outcome {
  if (verdict.behavior !== 'ask' || mode !== 'dontAsk') return verdict;
  return {
    ...verdict,
    behavior: 'deny',
    reason: `${verdict.reason} (dontAsk mode denies what would need approval)`,
    dontAskDenied: true,
  };
}

function effectiveMode(
  requested: string | undefined,
  policy: CompiledPolicy,
): { mode: Mode; note?: string; unknown?: string } {
  const parsed = requested === undefined ? policy.mode : parseMode(requested);
  if (parsed === undefined) return { mode: 'default', unknown: String(requested) };
  if (parsed === 'bypassPermissions' && policy.lock.disableBypass) {
    return { mode: 'default', note: 'bypassPermissions is disabled by the managed policy' };
  }
  return { mode: parsed };
}

/** What every way out of decide() needs to turn an outcome into a Decision. */
interface Ending {
  readonly mode: Mode;
  readonly note: string | undefined;
  readonly policy: CompiledPolicy;
  readonly request: ToolRequest;
  readonly home: string;
  /** Whether to compute the sandbox profile (DecideOptions.sandboxProfile). */
  readonly profile: boolean;
}

function toDecision(
  { mode, note, policy, request, home, profile }: Ending,
  o: Outcome,
  facts: DecisionFacts,
  workspace?: Workspace,
  network = false,
): Decision {
  const decision: Decision = {
    behavior: o.behavior,
    reason: note ? `${o.reason} [${note}]` : o.reason,
    decidedBy: o.by,
    mode,
    facts,
    policyDigest: policy.digest,
  };
  if (o.hit) decision.rule = o.hit.rule.ref;
  if (o.dontAskDenied) decision.dontAskDenied = true;
  if (policy.notes.length > 0) decision.policyNotes = [...policy.notes];
  if (policy.bundles !== undefined && policy.bundles.length > 0)
    decision.policyBundles = policy.bundles.map((b) => b.id);
  // An ask carries the limits an approved call runs under; whoever approves it approves the
  // network use the call shows. A default allow is read-only and gets no network. A call
  // predicted read-only gets the read-only jail whatever allowed it (profile.ts).
  if (profile && o.behavior !== 'deny' && workspace)
    decision.sandbox = sandboxProfile(
      policy,
      request,
      workspace,
      network && (o.behavior === 'ask' || o.by !== 'default'),
      home,
      facts.readOnly,
    );
  return decision;
}
