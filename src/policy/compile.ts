import { type BashRuleIndex, bashRuleIndex } from './bash-index.js';
import type { RuleRef } from './decision.js';
import type { Layer, PolicyFile } from './load.js';
import {
  compileBashOptionPattern,
  compileBashPattern,
  compileBashPrefixPattern,
  type OptionWords,
} from './match/bash.js';
import { compileDomainPattern } from './match/domain.js';
import { starGlob } from './match/glob.js';
import { compileParamPattern } from './match/param.js';
import { compilePathPattern, hasGlobSyntax, type PathAnchors, type PathPattern } from './match/path.js';
import { compileToolName } from './match/tool-name.js';
import type { Mode } from './mode.js';
import { parseRule, type Rule, type RuleKind } from './rule.js';
import type { AutoBlock, PolicyTestCase } from './schema.js';

/**
 * Policy files in layers -> one CompiledPolicy: every rule parsed once into matchers, indexed
 * by tool (and Bash rules by their leading words) so a decision looks only at rules that can apply.
 * Lists merge across layers; deny from any layer wins at decision time; a managed lock keeps
 * only managed rules and disables bypass. The digest is over the canonical merged content, so
 * reordering rules or files does not change it.
 */
export interface CompiledRule {
  readonly kind: RuleKind;
  readonly rule: Rule;
  readonly ref: RuleRef;
  readonly reason?: string;
  readonly when?: string;
  readonly layer: Layer;
  readonly policyRoot: string;
  readonly matchTool: (name: string) => boolean;
  readonly bash?: (command: string) => boolean;
  /** Whether a command starting with these static words could match (see compileBashPrefixPattern). */
  readonly bashPrefix?: (prefix: string) => boolean;
  /** Deny and ask: a pattern naming options, matched however they are written (see compileBashOptionPattern). */
  readonly bashOptions?: (w: OptionWords) => boolean;
  readonly domain?: (host: string) => boolean;
  readonly param?: (input: unknown) => boolean;
  readonly glob?: RegExp;
  /** Path rules are anchored to the workspace of the request, so they compile per cwd (cached). */
  readonly path?: (anchors: PathAnchors) => PathPattern;
}

export interface RuleSet {
  readonly deny: readonly CompiledRule[];
  readonly ask: readonly CompiledRule[];
  readonly allow: readonly CompiledRule[];
}

export interface SandboxSettings {
  readonly timeoutMs: number;
  readonly maxTimeoutMs: number;
  readonly maxOutputChars: number;
  readonly maxOutputBytes: number;
  readonly network: boolean;
  readonly os: 'auto' | 'required' | 'off';
  /**
   * `sandbox.enforce`: hooks rewrite allowed and asked Bash calls to run in `toolgate jail`.
   * Present only when true, so that policies without it keep their digest.
   */
  readonly enforce?: true;
  readonly envAllow: readonly string[];
  readonly writeAllow: readonly { pattern: string; policyRoot: string }[];
  readonly writeDeny: readonly { pattern: string; policyRoot: string }[];
  readonly readAllow: readonly { pattern: string; policyRoot: string }[];
  readonly readDeny: readonly { pattern: string; policyRoot: string }[];
}

export interface PolicyTest extends PolicyTestCase {
  readonly source: string;
  readonly line?: number;
}

