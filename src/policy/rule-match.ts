import { optionSpellings } from '../bash/option-spellings.js';
import { AnchorSet } from './anchors.js';
import type { CompiledPolicy, CompiledRule } from './compile.js';
import type { FileSystemView } from './fs-view.js';
import type { OptionWords } from './match/bash.js';
import type { PathAnchors, PathPattern } from './match/path.js';
import type { RuleKind } from './rule.js';

/**
 * Finding the rules that apply to one request, one Bash part or one path. A rule with a `when:`
 * condition applies when the condition holds; a condition that throws or times out fails
 * closed: a deny or ask rule then applies, an allow rule does not.
 */
export interface ConditionContext {
  readonly tool: string;
  readonly input: unknown;
  readonly cwd: string;
  readonly mode: string;
  readonly facts: { readOnly: boolean; destructive: boolean };
  /** For Bash: the simple command being decided (argv joined). */
  readonly command?: string;
}

export type ConditionResult = { ok: true; value: boolean } | { ok: false; error: string };

/** Runs `when:` conditions (policy/conditions.ts provides the isolate-backed one). */
export interface ConditionEvaluator {
  evaluate(expression: string, context: ConditionContext): ConditionResult;
  /** Frees what it holds (an isolate): a process deciding many calls makes one per policy load. */
  dispose?(): void;
}

export interface RuleHit {
  readonly rule: CompiledRule;
  /** Set when the rule applied because its condition failed (fail closed). */
  readonly conditionError?: string;
  /** What the rule matched: a command, a path or the request. */
  readonly target?: string;
}

export interface MatchContext {
  readonly policy: CompiledPolicy;
  readonly conditions: ConditionEvaluator | undefined;
  readonly condition: ConditionContext;
  readonly fs: FileSystemView;
  readonly workspaceRoot: string;
  /** The anchors of this context, resolved once (see AnchorSet); made on first use when absent. */
  anchors?: AnchorSet;
}

/** Applies the rule's condition, if any. */
export function applies(rule: CompiledRule, ctx: MatchContext, command?: string): RuleHit | undefined {
  if (rule.when === undefined) return { rule };
  const context = command === undefined ? ctx.condition : { ...ctx.condition, command };
  const result = ctx.conditions?.evaluate(rule.when, context) ?? {
    ok: false as const,
    error: 'conditions cannot run here (isolated-vm is not available)',
  };
  if (result.ok) return result.value ? { rule } : undefined;
  return rule.kind === 'allow' ? undefined : { rule, conditionError: result.error };
}

