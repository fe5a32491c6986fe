import fs from 'node:fs';
import path from 'node:path';
import type { Mode } from './mode.js';
import type { RuleKind } from './rule.js';
import type { AutoBlock, PolicyTestCase, SandboxBlock } from './schema.js';

/**
 * What a policy file is once read, and what can go wrong reading it: the types, the error and
 * the file read itself. No YAML and no zod here, so that a caller holding an already-parsed
 * policy (the hook's policy cache) can load these without the parser.
 */
export type Layer = 'managed' | 'cli' | 'local' | 'project' | 'user' | 'builtin';
export const LAYERS: readonly Layer[] = ['managed', 'cli', 'local', 'project', 'user', 'builtin'];

export interface SourcedRule {
  readonly kind: RuleKind;
  readonly text: string;
  readonly id?: string;
  readonly reason?: string;
  readonly when?: string;
  readonly line?: number;
}

export interface PolicyFile {
  /** The file path, or `builtin:NAME`. */
  readonly source: string;
  readonly layer: Layer;
  readonly form: 'toolgate' | 'claude-settings';
  /** What `/x` path anchors are relative to. */
  readonly policyRoot: string;
  readonly rules: readonly SourcedRule[];
  readonly mode?: Mode;
  readonly roots?: readonly string[];
  readonly additionalDirectories?: readonly string[];
  readonly sandbox?: SandboxBlock;
  readonly auto?: AutoBlock;
  readonly lock?: { readonly rulesOnly?: boolean; readonly disableBypass?: boolean };
  readonly guards?: { readonly criticalDelete?: 'ask' | 'deny'; readonly pipeToShell?: 'ask' | 'deny' };
  readonly tests: readonly (PolicyTestCase & { line?: number })[];
  readonly extends: readonly string[];
  /** `builtinDefault: false` in a user or managed file: no embedded default under the discovered layers. */
  readonly builtinDefault?: false;
  /** Set on a workspace file that is not trusted (trust.ts): what was set aside, in a sentence. */
  readonly untrusted?: string;
  /** A managed file's `bundle:`: the signed bundle whose files are layers right below it. */
  readonly bundle?: BundleSetting;
}

/** Where a fleet's signed policy bundle comes from (src/bundle), as a managed file names it. */
export interface BundleSetting {
  readonly url: string;
  /** The Ed25519 public key it must be signed with: PEM text, or the path of a PEM file. */
  readonly publicKey: string;
  /** How often a fresh copy is asked for; between, the copy on disk is used. */
  readonly pollSeconds: number;
}

/** A bundle's verified files, as policy loading reads them (src/bundle/format.ts opens them). */
export interface BundleFiles {
  /** `name@version`: the bundle's files are named `bundle:ID/PATH` in rule sources. */
  readonly id: string;
  /** The files loaded as layers, highest first. */
  readonly policies: readonly string[];
  readonly files: ReadonlyMap<string, string>;
}

export interface PolicyProblem {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  readonly message: string;
  /** The offending text, when there is one. */
  readonly text?: string;
}

export class PolicyError extends Error {
  override name = 'PolicyError';
  constructor(readonly problems: readonly PolicyProblem[]) {
    super(problems.map(formatProblem).join('\n'));
  }
}

export function formatProblem(p: PolicyProblem): string {
  const where =
    p.line === undefined ? p.file : `${p.file}:${p.line}${p.column === undefined ? '' : `:${p.column}`}`;
  return `${where}: ${p.message}${p.text === undefined ? '' : ` (in "${p.text}")`}`;
}

/** A policy file's text; a file that cannot be read is a PolicyError naming it. */
export function readPolicyText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : code === 'ELOOP'
              ? 'a symlink loop'
              : String(err);
    throw new PolicyError([{ file, message: `cannot read the policy file: ${why}` }]);
  }
}

/**
 * `/x` in a rule is relative to the directory that owns the policy: the project for files in
 * `.claude/` or `.toolgate/`, otherwise the file's own directory (as `--settings FILE` does).
 */
export function policyRootOf(file: string): string {
  const dir = path.dirname(path.resolve(file));
  const base = path.basename(dir);
  return base === '.claude' || base === '.toolgate' ? path.dirname(dir) : dir;
}
