import path from 'node:path';
import { analyzeBash, factsOf } from '../bash/classify.js';
import { type BashPart, bashParts } from './bash-parts.js';
import type { CompiledPolicy } from './compile.js';
import type { DecidedBy, Decision, DecisionFacts } from './decision.js';
import { DecisionFs } from './decision-fs.js';
import { type FileSystemView, nodeFileSystem } from './fs-view.js';
import { criticalRemoval, protectedWrite } from './guards.js';
import { hostOf } from './match/domain.js';
import { type Mode, parseMode } from './mode.js';
import { sandboxProfile } from './profile.js';
import type { ToolRequest } from './request.js';
import { canonicalToolName } from './rule.js';
import {
  bashRuleHit,
  bashRuleMayHit,
  type ConditionEvaluator,
  domainRuleHit,
  hasDomainRules,
  type MatchContext,
  pathRuleHit,
  type RuleHit,
  readRuleTester,
  toolRuleHit,
} from './rule-match.js';
import { checkInput, type ToolClass, toolInfo } from './tools.js';
import { absolutePath, type Workspace, workspaceFor } from './workspace.js';

/**
 * decide(request, policy) -> Decision, in Claude Code's order:
 *   1. invalid input -> deny            5. mode: bypass allows; plan denies what is not read-only;
 *   2. a deny rule -> deny                 acceptEdits allows edits in the workspace
 *   3. guards -> ask (nothing lifts)    6. an allow rule -> allow
 *   4. an ask rule -> ask               7. read-only in the workspace -> allow; else ask
 *   8. ask becomes deny in dontAsk; in auto the classifier decides (decideWithClassifier).
 * Bash runs steps 2-7 on every simple command of the line: any deny denies, any ask asks,
 * allow only when every part is allowed. Deterministic for a given policy and file system.
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

type Outcome = {
  behavior: 'allow' | 'ask' | 'deny';
  by: DecidedBy;
  reason: string;
  hit?: RuleHit | undefined;
  dontAskDenied?: true;
};

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

  if (unknown !== undefined) {
    // A mode toolgate does not know may be stricter than any it knows: nothing is allowed.
    return toDecision(end, error(`unknown permission mode "${unknown}"; nothing is allowed`), NOT_READ_ONLY);
  }
  if (typeof request.cwd !== 'string' || !path.isAbsolute(request.cwd)) {
    return toDecision(
      end,
      error(`the working directory must be an absolute path (got ${JSON.stringify(request.cwd)})`),
      NOT_READ_ONLY,
    );
  }
  const invalid = checkInput(tool, request.input);
  if (invalid !== undefined) return toDecision(end, error(invalid), NOT_READ_ONLY);

  const workspace = workspaceFor(request.cwd, policy, fs);
  const info = toolInfo(tool);
  const input = (request.input ?? {}) as Record<string, unknown>;
  if (info.class === 'shell') {
    const analysis = analyzeBash(String(input.command));
    const facts = publicFacts(factsOf(analysis));
    const ctx = matchContext(policy, options, fs, workspace, tool, request, mode, facts);
    const parts = bashParts(analysis, request.cwd, fs);
    if (options.trace) traceParts(options.trace, parts);
    const outcome = decideBash(
      parts,
      analysis.complete && analysis.lineReasons.length === 0
        ? undefined
        : (analysis.lineReasons[0] ?? 'part of the line was not understood'),
      analysis.complete,
      facts,
      ctx,
      mode,
      workspace,
    );
    return toDecision(
      end,
      outcome,
      facts,
      workspace,
      parts.some((p) => p.report.network),
    );
  }
  const facts = toolFacts(info.class, tool);
  const ctx = matchContext(policy, options, fs, workspace, tool, request, mode, facts);
  return toDecision(
    end,
    decideTool(tool, info.class, input, info.target, facts, ctx, mode, workspace, request.cwd),
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

// ---------------------------------------------------------------- one call of a non-shell tool

function decideTool(
  tool: string,
  cls: ToolClass,
  input: Record<string, unknown>,
  targetField: string | undefined,
  facts: DecisionFacts,
  ctx: MatchContext,
  mode: Mode,
  workspace: Workspace,
  cwd: string,
): Outcome {
  const target = targetField === undefined ? undefined : input[targetField];
  const access = cls === 'read' || cls === 'search' ? 'read' : cls === 'edit' ? 'edit' : undefined;
  let file: string | undefined;
  if (access !== undefined) {
    file = typeof target === 'string' && target !== '' ? absolutePath(target, cwd, ctx.fs.home) : cwd;
  }
  const host = cls === 'fetch' && typeof target === 'string' ? hostOf(target) : undefined;
  if (cls === 'fetch' && host === undefined)
    return error(`${tool} needs an http(s) URL (got ${JSON.stringify(target)})`);
  const extract = {
    ...(host === undefined ? {} : { host }),
    ...(cls === 'agent' && typeof target === 'string' ? { agent: target } : {}),
    ...(typeof target === 'string' ? { primary: target } : {}),
  };
  const subject = file ?? (host ? `${tool} ${host}` : tool);

  const deny =
    toolRuleHit('deny', tool, input, ctx, extract) ??
    (file && access ? pathRuleHit('deny', access, file, ctx) : undefined);
  if (deny) return ruleOutcome('deny', deny, subject);
  const ask =
    toolRuleHit('ask', tool, input, ctx, extract) ??
    (file && access ? pathRuleHit('ask', access, file, ctx) : undefined);
  if (ask) return finalAsk(ruleOutcome('ask', ask, subject), mode);

  if (mode === 'bypassPermissions')
    return {
      behavior: 'allow',
      by: 'mode',
      reason: 'bypassPermissions mode allows it (no deny or ask rule applies)',
    };
  if (mode === 'plan' && !facts.readOnly) {
    return {
      behavior: 'deny',
      by: 'mode',
      reason: `plan mode runs only read-only tools; ${facts.reasons[0] ?? `${tool} is not read-only`}`,
    };
  }
  const isProtected =
    access === 'edit' && file ? protectedWrite(file, workspace.roots, (p) => ctx.fs.realpath(p)) : undefined;
  if (isProtected) {
    return finalAsk(
      {
        behavior: 'ask',
        by: 'guard',
        reason: `${file} is a protected path (${isProtected}): writing it can make code run later`,
      },
      mode,
    );
  }
  if (mode === 'acceptEdits' && access === 'edit' && file && workspace.contains(file)) {
    return {
      behavior: 'allow',
      by: 'mode',
      reason: `acceptEdits mode allows edits inside the workspace (${file})`,
    };
  }
  const allow =
    toolRuleHit('allow', tool, input, ctx, extract) ??
    (file && access ? pathRuleHit('allow', access, file, ctx) : undefined);
  if (allow) return ruleOutcome('allow', allow, subject);

  switch (cls) {
    case 'read':
    case 'search':
      if (file && workspace.contains(file))
        return { behavior: 'allow', by: 'default', reason: `read-only, inside the workspace (${file})` };
      return finalAsk(
        {
          behavior: 'ask',
          by: 'default',
          reason: `${file} is outside the workspace; no rule allows reading it`,
        },
        mode,
      );
    case 'harmless':
    case 'isolated':
    case 'agent':
      return {
        behavior: 'allow',
        by: 'default',
        reason: facts.reasons[0] ?? `${tool} touches nothing outside the agent`,
      };
    case 'edit':
      return finalAsk(
        { behavior: 'ask', by: 'default', reason: `${tool} writes ${file}; no rule allows it` },
        mode,
      );
    default:
      return finalAsk(
        {
          behavior: 'ask',
          by: 'default',
          reason: `${facts.reasons[0] ?? `${tool} is not read-only`}; no rule allows it`,
        },
        mode,
      );
  }
}

// ---------------------------------------------------------------- a shell command line

function decideBash(
  parts: readonly BashPart[],
  /** Why the line as a whole is not understood (parse problems...); undefined when it is. */
  notUnderstood: string | undefined,
  complete: boolean,
  facts: DecisionFacts,
  ctx: MatchContext,
  mode: Mode,
  workspace: Workspace,
): Outcome {
  const input = ctx.condition.input;
  const paramDeny = toolRuleHit('deny', 'Bash', input, ctx, { paramsOnly: true });
  if (paramDeny) return ruleOutcome('deny', paramDeny, 'this Bash call');
  for (const part of parts) {
    const hit = partRuleHit('deny', part, ctx);
    if (hit) return ruleOutcome('deny', hit, hit.target ?? part.display);
  }
  const mayDeny = partMayHit('deny', parts, ctx, mode);
  if (mayDeny) return mayDeny;

  // Guards: no allow rule and no mode lifts these.
  const contentRules = hasContentRules(ctx);
  // What cannot be seen into may also connect to a host a WebFetch(domain:...) rule names.
  const hiddenMatters = contentRules || hasDomainRules(ctx);
  if (!complete && hiddenMatters) {
    return finalAsk(
      {
        behavior: 'ask',
        by: 'guard',
        reason: `the command line could not be fully analyzed, so deny rules cannot be ruled out: ${facts.reasons[0] ?? ''}`,
      },
      mode,
    );
  }
  const guards = ctx.policy.guards;
  for (const part of parts) {
    const critical = criticalRemoval(part, ctx.fs.home, workspace.root, (p) => ctx.fs.realpath(p));
    if (critical) return finalAsk({ behavior: guards.criticalDelete, by: 'guard', reason: critical }, mode);
  }
  // Running what was just downloaded: `curl x | sh`, `bash <(curl x)`, `eval "$(curl x)"`.
  const runner = parts.find(
    (p) => (p.report.runsStdin && p.report.stdin === 'pipe') || p.report.unknownCode.length > 0,
  );
  const fetcher = runner && parts.find((p) => p.report.network);
  if (runner && fetcher) {
    const reason = `${runner.display} runs code that ${fetcher.display} downloads (network output run as a program)`;
    return finalAsk({ behavior: guards.pipeToShell, by: 'guard', reason }, mode);
  }
  const hidden = hiddenMatters ? parts.find((p) => p.report.unknownCode.length > 0) : undefined;
  if (hidden) {
    return finalAsk(
      {
        behavior: 'ask',
        by: 'guard',
        reason: `${hidden.report.unknownCode[0]}, so deny rules cannot be ruled out`,
      },
      mode,
    );
  }
  if (contentRules) {
    const tree = uncheckedTree(parts, ctx);
    if (tree) return finalAsk({ behavior: 'ask', by: 'guard', reason: tree }, mode);
    const unknown = unknownPath(parts);
    if (unknown) {
      return finalAsk(
        {
          behavior: 'ask',
          by: 'guard',
          reason: `cannot tell which file "${unknown}" names, so a path deny rule might apply`,
        },
        mode,
      );
    }
  }

  const paramAsk = toolRuleHit('ask', 'Bash', input, ctx, { paramsOnly: true });
  if (paramAsk) return finalAsk(ruleOutcome('ask', paramAsk, 'this Bash call'), mode);
  for (const part of parts) {
    const hit = partRuleHit('ask', part, ctx);
    if (hit) return finalAsk(ruleOutcome('ask', hit, hit.target ?? part.display), mode);
  }
  const mayAsk = partMayHit('ask', parts, ctx, mode);
  if (mayAsk) return mayAsk;

  if (mode === 'bypassPermissions')
    return {
      behavior: 'allow',
      by: 'mode',
      reason: 'bypassPermissions mode allows it (no deny or ask rule applies)',
    };
  if (mode === 'plan' && !facts.readOnly) {
    return {
      behavior: 'deny',
      by: 'mode',
      reason: `plan mode runs only read-only commands: ${facts.reasons[0] ?? 'this line is not read-only'}`,
    };
  }
  for (const part of parts) {
    for (const w of [...part.writes, ...part.removes]) {
      for (const p of w.paths ?? []) {
        const entry = protectedWrite(p, workspace.roots, (q) => ctx.fs.realpath(q));
        if (entry)
          return finalAsk(
            {
              behavior: 'ask',
              by: 'guard',
              reason: `${part.display} writes ${p}, a protected path (${entry})`,
            },
            mode,
          );
      }
    }
  }
  if (mode === 'acceptEdits' && readOnlyLineOrEdits(parts, notUnderstood === undefined, workspace)) {
    return {
      behavior: 'allow',
      by: 'mode',
      reason: 'acceptEdits mode allows file edits inside the workspace',
    };
  }

  let byRule: RuleHit | undefined;
  for (const part of parts) {
    const verdict = partAllowed(part, notUnderstood, ctx, workspace);
    if (verdict.allowed) {
      byRule ??= verdict.hit;
      continue;
    }
    return finalAsk({ behavior: 'ask', by: 'default', reason: verdict.why }, mode);
  }
  if (byRule) return ruleOutcome('allow', byRule, byRule.target ?? 'the command');
  return { behavior: 'allow', by: 'default', reason: 'read-only, inside the workspace' };
}