/** Non-path rules of a tool (bare names, params, domains, agents, primary-field globs). */
export function toolRuleHit(
  kind: RuleKind,
  tool: string,
  input: unknown,
  ctx: MatchContext,
  extract: { host?: string; agent?: string; primary?: string; paramsOnly?: boolean },
): RuleHit | undefined {
  const rules = extract.paramsOnly
    ? ctx.policy.paramRulesForTool(tool)[kind]
    : ctx.policy.ruleSetForTool(tool)[kind];
  for (const r of rules) {
    const s = r.rule.specifier;
    let matched: boolean;
    switch (s.type) {
      case 'any':
        // For Bash, bare rules are matched per simple command (bashRuleHit).
        matched = !extract.paramsOnly;
        break;
      case 'param':
        matched = r.param!(input);
        break;
      case 'domain':
        matched = extract.host !== undefined && r.domain!(extract.host);
        break;
      case 'agent':
        matched = extract.agent !== undefined && r.glob!.test(extract.agent);
        break;
      case 'primary':
        matched = extract.primary !== undefined && r.glob!.test(extract.primary);
        break;
      default:
        // Bash patterns are matched per simple command; path rules per path.
        matched = false;
    }
    if (!matched) continue;
    const hit = applies(r, ctx);
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Path rules for one access. `read`: Read rules. `edit`: Edit rules, and for deny and ask also
 * Read rules (a path one may not read, one may not write either). Deny and ask match when the
 * path or its symlink target matches; allow needs both. An Edit allow also grants reads.
 */
export function pathRuleHit(
  kind: RuleKind,
  access: 'read' | 'edit',
  absolutePath: string,
  ctx: MatchContext,
  /** Where the path leads, when the caller knows it already (a walk below a resolved directory). */
  knownReal?: string,
): RuleHit | undefined {
  const p = ctx.policy.pathRules;
  // The lists to search: allow reads also take Edit allows; deny and ask edits also Read rules
  // (a path one may not read, one may not write either). Plain loops: a decision runs this for
  // every path it names, and replay for every record.
  const first: 'read' | 'edit' = kind === 'allow' ? (access === 'read' ? 'read' : 'edit') : access;
  const second: 'read' | 'edit' | undefined =
    kind === 'allow' ? (access === 'read' ? 'edit' : undefined) : access === 'edit' ? 'read' : undefined;
  if (p[first][kind].length === 0 && (second === undefined || p[second][kind].length === 0)) return undefined;
  const real = knownReal ?? ctx.fs.realpath(absolutePath);
  const paths = real === absolutePath ? [absolutePath] : [absolutePath, real];
  return (
    pathListHit(kind, first, absolutePath, real, paths, ctx) ??
    (second === undefined ? undefined : pathListHit(kind, second, absolutePath, real, paths, ctx))
  );
}

/** One list of pathRuleHit: deny and ask match when the path or its target does; allow needs both. */
function pathListHit(
  kind: RuleKind,
  access: 'read' | 'edit',
  absolutePath: string,
  real: string,
  paths: readonly string[],
  ctx: MatchContext,
): RuleHit | undefined {
  const candidates = ctx.policy.pathCandidates(access, kind, paths);
  if (candidates.length === 0) return undefined;
  const anchors = anchorSetOf(ctx);
  for (const r of candidates) {
    // Anchors may be symlinks themselves (a linked workspace, a linked home): a pattern is read
    // against both the anchor as given and the directory it leads to.
    const variants = anchors.variants(r.policyRoot);
    const literal = anyMatches(r, variants, absolutePath);
    if (kind === 'allow' && !literal) continue;
    const target = real === absolutePath ? literal : anyMatches(r, variants, real);
    const matched = kind === 'allow' ? literal && target : literal || target;
    if (!matched) continue;
    const hit = applies(r, ctx);
    if (hit) return { ...hit, target: absolutePath };
  }
  return undefined;
}

/** Whether the rule's pattern, under any of the anchor variants, matches the path. */
function anyMatches(r: CompiledRule, variants: readonly PathAnchors[], p: string): boolean {
  for (const anchors of variants) if (r.path!(anchors).matches(p)) return true;
  return false;
}

function anchorSetOf(ctx: MatchContext): AnchorSet {
  ctx.anchors ??= new AnchorSet(ctx.fs, ctx.workspaceRoot);
  return ctx.anchors;
}

/**
 * Read rules of one kind, prepared once to test many paths: the files below a directory a
 * command reads recursively, listed top down. Each path is tested by itself (its directories
 * were entries before it, and the directory read was checked as a read of its own); otherwise
 * the same as pathRuleHit(kind, 'read', ...). Paths must be normalized.
 */
export function readRuleTester(
  kind: 'deny' | 'ask',
  ctx: MatchContext,
): (absolutePath: string, real: string) => RuleHit | undefined {
  const anchors = anchorSetOf(ctx);
  const prepared = ctx.policy.pathRules.read[kind].map((r) => ({
    rule: r,
    patterns: anchors.variants(r.policyRoot).map((a): PathPattern => r.path!(a)),
  }));
  return (absolutePath, real) => {
    for (const { rule, patterns } of prepared) {
      if (
        !patterns.some(
          (p) => p.matchesItself(absolutePath) || (real !== absolutePath && p.matchesItself(real)),
        )
      )
        continue;
      const hit = applies(rule, ctx);
      if (hit) return { ...hit, target: absolutePath };
    }
    return undefined;
  };
}

/** One form of a simple command as deny and ask rules read it: its words, and the whole command's. */
export interface BashForm {
  readonly words: readonly string[];
  readonly all: readonly string[];
}

/**
 * Bash rules for one simple command (`text`: its words joined by spaces; undefined when its name
 * is only known at run time): deny and ask match past any dynamic word; allow only static text.
 * `form.words` joined by spaces is `text`.
 */
export function bashRuleHit(
  kind: RuleKind,
  text: string | undefined,
  ctx: MatchContext,
  opts: { staticUpTo?: string; allowDynamicTail?: boolean; form?: BashForm } = {},
): RuleHit | undefined {
  // A rule the text meets wins over one met through option spellings (`git push --force x`
  // meets `git push --force*` as written, and `git push * --force*` only by its options): the
  // reason then names the rule as literal as the line.
  let byOptions: CompiledRule[] | undefined;
  for (const r of ctx.policy.bashRules(kind, text)) {
    const s = r.rule.specifier;
    let matched = false;
    if (s.type === 'any') matched = true;
    else if (s.type === 'bash' && text !== undefined) {
      if (kind !== 'allow' || !opts.allowDynamicTail) matched = r.bash!(text);
      else matched = endsWithWildcard(s.pattern) && r.bash!(text);
      if (!matched && kind !== 'allow' && r.bashOptions !== undefined && opts.form !== undefined) {
        byOptions ??= [];
        byOptions.push(r);
      }
    }
    if (!matched) continue;
    const hit = applies(r, ctx, text);
    if (hit) return { ...hit, ...(text === undefined ? {} : { target: text }) };
  }
  if (byOptions === undefined || opts.form === undefined) return undefined;
  const spelled: OptionWords = {
    words: opts.form.words,
    spellings: optionSpellings(opts.form.words, opts.form.all),
  };
  for (const r of byOptions) {
    if (!r.bashOptions!(spelled)) continue;
    const hit = applies(r, ctx, text);
    if (hit) return { ...hit, ...(text === undefined ? {} : { target: text }) };
  }
  return undefined;
}

/**
 * A Bash deny or ask rule that a command may match once its run-time words are known: `prefix`
 * is its static words before the first of them (`git p$X` -> `git`; '' when the command itself
 * is only known at run time: every Bash pattern), `text` the whole command as written (what a
 * `when:` condition sees).
 */
export function bashRuleMayHit(
  kind: 'deny' | 'ask',
  prefix: string,
  text: string,
  ctx: MatchContext,
): RuleHit | undefined {
  for (const r of ctx.policy.bashRulesStartingWith(kind, prefix)) {
    if (r.bashPrefix === undefined || (prefix !== '' && !r.bashPrefix(prefix))) continue;
    const hit = applies(r, ctx, text);
    if (hit) return { ...hit, target: text };
  }
  return undefined;
}

/** `cmd *`, `cmd:*` or `cmd*`: the pattern lets any further arguments follow. */
function endsWithWildcard(pattern: string): boolean {
  const p = pattern.trim();
  return p.endsWith('*');
}

/** Whether the policy has WebFetch(domain:...) deny or ask rules (conditions not evaluated). */
export function hasDomainRules(ctx: MatchContext): boolean {
  const set = ctx.policy.ruleSetForTool('WebFetch');
  const isDomain = (r: CompiledRule) => r.rule.specifier.type === 'domain';
  return set.deny.some(isDomain) || set.ask.some(isDomain);
}

/**
 * WebFetch(domain:...) deny and ask rules for a host a Bash command connects to (a toolgate
 * extension: Claude Code applies them to WebFetch only). Without `host`: the first such rule,
 * for a host only known at run time.
 */
export function domainRuleHit(
  kind: 'deny' | 'ask',
  host: string | undefined,
  ctx: MatchContext,
): RuleHit | undefined {
  for (const r of ctx.policy.ruleSetForTool('WebFetch')[kind]) {
    if (r.rule.specifier.type !== 'domain') continue;
    if (host !== undefined && !r.domain!(host)) continue;
    const hit = applies(r, ctx);
    if (hit) return host === undefined ? hit : { ...hit, target: host };
  }
  return undefined;
}