export interface CompiledPolicy {
  readonly files: readonly PolicyFile[];
  readonly rules: readonly CompiledRule[];
  /** Non-path rules for one exact tool name. */
  ruleSetForTool(tool: string): RuleSet;
  /** Only the parameter rules (`Bash(run_in_background:true)`) of a tool. */
  paramRulesForTool(tool: string): RuleSet;
  /**
   * Bash rules that may match a command (its words joined by spaces), in rule order; with
   * `text` undefined (a command name only known at run time), those with no leading word.
   */
  bashRules(kind: RuleKind, text: string | undefined): readonly CompiledRule[];
  /** Bash rules a command starting with these words may match once the rest is known. */
  bashRulesStartingWith(kind: RuleKind, prefix: string): readonly CompiledRule[];
  /** Path rules by access: read rules (Read, Glob, Grep) and edit rules (Edit, Write, NotebookEdit). */
  readonly pathRules: { readonly read: RuleSet; readonly edit: RuleSet };
  /** The path rules of one list that can match any of these absolute paths (indexed by literal segment). */
  pathCandidates(access: 'read' | 'edit', kind: RuleKind, paths: readonly string[]): readonly CompiledRule[];
  readonly mode: Mode;
  readonly modeSource?: string;
  readonly lock: { readonly rulesOnly: boolean; readonly disableBypass: boolean };
  readonly guards: { readonly criticalDelete: 'ask' | 'deny'; readonly pipeToShell: 'ask' | 'deny' };
  readonly roots?: readonly { path: string; policyRoot: string }[];
  readonly additionalDirectories: readonly { path: string; policyRoot: string }[];
  readonly sandbox: SandboxSettings;
  readonly auto: AutoBlock;
  readonly tests: readonly PolicyTest[];
  readonly hasConditions: boolean;
  /** What every decision should say about the policy itself: workspace files not trusted (trust.ts). */
  readonly notes: readonly string[];
  readonly digest: string;
  /** Runs `when:` conditions; attached by loadPolicy when the policy has any. */
  conditions?: import('./rule-match.js').ConditionEvaluator;
  /**
   * toolgate's own files for this run (its log, trust store, policy files, program): writes to
   * them are protected (own-files.ts). Attached by the command that knows them (the CLI); not
   * part of the digest, since they say where this run keeps things, not what the policy says.
   */
  ownFiles?: readonly import('./own-files.js').OwnFile[];
  /**
   * The signed bundles (src/bundle) whose files are layers of it: attached by the loader that
   * pulled them, so a long-lived process knows when to pull again and when its copy expires.
   * Not part of the digest (their files are).
   */
  bundles?: readonly BundleInUse[];
}

export interface BundleInUse {
  readonly id: string;
  readonly url: string;
  readonly notAfter: string;
  readonly pollSeconds: number;
}

const LAYER_RANK: Readonly<Record<Layer, number>> = {
  managed: 0,
  cli: 1,
  local: 2,
  project: 3,
  user: 4,
  builtin: 5,
};

export const SANDBOX_DEFAULTS = {
  timeoutMs: 120_000,
  maxTimeoutMs: 600_000,
  maxOutputChars: 30_000,
  // The hard cap on what one call may write (then it is stopped): the model sees 30,000
  // characters, and the rest is kept for it to page through with Read. 32 MiB holds any build or
  // test log a reader pages through, and bounds the disk one call can fill (a 10 s `yes` wrote
  // 2.7 GB under the old 5 GiB cap). A policy raises it with sandbox.maxOutputBytes.
  maxOutputBytes: 32 * 1024 * 1024,
  network: false,
  // An allowed Bash call runs in bubblewrap or not at all: where it cannot run, the call is
  // refused with a message naming `sandbox.os`. Running unjailed is a choice a policy states
  // (`os: off`, or `auto` for "use it where it works"), never what a missing binary decides.
  os: 'required',
} as const;

export const DEFAULT_ENV_ALLOW = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'TZ',
  'TMPDIR',
  'PWD',
];

export interface CompileOptions {
  /**
   * The digest of the policy's canonical text; sha256 by default. The hook passes one that
   * remembers earlier answers: node:crypto costs a hook process more to load than its decision.
   */
  readonly digest?: (canonical: string) => string;
}