/** A deny or ask rule for one part: its Bash pattern, or a path rule on what it reads or writes. */
function partRuleHit(kind: 'deny' | 'ask', part: BashPart, ctx: MatchContext): RuleHit | undefined {
  for (const text of part.denyTexts) {
    const hit = bashRuleHit(kind, part.name, text, ctx);
    if (hit) return hit;
  }
  for (const r of part.reads)
    for (const p of r.paths ?? []) {
      const h = pathRuleHit(kind, 'read', p, ctx);
      if (h) return { ...h, target: `${part.display} (reads ${p})` };
    }
  for (const w of [...part.writes, ...part.removes])
    for (const p of w.paths ?? []) {
      const h = pathRuleHit(kind, 'edit', p, ctx);
      if (h) return { ...h, target: `${part.display} (writes ${p})` };
    }
  // `grep -r x .` reads .env if there is one: every file below is a read of its own.
  if (part.readTrees.length > 0 && ctx.policy.pathRules.read[kind].length > 0) {
    const test = readRuleTester(kind, ctx);
    for (const t of part.readTrees)
      for (const root of t.paths ?? []) {
        const realRoot = ctx.fs.realpath(root);
        // A link's target is resolved whole: it may lead anywhere, including into a tree already seen.
        for (const e of ctx.fs.walk?.(root, t.how, TREE_LIMIT) ?? []) {
          const real = e.link ? ctx.fs.realpath(e.path) : realRoot + e.path.slice(root.length);
          const h = test(e.path, real);
          if (h) return { ...h, target: `${part.display} (reads ${e.path}, below ${root})` };
        }
      }
  }
  for (const host of part.hosts)
    for (const name of host.names ?? []) {
      const h = domainRuleHit(kind, name, ctx);
      if (h) return { ...h, target: `${part.display} (connects to ${name})` };
    }
  return undefined;
}

