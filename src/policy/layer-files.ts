import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { type Layer, PolicyError, type PolicyFile, policyRootOf, readPolicyText } from './policy-file.js';

/** Parses one policy file's text (load.ts's parsePolicyText, or a cache in front of it). */
export type PolicyParser = (text: string, source: string, layer: Layer, policyRoot: string) => PolicyFile;

/**
 * Which policy files apply, highest layer first: managed > cli > local > project > user >
 * built-in. `--policy F` (repeatable; later files are lower) replaces the discovered local,
 * project and user files; the managed file always applies; the embedded default applies when
 * nothing else does, or when a file says `extends: builtin:default`.
 */
export interface LayerOptions {
  /** `--policy` files, highest first. */
  readonly files?: readonly string[];
  /** The project directory (where `.toolgate/policy.yaml` lives). */
  readonly cwd?: string;
  readonly home?: string;
  /** The managed policy file; defaults to $TOOLGATE_MANAGED_POLICY or /etc/toolgate/policy.yaml. */
  readonly managedFile?: string | null;
  readonly env?: NodeJS.ProcessEnv;
}

export const BUILTIN_POLICIES = ['default', 'strict', 'readonly-review'] as const;

const POLICIES_DIR = path.join(packageRoot(), 'policies');

export function builtinPolicyFile(name: string): string {
  if (!(BUILTIN_POLICIES as readonly string[]).includes(name)) {
    throw new PolicyError([
      {
        file: `builtin:${name}`,
        message: `no built-in policy "${name}" (there are: ${BUILTIN_POLICIES.join(', ')})`,
      },
    ]);
  }
  return path.join(POLICIES_DIR, `${name}.yaml`);
}

export function discoverPolicyFiles(options: LayerOptions = {}): { file: string; layer: Layer }[] {
  const env = options.env ?? process.env;
  const home = options.home ?? os.homedir();
  const cwd = options.cwd ?? process.cwd();
  const out: { file: string; layer: Layer }[] = [];
  const managed =
    options.managedFile === undefined
      ? (env.TOOLGATE_MANAGED_POLICY ?? '/etc/toolgate/policy.yaml')
      : options.managedFile;
  if (managed !== null && exists(managed)) out.push({ file: managed, layer: 'managed' });
  if (options.files && options.files.length > 0) {
    for (const f of options.files) out.push({ file: f, layer: 'cli' });
    return out;
  }
  const local = path.join(cwd, '.toolgate', 'policy.local.yaml');
  const project = path.join(cwd, '.toolgate', 'policy.yaml');
  const configHome = env.XDG_CONFIG_HOME ?? path.join(home, '.config');
  const user = path.join(configHome, 'toolgate', 'policy.yaml');
  if (exists(local)) out.push({ file: local, layer: 'local' });
  if (exists(project)) out.push({ file: project, layer: 'project' });
  if (exists(user)) out.push({ file: user, layer: 'user' });
  if (!out.some((f) => f.layer !== 'managed')) out.push({ file: 'builtin:default', layer: 'builtin' });
  return out;
}

/**
 * Reads every file (following `extends`) with `parse`, highest layer first; any error refuses
 * the whole policy. No YAML here: the parser is the caller's.
 */
export function readPolicyLayers(
  entries: readonly { file: string; layer: Layer }[],
  parse: PolicyParser,
): PolicyFile[] {
  const files: PolicyFile[] = [];
  const problems: PolicyError[] = [];
  const seen = new Set<string>();
  const visit = (file: string, layer: Layer, from?: string, extended = false): void => {
    const resolved = file.startsWith('builtin:')
      ? file
      : path.resolve(from ? path.dirname(from) : process.cwd(), file);
    if (seen.has(`${layer}\0${resolved}`)) return;
    seen.add(`${layer}\0${resolved}`);
    try {
      const loaded = resolved.startsWith('builtin:')
        ? readBuiltin(resolved.slice(8), layer, parse)
        : parse(readPolicyText(resolved), resolved, layer, policyRootOf(resolved));
      // An extended policy's tests describe that policy, not the one built on it: they stay out.
      files.push(extended ? { ...loaded, tests: [] } : loaded);
      for (const ext of loaded.extends)
        visit(
          ext,
          ext.startsWith('builtin:') ? 'builtin' : layer,
          resolved.startsWith('builtin:') ? undefined : resolved,
          true,
        );
    } catch (err) {
      if (err instanceof PolicyError) problems.push(err);
      else throw err;
    }
  };
  for (const e of entries) visit(e.file, e.layer);
  if (problems.length > 0) throw new PolicyError(problems.flatMap((p) => p.problems));
  return files;
}

function readBuiltin(name: string, layer: Layer, parse: PolicyParser): PolicyFile {
  const file = builtinPolicyFile(name);
  const text = fs.readFileSync(file, 'utf8');
  return parse(text, `builtin:${name}`, layer, path.dirname(file));
}

function exists(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
