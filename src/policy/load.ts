import vm from 'node:vm';
import { isMap, isScalar, LineCounter, type Node, parseDocument } from 'yaml';
import type { ZodError } from 'zod';
import { parseMode } from './mode.js';
import {
  type Layer,
  PolicyError,
  type PolicyFile,
  type PolicyProblem,
  policyRootOf,
  readPolicyText,
  type SourcedRule,
} from './policy-file.js';
import { parseRule, RuleError, type RuleKind } from './rule.js';
import { claudeSettingsSchema, toolgatePolicySchema } from './schema.js';

/**
 * Reading one policy file: YAML or JSON, one zod schema, every error with file, line, column
 * and the offending text. A file with any error is refused whole, never half-loaded.
 */
export {
  formatProblem,
  LAYERS,
  type Layer,
  PolicyError,
  type PolicyFile,
  type PolicyProblem,
  policyRootOf,
  type SourcedRule,
} from './policy-file.js';

export function readPolicyFile(file: string, layer: Layer): PolicyFile {
  return parsePolicyText(readPolicyText(file), file, layer, policyRootOf(file));
}

export function parsePolicyText(text: string, source: string, layer: Layer, policyRoot: string): PolicyFile {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const problems: PolicyProblem[] = [];
  for (const e of doc.errors) {
    let offset = e.pos[0];
    // An unterminated quote is noticed where the text ends; point at the quote that opened it.
    const quote = /Missing closing (["'])quote/.exec(e.message)?.[1];
    if (quote !== undefined) {
      const open = text.lastIndexOf(quote, Math.max(0, offset - 1));
      if (open >= 0) offset = open;
    }
    const pos = lineCounter.linePos(offset);
    const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    problems.push({ file: source, line: pos.line, column: pos.col, message });
  }
  if (problems.length > 0) throw new PolicyError(problems);
  const data: unknown = doc.toJS();
  const at = (keys: readonly (string | number)[]) =>
    position(doc.getIn(keys, true) as Node | undefined, lineCounter);
  const keyAt = (keys: readonly (string | number)[], key: string) => {
    const map = doc.getIn(keys, true);
    const pair = isMap(map) ? map.items.find((p) => isScalar(p.key) && p.key.value === key) : undefined;
    return position(pair?.key as Node | undefined, lineCounter);
  };

  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new PolicyError([
      { file: source, line: 1, message: 'a policy file must be a mapping (an object)' },
    ]);
  }
  const record = data as Record<string, unknown>;
  const form = 'version' in record || !('permissions' in record) ? 'toolgate' : 'claude-settings';
  if (form === 'claude-settings') {
    const parsed = claudeSettingsSchema.safeParse(record);
    if (!parsed.success) throw new PolicyError(zodProblems(parsed.error, source, at, keyAt));
    const perms = parsed.data.permissions;
    const rules = [
      ...ruleStrings(perms.deny, 'deny', ['permissions', 'deny'], source, at, problems),
      ...ruleStrings(perms.ask, 'ask', ['permissions', 'ask'], source, at, problems),
      ...ruleStrings(perms.allow, 'allow', ['permissions', 'allow'], source, at, problems),
    ];
    if (problems.length > 0) throw new PolicyError(problems);
    const mode = perms.defaultMode === undefined ? undefined : parseMode(perms.defaultMode);
    return {
      source,
      layer,
      form,
      policyRoot,
      rules,
      ...(mode === undefined ? {} : { mode }),
      ...(perms.additionalDirectories ? { additionalDirectories: perms.additionalDirectories } : {}),
      ...(perms.disableBypassPermissionsMode ? { lock: { disableBypass: true } } : {}),
      tests: [],
      extends: [],
    };
  }

  if (!('version' in record)) {
    throw new PolicyError([
      {
        file: source,
        line: 1,
        message: 'not a toolgate policy (add "version: 1") nor Claude Code settings (no "permissions" key)',
      },
    ]);
  }
  const parsed = toolgatePolicySchema.safeParse(record);
  if (!parsed.success) throw new PolicyError(zodProblems(parsed.error, source, at, keyAt));
  const p = parsed.data;
  const rules: SourcedRule[] = [];
  p.rules?.forEach((entry, i) => {
    const kind: RuleKind = entry.deny !== undefined ? 'deny' : entry.ask !== undefined ? 'ask' : 'allow';
    const list = entry[kind]!;
    const strings = typeof list === 'string' ? [list] : list;
    const base = ['rules', i, kind] as const;
    strings.forEach((ruleText, j) => {
      const keys = typeof list === 'string' ? [...base] : [...base, j];
      const checked = checkRule(ruleText, kind, keys, source, at, problems);
      if (checked === undefined) return;
      if (entry.when !== undefined) {
        const syntax = checkCondition(entry.when);
        if (syntax !== undefined) {
          const pos = at(['rules', i, 'when']);
          problems.push({
            file: source,
            ...pos,
            message: `condition does not compile: ${syntax}`,
            text: entry.when,
          });
          return;
        }
      }
      rules.push({
        kind,
        text: ruleText,
        ...(entry.id === undefined ? {} : { id: entry.id }),
        ...(entry.reason === undefined ? {} : { reason: entry.reason }),
        ...(entry.when === undefined ? {} : { when: entry.when }),
        ...(checked.line === undefined ? {} : { line: checked.line }),
      });
    });
  });
  if (p.permissions) {
    rules.push(
      ...ruleStrings(p.permissions.deny, 'deny', ['permissions', 'deny'], source, at, problems),
      ...ruleStrings(p.permissions.ask, 'ask', ['permissions', 'ask'], source, at, problems),
      ...ruleStrings(p.permissions.allow, 'allow', ['permissions', 'allow'], source, at, problems),
    );
  }
  if (problems.length > 0) throw new PolicyError(problems);
  const modeText = p.mode ?? p.permissions?.defaultMode;
  const mode = modeText === undefined ? undefined : parseMode(modeText);
  const tests = (p.tests ?? []).map((t, i) => ({ ...t, ...lineOf(at(['tests', i])) }));
  const extendsList = p.extends === undefined ? [] : typeof p.extends === 'string' ? [p.extends] : p.extends;
  const additional = [
    ...(p.workspace?.additionalDirectories ?? []),
    ...(p.permissions?.additionalDirectories ?? []),
  ];
  const lock =
    p.lock !== undefined || p.permissions?.disableBypassPermissionsMode
      ? { ...p.lock, ...(p.permissions?.disableBypassPermissionsMode ? { disableBypass: true } : {}) }
      : undefined;
  return {
    source,
    layer,
    form,
    policyRoot,
    rules,
    ...(mode === undefined ? {} : { mode }),
    ...(p.workspace?.roots ? { roots: p.workspace.roots } : {}),
    ...(additional.length > 0 ? { additionalDirectories: additional } : {}),
    ...(p.sandbox ? { sandbox: p.sandbox } : {}),
    ...(p.auto ? { auto: p.auto } : {}),
    ...(lock ? { lock } : {}),
    ...(p.guards ? { guards: p.guards } : {}),
    ...(p.builtinDefault === false ? { builtinDefault: false as const } : {}),
    ...(p.bundle
      ? {
          bundle: {
            url: p.bundle.url,
            publicKey: p.bundle.publicKey,
            pollSeconds: p.bundle.pollSeconds ?? 300,
          },
        }
      : {}),
    tests,
    extends: extendsList,
  };
}

type At = (keys: readonly (string | number)[]) => { line?: number; column?: number };

function lineOf(pos: { line?: number }): { line?: number } {
  return pos.line === undefined ? {} : { line: pos.line };
}

function ruleStrings(
  list: readonly string[] | undefined,
  kind: RuleKind,
  base: readonly (string | number)[],
  source: string,
  at: At,
  problems: PolicyProblem[],
): SourcedRule[] {
  const out: SourcedRule[] = [];
  list?.forEach((text, i) => {
    const checked = checkRule(text, kind, [...base, i], source, at, problems);
    if (checked) out.push({ kind, text, ...(checked.line === undefined ? {} : { line: checked.line }) });
  });
  return out;
}

function checkRule(
  text: string,
  kind: RuleKind,
  keys: readonly (string | number)[],
  source: string,
  at: At,
  problems: PolicyProblem[],
): { line?: number } | undefined {
  const pos = at(keys);
  try {
    parseRule(text, kind);
    return lineOf(pos);
  } catch (err) {
    if (!(err instanceof RuleError)) throw err;
    const column = pos.column === undefined ? undefined : pos.column + err.offset;
    problems.push({
      file: source,
      ...(pos.line === undefined ? {} : { line: pos.line }),
      ...(column === undefined ? {} : { column }),
      message: `bad ${kind} rule: ${err.message}`,
      text,
    });
    return undefined;
  }
}

/**
 * Syntax only: compiles (never runs) the expression, so a condition that does not compile is
 * refused at load time. Conditions run only inside isolated-vm.
 */
function checkCondition(expression: string): string | undefined {
  try {
    new vm.Script(`"use strict"; (${expression}\n);`, { filename: 'condition' });
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

function position(node: Node | undefined, lc: LineCounter): { line?: number; column?: number } {
  if (node?.range === undefined || node.range === null) return {};
  let offset = node.range[0];
  if (isScalar(node) && (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE')) offset += 1;
  const pos = lc.linePos(offset);
  return { line: pos.line, column: pos.col };
}

function zodProblems(
  error: ZodError,
  source: string,
  at: At,
  keyAt: (keys: readonly (string | number)[], key: string) => { line?: number; column?: number },
): PolicyProblem[] {
  return error.issues.map((issue) => {
    const keys = issue.path.filter(
      (k): k is string | number => typeof k === 'string' || typeof k === 'number',
    );
    // An unknown key is reported where the key is written, not at the mapping that holds it.
    let pos =
      issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined
        ? keyAt(keys, issue.keys[0])
        : at(keys);
    let k = keys;
    while (pos.line === undefined && k.length > 0) {
      k = k.slice(0, -1);
      pos = at(k);
    }
    const where = keys.length > 0 ? `${keys.join('.')}: ` : '';
    const unknown = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    return { file: source, ...pos, message: `${where}${issue.message}${unknown}` };
  });
}