/** How many files and directories below a recursively read directory are checked, at most. */
const TREE_LIMIT = 20_000;

/**
 * A directory read all the way down whose files could not all be checked against the rules
 * on reads (too many, or no way to list them): the deny rules cannot be ruled out.
 */
function uncheckedTree(parts: readonly BashPart[], ctx: MatchContext): string | undefined {
  const rules = ctx.policy.pathRules.read;
  if (rules.deny.length + rules.ask.length === 0) return undefined;
  for (const part of parts)
    for (const t of part.readTrees)
      for (const root of t.paths ?? []) {
        if (ctx.fs.walk?.(root, t.how, TREE_LIMIT) !== undefined) continue;
        return `${part.display} reads every file below ${root}, too many to check against the rules on reads (over ${TREE_LIMIT.toLocaleString('en-US')}), so a deny rule might apply`;
      }
  return undefined;
}

/**
 * A deny or ask rule that words only known at run time could complete (`git p$X`, `git
 * $(echo push)`): it cannot be ruled out, so the line asks (a guard: no allow rule or mode
 * lifts it). A dynamic command name is the unknown-code guard's.
 */
function partMayHit(
  kind: 'deny' | 'ask',
  parts: readonly BashPart[],
  ctx: MatchContext,
  mode: Mode,
): Outcome | undefined {
  const rule = kind === 'deny' ? 'Deny' : 'Ask';
  for (const part of parts) {
    // A host only known at run time may be the one a WebFetch(domain:...) rule names.
    const host = part.hosts.find((h) => h.names === undefined);
    const domainHit = host && domainRuleHit(kind, undefined, ctx);
    if (host && domainHit) {
      const reason = `${rule} rule "${domainHit.rule.rule.text}" may match ${part.display}: it connects to "${host.raw}", a host only known at run time`;
      return finalAsk({ behavior: 'ask', by: 'guard', reason, hit: domainHit }, mode);
    }
    if (part.dynamicName) continue;
    for (const prefix of part.denyPrefixes) {
      const hit = bashRuleMayHit(kind, part.name, prefix, part.denyText, ctx);
      if (!hit) continue;
      const reason = `${rule} rule "${hit.rule.rule.text}" may match ${part.display}: part of it is only known at run time`;
      return finalAsk({ behavior: 'ask', by: 'guard', reason, hit }, mode);
    }
  }
  return undefined;
}

