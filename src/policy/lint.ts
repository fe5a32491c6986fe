import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';
import { CODE_RUNNER_PROBES, INSTALLER_PROBES, PROJECT_SCRIPT } from '../bash/catalogue/code-runners.js';
import type { CompiledPolicy, CompiledRule } from './compile.js';
import { loadPolicyFiles } from './layers.js';
import { PolicyError } from './load.js';
import { compileBashPattern } from './match/bash.js';
import { anchorPathPattern, compilePathPattern } from './match/path.js';
import { compileToolName } from './match/tool-name.js';
import { IGNORED_BY_CLAUDE_CODE, PATH_ACCESS, PRIMARY_FIELDS, type Specifier, TOOL_ALIASES } from './rule.js';
import { TOOLS } from './tools.js';

/**
 * Policy lint: problems a policy has without running anything (conditions are compiled with
 * node:vm, never run). Each finding is provable from the rules: a shadowed allow is reported
 * only when a deny or ask rule matches everything it could; a broad allow only when it allows a
 * concrete command line that runs code toolgate cannot see. Rules of built-in policies reached
 * through `extends` are context (they can shadow or duplicate), not findings.
 */
export type LintSeverity = 'error' | 'warning' | 'info';
export type LintKind =
  | 'invalid'
  | 'condition'
  | 'unknown-tool'
  | 'broad-allow'
  | 'project-scripts'
  | 'shadowed'
  | 'duplicate'
  | 'ignored-by-claude-code'
  | 'dangling-anchor';

export interface LintFinding {
  readonly severity: LintSeverity;
  readonly kind: LintKind;
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  /** The rule as written, when the finding is about one. */
  readonly rule?: string;
  readonly message: string;
}

export interface LintOptions {
  /** What `./x` path rules are relative to. Default: the process's directory. */
  readonly workspace?: string;
  readonly home?: string;
  readonly exists?: (absolutePath: string) => boolean;
}

/** Loads the files as one policy (cli layer, extends followed) and lints it; load problems are findings. */
export function lintPolicyFiles(files: readonly string[], options: LintOptions = {}): LintFinding[] {
  let policy: CompiledPolicy;
  try {
    policy = loadPolicyFiles(files.map((file) => ({ file, layer: 'cli' as const })));
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    return sortFindings(
      err.problems.map((p) => ({
        severity: 'error' as const,
        kind: p.message.startsWith('condition does not compile')
          ? ('condition' as const)
          : ('invalid' as const),
        file: p.file,
        ...(p.line === undefined ? {} : { line: p.line }),
        ...(p.column === undefined ? {} : { column: p.column }),
        ...(p.text === undefined ? {} : { rule: p.text }),
        message: p.message,
      })),
      files,
    );
  }
  return lintPolicy(policy, options, files);
}

export function lintPolicy(
  policy: CompiledPolicy,
  options: LintOptions = {},
  order: readonly string[] = [],
): LintFinding[] {
  const out: LintFinding[] = [];
  const report = (r: CompiledRule, severity: LintSeverity, kind: LintKind, message: string) =>
    out.push({ severity, kind, file: r.ref.source, ...lineOf(r), rule: r.ref.text, message });
  const ctx = {
    workspace: options.workspace ?? process.cwd(),
    home: options.home ?? os.homedir(),
    exists: options.exists ?? ((p: string) => fs.existsSync(p)),
  };
  const mine = policy.rules.filter((r) => r.layer !== 'builtin');
  for (const r of mine) {
    const condition = r.when === undefined ? undefined : conditionProblem(r.when);
    if (condition) report(r, 'error', 'condition', `condition does not compile: ${condition}`);
    unknownTool(r, report);
    ignoredByClaudeCode(r, report);
    broadAllow(r, report);
    danglingAnchor(r, ctx, report);
  }
  duplicates(policy.rules, report);
  shadowed(policy.rules, report);
  return sortFindings(out, order);
}

type Report = (r: CompiledRule, severity: LintSeverity, kind: LintKind, message: string) => void;

