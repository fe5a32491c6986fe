import path from 'node:path';
import type { CompiledPolicy } from './compile.js';
import { anchorPathPattern } from './match/path.js';
import type { SandboxProfile } from './obligations.js';
import type { OwnFile } from './own-files.js';
import type { ToolRequest } from './request.js';
import type { Workspace } from './workspace.js';

/**
 * The limits an allowed call runs under, computed here once and enforced by the sandbox as
 * they are. Path rules feed the sandbox too: Read deny rules become paths it cannot read, Edit
 * (and Read) deny rules paths it cannot write, as Claude Code's sandbox does.
 *
 * The verdict chooses the jail, not the prediction alone: a call predicted read-only runs with
 * nothing writable and no network whatever allowed it (a default, a mode, a rule, a person),
 * so a prediction that was wrong costs a failed command, never a write or a connection. Any
 * other call gets the workspace (or `sandbox.writeAllow`) writable minus protected paths, and
 * the network only when the decision grants it.
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
  readOnly = false,
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
  const writableRoots = readOnly
    ? []
    : s.writeAllow.length > 0
      ? [...new Set(s.writeAllow.map((e) => dir(e.pattern)))]
      : [...workspace.roots];
  return {
    timeoutMs: Math.min(asked ?? s.timeoutMs, s.maxTimeoutMs),
    maxOutputChars: s.maxOutputChars,
    maxOutputBytes: s.maxOutputBytes,
    writableRoots,
    readableRoots: s.readAllow.map((e) => dir(e.pattern)),
    // Shared by every decision of this policy and workspace, frozen: copying them cost an MCP
    // call beside 10,000 rules 2.9x its time at 10 rules, and a consumer that wrote to a shared
    // list would change later decisions' limits, so writing throws instead.
    readDeny,
    writeDeny,
    network: !readOnly && (s.network || networkAllowed),
    envAllow: [...s.envAllow],
    os: s.os,
    kind: readOnly ? 'read-only' : 'workspace',
    workspaceRoots: [...workspace.roots],
    ...(policy.ownFiles !== undefined && policy.ownFiles.length > 0
      ? { ownFiles: heldOwnFiles(policy.ownFiles) }
      : {}),
  };
}

const heldCache = new WeakMap<readonly OwnFile[], readonly OwnFile[]>();

/**
 * What the jail holds of toolgate's own files: each file itself, or, for one toolgate replaces
 * while the call runs (OwnFile.replaced), the directory it lives in. Once per list, frozen.
 */
function heldOwnFiles(own: readonly OwnFile[]): readonly OwnFile[] {
  const cached = heldCache.get(own);
  if (cached) return cached;
  const byPath = new Map<string, OwnFile>();
  for (const f of own) {
    const held = f.replaced ? { path: path.dirname(f.path), what: `the directory of ${f.what}` } : f;
    if (!byPath.has(held.path)) byPath.set(held.path, Object.freeze({ path: held.path, what: held.what }));
  }
  const out = Object.freeze([...byPath.values()]);
  heldCache.set(own, out);
  return out;
}

/**
 * One sentence per limit of a profile, saying why it is there: for `toolgate check --explain`
 * and for whoever reads a Decision. Derived from the profile alone, so it cannot disagree with
 * what the jail enforces.
 */
export function explainProfile(profile: SandboxProfile): string[] {
  const lines: string[] = [];
  if (profile.kind === 'read-only' || profile.writableRoots.length === 0) {
    lines.push(
      'file system read-only everywhere, the workspace included: the call was allowed as read-only, so a write it attempts fails instead of happening',
    );
  } else {
    lines.push(
      `writable: ${profile.writableRoots.join(', ')} (the call is not read-only and was allowed to change the workspace); everything else is read-only`,
    );
    lines.push(
      'protected paths stay read-only inside the writable directories, existing or not (.git/hooks, .git/config, .claude, .mcp.json, .vscode, shell start-up files, ...): their contents run code later',
    );
  }
  if (profile.ownFiles !== undefined && profile.ownFiles.length > 0 && profile.writableRoots.length > 0) {
    lines.push(
      `toolgate's own files stay read-only inside the writable directories, existing or not (a call that could rewrite them would switch the guard off or rewrite its record): ${profile.ownFiles.map((f) => f.path).join(', ')}`,
    );
  }
  lines.push('/tmp is private and empty, and removed when the call ends');
  lines.push(
    profile.network
      ? 'network: allowed, because the decision grants this call the network'
      : 'no network: the decision does not grant it (a read-only call never gets it)',
  );
  lines.push('own PID namespace (nothing it starts outlives it) and no capabilities, even as root');
  if (profile.readDeny.length > 0) {
    lines.push(
      `unreadable (Read deny rules and sandbox.readDeny), for the command and every child it starts: ${profile.readDeny.join(', ')}`,
    );
  }
  lines.push(
    `deadline ${profile.timeoutMs} ms; output over ${profile.maxOutputBytes} bytes stops the call; secret-like environment variables are not passed`,
  );
  if (profile.os === 'off') {
    lines.push(
      'sandbox.os is off: none of the file-system, network or process limits above is enforced by the OS; only the static checks before the call hold, and a read-only prediction that is wrong is not caught',
    );
  } else if (profile.os === 'auto') {
    lines.push(
      'sandbox.os is auto: where bubblewrap cannot run, the call runs without these OS limits and says so',
    );
  }
  return lines;
}

interface DenyGlobs {
  readonly readDeny: readonly string[];
  readonly writeDeny: readonly string[];
}

const globCache = new WeakMap<CompiledPolicy, Map<string, DenyGlobs>>();
const lastGlobs = new WeakMap<CompiledPolicy, { root: string; home: string; globs: DenyGlobs }>();

/** The deny globs depend only on the policy and the anchors: computed once per workspace. */
function denyGlobs(policy: CompiledPolicy, root: string, home: string): DenyGlobs {
  let byAnchors = globCache.get(policy);
  if (byAnchors === undefined) {
    byAnchors = new Map();
    globCache.set(policy, byAnchors);
  }
  // Decisions in a row mostly share their workspace: the last answer is at hand without a key.
  const last = lastGlobs.get(policy);
  if (last !== undefined && last.root === root && last.home === home) return last.globs;
  const key = `${root}\0${home}`;
  const cached = byAnchors.get(key);
  if (cached) {
    lastGlobs.set(policy, { root, home, globs: cached });
    return cached;
  }
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
  const out = { readDeny: Object.freeze(readDeny), writeDeny: Object.freeze(writeDeny) };
  byAnchors.set(key, out);
  lastGlobs.set(policy, { root, home, globs: out });
  return out;
}