function partAllowed(
  part: BashPart,
  notUnderstood: string | undefined,
  ctx: MatchContext,
  workspace: Workspace,
): { allowed: true; hit?: RuleHit } | { allowed: false; why: string } {
  // Redirect targets are edits of their own: they need an Edit allow rule.
  const redirects = part.writes.filter((w) => w.viaRedirect);
  for (const w of redirects) {
    if (w.paths === undefined)
      return { allowed: false, why: `${part.display} writes "${w.raw}", a file only known at run time` };
    for (const p of w.paths) {
      if (!pathRuleHit('allow', 'edit', p, ctx))
        return { allowed: false, why: `${part.display} writes ${p}; no Edit rule allows it` };
    }
  }
  const ruleHit =
    part.name === '' || !part.harmlessEnv || !part.prefixAllowable
      ? undefined
      : part.dynamicName
        ? bashRuleHit('allow', part.name, undefined, ctx)
        : bashRuleHit('allow', part.name, part.allowText, ctx, { allowDynamicTail: part.dynamicTail });
  if (ruleHit) return { allowed: true, hit: ruleHit };
  // Otherwise it must be read-only (its redirects, allowed above, aside) and stay in the workspace.
  if (part.report.notReadOnly.length > redirects.length) {
    const why = part.report.notReadOnly.find((r) => !r.startsWith('redirect ')) ?? 'it is not read-only';
    return { allowed: false, why: `${part.display}: ${why}; no rule allows it` };
  }
  if (notUnderstood !== undefined) return { allowed: false, why: `${notUnderstood}; no rule allows it` };
  if (part.name !== '' && part.cwds === undefined)
    return { allowed: false, why: `${part.display} runs in a directory only known at run time` };
  for (const c of part.cwds ?? []) {
    if (!workspace.contains(c))
      return { allowed: false, why: `${part.display} runs in ${c}, outside the workspace` };
  }
  for (const r of part.reads) {
    if (r.paths === undefined)
      return { allowed: false, why: `${part.display} reads "${r.raw}", a path only known at run time` };
    for (const p of r.paths) {
      if (!workspace.contains(p) && !pathRuleHit('allow', 'read', p, ctx)) {
        return { allowed: false, why: `${part.display} reads ${p}, outside the workspace` };
      }
    }
  }
  return { allowed: true };
}