export function compilePolicy(input: readonly PolicyFile[], options: CompileOptions = {}): CompiledPolicy {
  const files = [...input].sort((a, b) => LAYER_RANK[a.layer] - LAYER_RANK[b.layer]);
  const managed = files.filter((f) => f.layer === 'managed');
  const lock = {
    rulesOnly: managed.some((f) => f.lock?.rulesOnly === true),
    disableBypass:
      managed.some((f) => f.lock?.disableBypass === true) ||
      files.some((f) => f.form === 'claude-settings' && f.lock?.disableBypass === true),
  };
  const ruleFiles = lock.rulesOnly ? managed : files;
  const rules: CompiledRule[] = [];
  for (const file of ruleFiles) {
    for (const r of file.rules) rules.push(compileRule(r.kind, r.text, file, r));
  }
  // Deterministic order whatever the order of files and of rules inside them.
  rules.sort(compareRules);

  const byTool = new Map<string, { deny: CompiledRule[]; ask: CompiledRule[]; allow: CompiledRule[] }>();
  const patterned: CompiledRule[] = [];
  const pathRules = { read: emptySet(), edit: emptySet() };
  for (const r of rules) {
    if (r.rule.specifier.type === 'path') {
      pathRules[r.rule.specifier.access][r.kind].push(r);
      continue;
    }
    if (r.rule.toolIsPattern || r.rule.tool.startsWith('mcp__')) {
      patterned.push(r);
      continue;
    }
    let set = byTool.get(r.rule.tool);
    if (set === undefined) {
      set = { deny: [], ask: [], allow: [] };
      byTool.set(r.rule.tool, set);
    }
    set[r.kind].push(r);
  }
  const pathIndex = {
    read: {
      deny: indexPaths(pathRules.read.deny),
      ask: indexPaths(pathRules.read.ask),
      allow: indexPaths(pathRules.read.allow),
    },
    edit: {
      deny: indexPaths(pathRules.edit.deny),
      ask: indexPaths(pathRules.edit.ask),
      allow: indexPaths(pathRules.edit.allow),
    },
  };
  const pathCandidates = (access: 'read' | 'edit', kind: RuleKind, paths: readonly string[]) =>
    pathIndex[access][kind](paths);
  const toolCache = new Map<string, RuleSet>();
  const ruleSetForTool = (tool: string): RuleSet => {
    let set = toolCache.get(tool);
    if (set === undefined) {
      const own = byTool.get(tool) ?? { deny: [], ask: [], allow: [] };
      const extra = patterned.filter((r) => r.matchTool(tool));
      set = {
        deny: [...own.deny, ...extra.filter((r) => r.kind === 'deny')],
        ask: [...own.ask, ...extra.filter((r) => r.kind === 'ask')],
        allow: [...own.allow, ...extra.filter((r) => r.kind === 'allow')],
      };
      toolCache.set(tool, set);
    }
    return set;
  };
  const paramCache = new Map<string, RuleSet>();
  const paramRulesForTool = (tool: string): RuleSet => {
    let set = paramCache.get(tool);
    if (set === undefined) {
      const all = ruleSetForTool(tool);
      const params = (list: readonly CompiledRule[]) => list.filter((r) => r.rule.specifier.type === 'param');
      set = { deny: params(all.deny), ask: params(all.ask), allow: params(all.allow) };
      paramCache.set(tool, set);
    }
    return set;
  };
  // Bash rules by their leading words (bash-index.ts), built on the first Bash call of each kind:
  // a Bash rule of a patterned tool name (`*`, `B*`) applies to Bash too.
  const bashIndex = new Map<RuleKind, BashRuleIndex>();
  const bashIndexOf = (kind: RuleKind): BashRuleIndex => {
    let index = bashIndex.get(kind);
    if (index === undefined) {
      const bash = new Set([
        ...(byTool.get('Bash')?.[kind] ?? []),
        ...patterned.filter((r) => r.matchTool('Bash')),
      ]);
      index = bashRuleIndex(rules.filter((r) => r.kind === kind && bash.has(r)));
      bashIndex.set(kind, index);
    }
    return index;
  };
  const bashRules = (kind: RuleKind, text: string | undefined) => bashIndexOf(kind).matching(text);
  const bashRulesStartingWith = (kind: RuleKind, prefix: string) => bashIndexOf(kind).startingWith(prefix);

  const modeFile = files.find((f) => f.mode !== undefined);
  const rootsFile = files.find((f) => f.roots !== undefined);
  const merged = {
    files,
    rules,
    ruleSetForTool,
    paramRulesForTool,
    bashRules,
    bashRulesStartingWith,
    pathRules,
    pathCandidates,
    mode: modeFile?.mode ?? 'default',
    ...(modeFile ? { modeSource: modeFile.source } : {}),
    lock,
    guards: {
      criticalDelete: files.some((f) => f.guards?.criticalDelete === 'deny')
        ? ('deny' as const)
        : ('ask' as const),
      pipeToShell: files.some((f) => f.guards?.pipeToShell === 'deny') ? ('deny' as const) : ('ask' as const),
    },
    ...(rootsFile?.roots
      ? { roots: rootsFile.roots.map((p) => ({ path: p, policyRoot: rootsFile.policyRoot })) }
      : {}),
    additionalDirectories: files.flatMap((f) =>
      (f.additionalDirectories ?? []).map((p) => ({ path: p, policyRoot: f.policyRoot })),
    ),
    sandbox: mergeSandbox(files),
    auto: Object.assign({}, ...[...files].reverse().map((f) => f.auto ?? {})) as AutoBlock,
    tests: files.flatMap((f) => f.tests.map((t) => ({ ...t, source: f.source }))),
    hasConditions: rules.some((r) => r.when !== undefined),
    notes: files.flatMap((f) => (f.untrusted === undefined ? [] : [f.untrusted])),
  };
  return { ...merged, digest: (options.digest ?? sha256Hex)(canonicalText(merged)) };
}

