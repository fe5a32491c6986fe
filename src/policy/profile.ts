import path from 'node:path';
import type { CompiledPolicy } from './compile.js';
import { anchorPathPattern } from './match/path.js';
import type { SandboxProfile } from './obligations.js';
import type { ToolRequest } from './request.js';
import type { Workspace } from './workspace.js';

/**
 * The limits an allowed call runs under, computed here once and enforced by the sandbox as
 * they are. Path rules feed the sandbox too: Read deny rules become paths it cannot read, Edit
 * (and Read) deny rules paths it cannot write, as Claude Code's sandbox does.
 *
 * Paths in the `sandbox:` block are directories, not rule patterns: absolute stays absolute,
 * `~/x` is under home, anything else is relative to the workspace root.
 */
export function sandboxProfile(
  policy: CompiledPolicy,
  request: ToolRequest,
  workspace: Workspace,
  networkAllowed: boolean,
  home?: string,
): SandboxProfile {
  const s = policy.sandbox;
  const h = home ?? process.env.HOME ?? '/';
  const input = (request.input ?? {}) as { timeout?: unknown };
  const asked = typeof input.timeout === 'number' && input.timeout > 0 ? input.timeout : undefined;
  const dir = (p: string) =>
    path.isAbsolute(p)
      ? p
      : p === '~'
        ? h
        : p.startsWith('~/')
          ? path.join(h, p.slice(2))
          : path.resolve(workspace.root, p);
  const { readDeny, writeDeny } = denyGlobs(policy, workspace.root, h);
  return {
    timeoutMs: Math.min(asked ?? s.timeoutMs, s.maxTimeoutMs),
    maxOutputChars: s.maxOutputChars,
    maxOutputBytes: s.maxOutputBytes,
    writableRoots:
      s.writeAllow.length > 0 ? [...new Set(s.writeAllow.map((e) => dir(e.pattern)))] : [...workspace.roots],
    readableRoots: s.readAllow.map((e) => dir(e.pattern)),
    readDeny: [...readDeny],
    writeDeny: [...writeDeny],
    network: s.network || networkAllowed,
    envAllow: [...s.envAllow],
    os: s.os,
  };
}

const globCache = new WeakMap<CompiledPolicy, Map<string, { readDeny: string[]; writeDeny: string[] }>>();

/** The deny globs depend only on the policy and the anchors: computed once per workspace. */
function denyGlobs(
  policy: CompiledPolicy,
  root: string,
  home: string,
): { readDeny: string[]; writeDeny: string[] } {
  let byAnchors = globCache.get(policy);
  if (byAnchors === undefined) {
    byAnchors = new Map();
    globCache.set(policy, byAnchors);
  }
  const key = `${root}\0${home}`;
  const cached = byAnchors.get(key);
  if (cached) return cached;
  const s = policy.sandbox;
  const anchors = (policyRoot: string) => ({ cwd: root, home, policyRoot });
  const globs = (entries: readonly { pattern: string; policyRoot: string }[]) =>
    entries.map((e) =>
      path.isAbsolute(e.pattern) && !e.pattern.startsWith('//')
        ? e.pattern
        : anchorPathPattern(e.pattern, 'deny', anchors(e.policyRoot)),
    );
  const ruleGlobs = (rules: CompiledPolicy['pathRules']['read']['deny']) =>
    rules
      .filter((r) => r.when === undefined && r.rule.specifier.type === 'path')
      .map((r) =>
        anchorPathPattern((r.rule.specifier as { pattern: string }).pattern, 'deny', anchors(r.policyRoot)),
      );
  const readDeny = [...new Set([...globs(s.readDeny), ...ruleGlobs(policy.pathRules.read.deny)])];
  const writeDeny = [
    ...new Set([...globs(s.writeDeny), ...ruleGlobs(policy.pathRules.edit.deny), ...readDeny]),
  ];
  if (byAnchors.size > 64) byAnchors.clear();
  const out = { readDeny, writeDeny };
  byAnchors.set(key, out);
  return out;
}