const EDIT_COMMANDS = new Set(['mkdir', 'touch', 'rm', 'rmdir', 'mv', 'cp', 'sed', 'tee']);

/**
 * acceptEdits, as Claude Code has it: file edits, and mkdir/touch/rm/rmdir/mv/cp/sed on paths
 * inside the workspace. Every part must be read-only or such an edit; every path must be known
 * and inside.
 */
function readOnlyLineOrEdits(
  parts: readonly BashPart[],
  lineUnderstood: boolean,
  workspace: Workspace,
): boolean {
  if (!lineUnderstood) return false;
  for (const part of parts) {
    const report = part.report;
    const fileEffects = report.writes.length + report.removes.length;
    // Each write or removal adds exactly one reason; anything more is another kind of effect.
    if (report.notReadOnly.length !== fileEffects) return false;
    const programWrites = report.writes.filter((w) => !w.viaRedirect).length + report.removes.length;
    if (programWrites > 0 && !EDIT_COMMANDS.has(part.name)) return false;
    if (part.cwds === undefined) return false;
    for (const ref of [...part.reads, ...part.writes, ...part.removes]) {
      if (ref.paths === undefined || !ref.paths.every((p) => workspace.contains(p))) return false;
    }
  }
  return true;
}

function unknownPath(parts: readonly BashPart[]): string | undefined {
  for (const part of parts) {
    for (const ref of [...part.reads, ...part.writes, ...part.removes])
      if (ref.paths === undefined) return ref.raw;
  }
  return undefined;
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

function error(reason: string): Outcome {
  return { behavior: 'deny', by: 'error', reason };
}

function ruleOutcome(behavior: 'allow' | 'ask' | 'deny', hit: RuleHit, subject: string): Outcome {
  const r = hit.rule;
  const where = r.ref.line === undefined ? r.ref.source : `${r.ref.source}:${r.ref.line}`;
  const verb = behavior === 'deny' ? 'Denied' : behavior === 'ask' ? 'Needs approval' : 'Allowed';
  const because = hit.conditionError ? ` (its condition failed: ${hit.conditionError})` : '';
  const why = r.reason ? `: ${r.reason}` : '';
  return {
    behavior,
    by: 'rule',
    reason: `${verb} by rule "${r.rule.text}" (${where}) for ${subject}${because}${why}`,
    hit,
  };
}

/** Step 8: an ask in dontAsk mode is a deny; in auto mode it waits for the classifier. */
function finalAsk(o: Outcome, mode: Mode): Outcome {
  if (o.behavior !== 'ask' || mode !== 'dontAsk') return o;
  return {
    ...o,
    behavior: 'deny',
    reason: `${o.reason} (dontAsk mode denies what would need approval)`,
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
  // An ask carries the limits an approved call runs under; whoever approves it approves the
  // network use the call shows. A default allow is read-only and gets no network.
  if (profile && o.behavior !== 'deny' && workspace)
    decision.sandbox = sandboxProfile(
      policy,
      request,
      workspace,
      network && (o.behavior === 'ask' || o.by !== 'default'),
      home,
    );
  return decision;
}