/**
 * Path rules indexed by a literal path segment every match must contain (`~/.ssh/**` needs a
 * `.ssh` segment; a match on a directory covers its contents, whose paths contain it too).
 * Rules without one (`*.pem`) are checked for every path.
 */
function indexPaths(rules: readonly CompiledRule[]): (paths: readonly string[]) => readonly CompiledRule[] {
  if (rules.length < 16) return () => rules;
  const bySegment = new Map<string, number[]>();
  const wild: number[] = [];
  rules.forEach((r, i) => {
    const seg = requiredSegment((r.rule.specifier as { pattern: string }).pattern);
    if (seg === undefined) wild.push(i);
    else {
      const list = bySegment.get(seg);
      if (list) list.push(i);
      else bySegment.set(seg, [i]);
    }
  });
  const wildRules = wild.map((i) => rules[i]!);
  return (paths) => {
    let picked: Set<number> | undefined;
    for (const p of paths) {
      for (const seg of p.split('/')) {
        const list = bySegment.get(seg);
        if (list === undefined) continue;
        picked ??= new Set(wild);
        for (const i of list) picked.add(i);
      }
    }
    // Most paths name no indexed segment: the rules without one, in order, as they are.
    if (picked === undefined) return wildRules;
    return [...picked].sort((a, b) => a - b).map((i) => rules[i]!);
  };
}

function requiredSegment(pattern: string): string | undefined {
  if (pattern === '~' || (pattern.startsWith('~') && !pattern.startsWith('~/'))) return undefined;
  const body = pattern.replace(/^(\/\/|~\/|\.\/|\/)/, '');
  const literal = body.split('/').filter((s) => s !== '' && s !== '.' && s !== '..' && !hasGlobSyntax(s));
  return literal[literal.length - 1];
}

function emptySet(): { deny: CompiledRule[]; ask: CompiledRule[]; allow: CompiledRule[] } {
  return { deny: [], ask: [], allow: [] };
}

function compileRule(
  kind: RuleKind,
  text: string,
  file: PolicyFile,
  meta: { id?: string; reason?: string; when?: string; line?: number },
): CompiledRule {
  const rule = parseRule(text, kind);
  const ref: RuleRef = {
    text: rule.text,
    source: file.source,
    ...(meta.id === undefined ? {} : { id: meta.id }),
    ...(meta.line === undefined ? {} : { line: meta.line }),
  };
  const base = {
    kind,
    rule,
    ref,
    layer: file.layer,
    policyRoot: file.policyRoot,
    matchTool: compileToolName(rule.tool, kind !== 'allow' && /^mcp__/i.test(rule.tool)),
    ...(meta.reason === undefined ? {} : { reason: meta.reason }),
    ...(meta.when === undefined ? {} : { when: meta.when }),
  };
  const s = rule.specifier;
  switch (s.type) {
    case 'bash':
      return {
        ...base,
        bash: compileBashPattern(s.pattern),
        bashPrefix: compileBashPrefixPattern(s.pattern, { options: kind !== 'allow' }),
        ...optionMatcher(kind, s.pattern),
      };
    case 'domain':
      return { ...base, domain: compileDomainPattern(s.pattern) };
    case 'param':
      return { ...base, param: compileParamPattern(s.name, s.pattern) };
    case 'agent':
    case 'primary':
      return { ...base, glob: starGlob(s.pattern, 's') };
    case 'path': {
      const cache = new Map<string, PathPattern>();
      let last: { anchors: PathAnchors; compiled: PathPattern } | undefined;
      const ruleKind = kind;
      return {
        ...base,
        path: (anchors) => {
          // Decisions in a row mostly share their anchors: the last answer is kept at hand.
          if (
            last !== undefined &&
            last.anchors.cwd === anchors.cwd &&
            last.anchors.home === anchors.home &&
            last.anchors.policyRoot === anchors.policyRoot
          )
            return last.compiled;
          const key = `${anchors.cwd}\0${anchors.home}\0${anchors.policyRoot}`;
          let compiled = cache.get(key);
          if (compiled === undefined) {
            compiled = compilePathPattern(s.pattern, ruleKind, anchors);
            if (cache.size > 64) cache.clear();
            cache.set(key, compiled);
          }
          last = { anchors: { ...anchors }, compiled };
          return compiled;
        },
      };
    }
    default:
      return base;
  }
}