// ---------------------------------------------------------------- conditions

/** Compiles (never runs) the condition as the isolate does: a function's return expression. */
function conditionProblem(expression: string): string | undefined {
  try {
    new vm.Script(
      `(function (input, tool, cwd, mode, facts, command) { "use strict"; return (\n${expression}\n); })`,
      { filename: 'condition' },
    );
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

// ---------------------------------------------------------------- tool names

const KNOWN_TOOLS = [
  ...new Set([
    ...Object.keys(TOOLS),
    ...Object.keys(PATH_ACCESS),
    ...Object.keys(PRIMARY_FIELDS),
    ...Object.keys(TOOL_ALIASES),
  ]),
].sort();

function unknownTool(r: CompiledRule, report: Report): void {
  const tool = r.rule.tool;
  if (r.rule.toolIsPattern || tool.startsWith('mcp__') || KNOWN_TOOLS.includes(tool)) return;
  if (r.rule.specifier.type === 'bash') return; // a tool rule.ts reads as a shell (Monitor)
  const near = KNOWN_TOOLS.map((k) => ({ k, d: distance(tool.toLowerCase(), k.toLowerCase()) })).sort(
    (a, b) => a.d - b.d,
  )[0];
  const typo = near !== undefined && near.d <= 1;
  const hint = near !== undefined && near.d <= 2 ? `; did you mean "${near.k}"?` : '';
  const effect =
    r.kind === 'allow' ? 'it allows nothing else' : `a ${r.kind} rule on a misspelled name protects nothing`;
  report(
    r,
    typo ? 'error' : 'warning',
    'unknown-tool',
    `"${tool}" is not a tool toolgate knows (nor an mcp__ tool): the rule applies only to a tool of exactly that name, and ${effect}${hint}`,
  );
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length]!;
}

function ignoredByClaudeCode(r: CompiledRule, report: Report): void {
  const s = r.rule.specifier;
  if (s.type !== 'path' || !IGNORED_BY_CLAUDE_CODE.has(r.rule.tool)) return;
  const as = s.access === 'edit' ? 'Edit' : 'Read';
  report(
    r,
    'warning',
    'ignored-by-claude-code',
    `Claude Code ignores ${r.rule.tool}(...) path rules (it reads only Read(...) and Edit(...)); toolgate reads this one as ${as}(${s.pattern}), which applies to every tool that ${s.access === 'edit' ? 'writes' : 'reads'} the path. Write ${as}(${s.pattern}) so both agree`,
  );
}

// ---------------------------------------------------------------- broad allows

/**
 * A wildcard allow rule is tried against concrete lines that run code the line does not show, and
 * that decide() allows once a rule matches them. The lines are command knowledge, so src/bash
 * holds them (catalogue/code-runners.ts); this file names no command.
 */
function broadAllow(r: CompiledRule, report: Report): void {
  if (r.kind !== 'allow' || r.rule.tool !== 'Bash') return;
  const s = r.rule.specifier;
  if (s.type === 'any') {
    report(
      r,
      r.when === undefined ? 'error' : 'warning',
      'broad-allow',
      `allows every command line: the agent can run any program, and through it anything the Bash deny rules were meant to stop${r.when === undefined ? '' : ' (unless its when: condition rules that out)'}`,
    );
    return;
  }
  if (s.type !== 'bash') return;
  const matches = r.bash ?? compileBashPattern(s.pattern);
  const wild = s.pattern.includes('*');
  const runner = wild ? CODE_RUNNER_PROBES.find((p) => matches(p.line)) : undefined;
  // A condition may rule the example out: then the finding is a warning, not a proof.
  const unless = r.when === undefined ? '' : ' (unless its when: condition rules that out)';
  if (runner) {
    report(
      r,
      r.when === undefined ? 'error' : 'warning',
      'broad-allow',
      `allows "${runner.line}": ${runner.why}, so this rule grants arbitrary code execution (and a way around every Bash deny rule)${unless}`,
    );
    return;
  }
  const installer = wild ? INSTALLER_PROBES.find((probe) => matches(probe)) : undefined;
  if (installer) {
    report(
      r,
      'warning',
      'broad-allow',
      `allows "${installer}": installing a package runs its install scripts, which is code from the network${unless}`,
    );
    return;
  }
  if (PROJECT_SCRIPT.test(s.pattern.replace(/:\*$/, ' *').replace(/ ?\*$/, '')))
    report(
      r,
      'info',
      'project-scripts',
      `runs the project's own scripts: whatever package.json or the Makefile says. An agent that may edit those files without asking (acceptEdits mode) can run any code through this rule`,
    );
}

// ---------------------------------------------------------------- duplicates and shadowing

function duplicates(rules: readonly CompiledRule[], report: Report): void {
  const first = new Map<string, CompiledRule>();
  // Built-in rules first: a rule that repeats one of them is the one to report.
  const builtinFirst = (a: CompiledRule, b: CompiledRule) =>
    Number(b.layer === 'builtin') - Number(a.layer === 'builtin') || byPlace(a, b);
  for (const r of [...rules].sort(builtinFirst)) {
    const key = `${r.kind}\0${r.rule.tool}\0${specKey(r.rule.specifier)}\0${r.when ?? ''}`;
    const seen = first.get(key);
    if (seen === undefined) first.set(key, r);
    else if (r.layer !== 'builtin')
      report(r, 'warning', 'duplicate', `the same ${r.kind} rule as ${seen.ref.text} at ${placeOf(seen)}`);
  }
}

function shadowed(rules: readonly CompiledRule[], report: Report): void {
  const anchors = symbolicAnchors(rules);
  // Deny rules first: when both a deny and an ask cover an allow, the deny is what stops it.
  const blockers = rules
    .filter((r) => r.kind !== 'allow' && r.when === undefined)
    .sort((x, y) => (x.kind === y.kind ? byPlace(x, y) : x.kind === 'deny' ? -1 : 1));
  for (const a of [...rules].sort(byPlace)) {
    if (a.kind !== 'allow' || a.layer === 'builtin') continue;
    for (const b of blockers) {
      const cover = covers(b, a, anchors);
      if (cover === false) continue;
      const partly = cover === 'edits' ? ' (it still grants reading them)' : '';
      const what = cover === 'edits' ? 'every edit it allows' : 'everything it allows';
      report(
        a,
        'warning',
        'shadowed',
        `never applies: ${what} is ${b.kind === 'deny' ? 'denied' : 'sent to a person'} by ${b.kind} rule ${b.ref.text} at ${placeOf(b)}${partly}`,
      );
      break;
    }
  }
}

/** Whether blocker `b` matches every call allow rule `a` could allow ('edits': every edit, not the reads). */
function covers(b: CompiledRule, a: CompiledRule, anchors: Anchors): boolean | 'edits' {
  const bs = b.rule.specifier;
  const as = a.rule.specifier;
  if (as.type === 'path') {
    if (bs.type !== 'path') return false;
    if (!pathCovers(b, a, anchors)) return false;
    // Read denials stop reads and edits; edit denials only edits (an Edit allow also grants reads).
    return bs.access === 'read' ? true : as.access === 'edit' ? 'edits' : false;
  }
  if (bs.type === 'path' || !toolCovers(b.rule.tool, a.rule.tool)) return false;
  if (bs.type === 'any') return true;
  if (bs.type === 'param' || as.type === 'any' || bs.type !== as.type) return false;
  switch (bs.type) {
    case 'bash':
      return bashCovers(bs.pattern, (as as { pattern: string }).pattern);
    case 'domain':
      return domainCovers(bs.pattern, (as as { pattern: string }).pattern);
    default:
      return starCovers((bs as { pattern: string }).pattern, (as as { pattern: string }).pattern);
  }
}

function toolCovers(b: string, a: string): boolean {
  if (!a.includes('*')) return compileToolName(b)(a);
  if (b === a) return true;
  // mcp__server covers every tool of that server, patterns of them included.
  if (/^mcp__[^*_](?:[^*_]|_(?!_))*$/.test(b)) return a.startsWith(`${b}__`);
  const prefix = b.slice(0, -1);
  return b.endsWith('*') && !prefix.includes('*') && a.startsWith(prefix);
}

/** Every text pattern `a` matches, `b` matches too (Bash argv patterns, match/bash.ts). */
function bashCovers(bPattern: string, aPattern: string): boolean {
  const b = normalBash(bPattern);
  const a = normalBash(aPattern);
  if (b === a || b === '*') return true;
  const star = b.indexOf('*');
  if (star !== b.length - 1) return false;
  // `b` is LEAD* (texts starting with LEAD) or LEAD * (LEAD itself, or LEAD and a space first).
  const boundary = b.endsWith(' *');
  const lead = boundary ? b.slice(0, -2) : b.slice(0, -1);
  // Every text of `a` starts with `start`; `exact`: a text may also be `start` and nothing more
  // (a literal pattern, or one whose only star is a trailing " *"), otherwise anything may follow.
  const aStar = a.indexOf('*');
  const literal = aStar < 0;
  const tail = aStar === a.length - 1 && a.endsWith(' *');
  const start = literal ? a : tail ? a.slice(0, -2) : a.slice(0, aStar);
  if (!boundary) return start.startsWith(lead);
  return ((literal || tail) && start === lead) || start.startsWith(`${lead} `);
}

function normalBash(p: string): string {
  const t = p.trim();
  return t.endsWith(':*') ? `${t.slice(0, -2)} *` : t;
}

function domainCovers(b: string, a: string): boolean {
  if (b === a || b === '*') return true;
  if (!b.startsWith('*.') || b.slice(2).includes('*')) return false;
  const suffix = b.slice(1);
  if (!a.includes('*')) return a.endsWith(suffix);
  return a.startsWith('*.') && !a.slice(2).includes('*') && a.slice(1).endsWith(suffix);
}

function starCovers(b: string, a: string): boolean {
  if (b === a || b === '*') return true;
  if (b.indexOf('*') !== b.length - 1) return false;
  const lead = b.slice(0, -1);
  const aStar = a.indexOf('*');
  return (aStar < 0 ? a : a.slice(0, aStar)).startsWith(lead);
}

interface Anchors {
  of(r: CompiledRule): { cwd: string; home: string; policyRoot: string };
}

/** Stand-ins for the workspace, home and policy roots: coverage must hold wherever they are. */
function symbolicAnchors(rules: readonly CompiledRule[]): Anchors {
  const roots = [...new Set(rules.map((r) => r.policyRoot))];
  return {
    of: (r) => ({ cwd: '/%workspace', home: '/%home', policyRoot: `/%policy${roots.indexOf(r.policyRoot)}` }),
  };
}

const GLOB_CHARS = /[*?[\]{}()!+@]/;

function pathCovers(b: CompiledRule, a: CompiledRule, anchors: Anchors): boolean {
  const bs = b.rule.specifier as Extract<Specifier, { type: 'path' }>;
  const as = a.rule.specifier as Extract<Specifier, { type: 'path' }>;
  try {
    const glob = anchorPathPattern(as.pattern, 'allow', anchors.of(a));
    const segments = glob.split('/');
    const firstGlob = segments.findIndex((s) => GLOB_CHARS.test(s));
    const prefix = firstGlob < 0 ? glob : segments.slice(0, firstGlob).join('/');
    const blocker = anchorPathPattern(bs.pattern, b.kind, anchors.of(b));
    if (blocker === glob) return true;
    // A prefix that is only an anchor stand-in says nothing about where the paths are.
    if (prefix === '' || /^\/%[a-z0-9]+$/.test(prefix) || prefix === '/') return false;
    // The blocker matches the directory (or one above it), hence everything in it.
    if (compilePathPattern(bs.pattern, b.kind, anchors.of(b)).matches(prefix)) return true;
    // `Q/**` matches everything strictly below Q (not Q itself); `a`'s paths are all below its
    // prefix, and a literal `a` is its prefix, so that must be strictly below Q.
    if (!blocker.endsWith('/**')) return false;
    const q = blocker.slice(0, -3);
    if (GLOB_CHARS.test(q)) return false;
    return prefix.startsWith(`${q}/`) || (prefix === q && firstGlob >= 0);
  } catch {
    return false;
  }
}

function specKey(s: Specifier): string {
  return JSON.stringify(s.type === 'bash' ? { ...s, pattern: normalBash(s.pattern) } : s);
}

// ---------------------------------------------------------------- anchors

function danglingAnchor(
  r: CompiledRule,
  ctx: { workspace: string; home: string; exists: (p: string) => boolean },
  report: Report,
): void {
  const s = r.rule.specifier;
  if (s.type !== 'path') return;
  const p = s.pattern.trim();
  const anchor = p.startsWith('//')
    ? undefined
    : p.startsWith('~/')
      ? { base: ctx.home, rest: p.slice(2), name: 'your home directory' }
      : p.startsWith('./')
        ? { base: ctx.workspace, rest: p.slice(2), name: 'the workspace' }
        : p.startsWith('/')
          ? { base: r.policyRoot, rest: p.slice(1), name: 'the directory of the policy file' }
          : undefined;
  if (anchor === undefined) return;
  const segments = anchor.rest.split('/').filter((x) => x !== '');
  const firstGlob = segments.findIndex((x) => GLOB_CHARS.test(x));
  // The literal directories: all of a pattern's segments before its first glob, or but the last.
  const dirs = firstGlob < 0 ? segments.slice(0, -1) : segments.slice(0, firstGlob);
  if (dirs.length === 0) return;
  const dir = path.join(anchor.base, ...dirs);
  if (ctx.exists(dir)) return;
  const policyRelative = p.startsWith('/');
  const absolute = policyRelative && ctx.exists(path.join('/', ...dirs));
  const severity: LintSeverity = policyRelative || r.kind === 'allow' ? 'warning' : 'info';
  const effect =
    r.kind === 'allow'
      ? 'it allows nothing there'
      : `it ${r.kind === 'deny' ? 'protects' : 'guards'} nothing there now`;
  report(
    r,
    severity,
    'dangling-anchor',
    `${p} is relative to ${anchor.name} (${anchor.base}), and ${dir} does not exist: ${effect}${absolute ? `; for the absolute path write /${p}` : ''}`,
  );
}

// ---------------------------------------------------------------- order

const LAYER_ORDER = ['managed', 'cli', 'local', 'project', 'user', 'builtin'];

function byPlace(a: CompiledRule, b: CompiledRule): number {
  return (
    LAYER_ORDER.indexOf(a.layer) - LAYER_ORDER.indexOf(b.layer) ||
    cmp(a.ref.source, b.ref.source) ||
    (a.ref.line ?? 0) - (b.ref.line ?? 0) ||
    cmp(a.ref.text, b.ref.text)
  );
}

function placeOf(r: CompiledRule): string {
  return `${r.ref.source}${r.ref.line === undefined ? '' : `:${r.ref.line}`}`;
}

function lineOf(r: CompiledRule): { line?: number } {
  return r.ref.line === undefined ? {} : { line: r.ref.line };
}

const SEVERITY_ORDER: readonly LintSeverity[] = ['error', 'warning', 'info'];

/** Named files first, in the order given; then by line, column, severity, kind, message. */
export function sortFindings(findings: LintFinding[], order: readonly string[] = []): LintFinding[] {
  const rank = (file: string) => {
    const i = order.indexOf(file);
    return i < 0 ? order.length : i;
  };
  return findings.sort(
    (a, b) =>
      rank(a.file) - rank(b.file) ||
      cmp(a.file, b.file) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      (a.column ?? 0) - (b.column ?? 0) ||
      SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) ||
      cmp(a.kind, b.kind) ||
      cmp(a.message, b.message),
  );
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