function compareRules(a: CompiledRule, b: CompiledRule): number {
  return (
    cmp(a.kind, b.kind) ||
    cmp(a.rule.text, b.rule.text) ||
    cmp(a.when ?? '', b.when ?? '') ||
    LAYER_RANK[a.layer] - LAYER_RANK[b.layer] ||
    cmp(a.ref.source, b.ref.source) ||
    (a.ref.line ?? 0) - (b.ref.line ?? 0)
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function mergeSandbox(files: readonly PolicyFile[]): SandboxSettings {
  // Highest layer first: the first file that sets a scalar wins; lists merge.
  const first = <K extends keyof NonNullable<PolicyFile['sandbox']>>(key: K) =>
    files.find((f) => f.sandbox?.[key] !== undefined)?.sandbox?.[key];
  const lists = (pick: (f: PolicyFile) => readonly string[] | undefined) =>
    files.flatMap((f) => (pick(f) ?? []).map((pattern) => ({ pattern, policyRoot: f.policyRoot })));
  const envFiles = files.filter((f) => f.sandbox?.env !== undefined);
  return {
    timeoutMs: first('timeoutMs') ?? SANDBOX_DEFAULTS.timeoutMs,
    maxTimeoutMs: first('maxTimeoutMs') ?? SANDBOX_DEFAULTS.maxTimeoutMs,
    maxOutputChars: first('maxOutputChars') ?? SANDBOX_DEFAULTS.maxOutputChars,
    maxOutputBytes: first('maxOutputBytes') ?? SANDBOX_DEFAULTS.maxOutputBytes,
    network: first('network') ?? SANDBOX_DEFAULTS.network,
    os: first('os') ?? SANDBOX_DEFAULTS.os,
    ...(first('enforce') === true ? { enforce: true as const } : {}),
    envAllow:
      envFiles.length === 0
        ? DEFAULT_ENV_ALLOW
        : [...new Set(envFiles.flatMap((f) => f.sandbox!.env!.allow))],
    writeAllow: lists((f) => f.sandbox?.write?.allow),
    writeDeny: lists((f) => f.sandbox?.write?.deny),
    readAllow: lists((f) => f.sandbox?.read?.allow),
    readDeny: lists((f) => f.sandbox?.read?.deny),
  };
}

/** The text the digest is taken over: what decides, not where the files came from. */
function canonicalText(p: Omit<CompiledPolicy, 'digest'>): string {
  const canonical = {
    rules: p.rules.map((r) => [r.kind, r.rule.text, r.when ?? null, r.reason ?? null, r.policyRoot]),
    mode: p.mode,
    lock: p.lock,
    guards: p.guards,
    roots: p.roots ?? null,
    additionalDirectories: [...p.additionalDirectories].sort((a, b) => cmp(a.path, b.path)),
    sandbox: p.sandbox,
    auto: p.auto,
  };
  return stableStringify(canonical);
}

export function sha256Hex(text: string): string {
  // Loaded on first use, not with the module: see CompileOptions.digest.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

/** JSON with object keys sorted, so equal content always hashes the same. */
export function stableStringify(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => cmp(a, b));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
}

function optionMatcher(kind: RuleKind, pattern: string): { bashOptions?: (w: OptionWords) => boolean } {
  const m = kind === 'allow' ? undefined : compileBashOptionPattern(pattern);
  return m === undefined ? {} : { bashOptions: m };
}
