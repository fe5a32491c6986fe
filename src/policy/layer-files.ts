import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { probeLayerFile, projectRoot } from './discovery.js';
import { type ManagedOptions, managedLayerFiles } from './managed.js';
import {
  type BundleFiles,
  type BundleSetting,
  type Layer,
  PolicyError,
  type PolicyFile,
  type PolicyProblem,
  policyRootOf,
  readPolicyText,
} from './policy-file.js';
import { needsTrust, restrictUntrusted, type TrustCheck } from './trust.js';

/** Parses one policy file's text (load.ts's parsePolicyText, or a cache in front of it). */
export type PolicyParser = (text: string, source: string, layer: Layer, policyRoot: string) => PolicyFile;

/**
 * Which policy files apply, highest layer first: managed > cli > local > project > user >
 * built-in. `--policy F` (repeatable; later files are lower) replaces the discovered local,
 * project and user files, and then the embedded default applies only through `extends`; the
 * managed files always apply (managed.ts). Discovered layers are found from the project root
 * (discovery.ts), and the embedded default stays underneath them unless a user or managed file
 * says `builtinDefault: false`. A layer path that exists but cannot be read refuses the policy.
 */
export interface LayerOptions extends ManagedOptions {
  /** `--policy` files, highest first. */
  readonly files?: readonly string[];
  /** The agent's working directory; the project root is found from it. */
  readonly cwd?: string;
  readonly home?: string;
  readonly env?: NodeJS.ProcessEnv;
}

export const BUILTIN_POLICIES = ['default', 'strict', 'readonly-review'] as const;

const POLICIES_DIR = path.join(packageRoot(), 'policies');

/** The entry discovery adds under the discovered layers (dropped when a user or managed file opts out). */
export const DEFAULT_UNDERLAY = 'builtin:default';

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
  const problems: PolicyProblem[] = [];
  const out: { file: string; layer: Layer }[] = managedLayerFiles(options, env, problems).map((file) => ({
    file,
    layer: 'managed' as const,
  }));
  if (options.files && options.files.length > 0) {
    for (const f of options.files) out.push({ file: f, layer: 'cli' });
  } else {
    const root = projectRoot(cwd, env);
    const configHome = env.XDG_CONFIG_HOME ?? path.join(home, '.config');
    const candidates: { file: string; layer: Layer }[] = [
      { file: path.join(root, '.toolgate', 'policy.local.yaml'), layer: 'local' },
      { file: path.join(root, '.toolgate', 'policy.yaml'), layer: 'project' },
      { file: path.join(configHome, 'toolgate', 'policy.yaml'), layer: 'user' },
    ];
    for (const c of candidates) {
      const kind = probeLayerFile(c.file);
      if (kind === 'file') out.push(c);
      else if (kind !== 'absent') problems.push(kind);
    }
    out.push({ file: DEFAULT_UNDERLAY, layer: 'builtin' });
  }
  if (problems.length > 0) throw new PolicyError(problems);
  return out;
}

export interface ReadOptions {
  /** Whether a workspace file's text is trusted (trust.ts); without one, none is. */
  readonly trust?: TrustCheck;
  /**
   * The verified files of the bundle a managed file names (src/bundle/source.ts), or a
   * PolicyError saying why there are none; without a reader, such a file refuses the policy.
   */
  readonly bundle?: (setting: BundleSetting, namedBy: PolicyFile) => BundleFiles;
}

/** How a bundle's file is named as a source: `bundle:acme@42/policy.yaml`. */
const BUNDLE_PREFIX = 'bundle:';

/**
 * Reads every file (following `extends`) with `parse`, highest layer first; a workspace file
 * that is not trusted is cut down to what only tightens (restrictUntrusted); any error refuses
 * the whole policy. No YAML here: the parser is the caller's.
 */
export function readPolicyLayers(
  entries: readonly { file: string; layer: Layer }[],
  parse: PolicyParser,
  options: ReadOptions = {},
): PolicyFile[] {
  const files: PolicyFile[] = [];
  const problems: PolicyError[] = [];
  const seen = new Set<string>();
  const bundles = new Map<string, { files: BundleFiles; policyRoot: string }>();
  const readFile = (file: string, layer: Layer): PolicyFile => {
    if (file.startsWith(BUNDLE_PREFIX)) return readBundleFile(file, layer);
    const text = readPolicyText(file);
    const parsed = parse(text, file, layer, policyRootOf(file));
    if (parsed.bundle !== undefined && layer !== 'managed')
      throw new PolicyError([{ file, message: 'bundle: is honoured only in a managed policy file' }]);
    if (!needsTrust(layer)) return parsed;
    // No trust check given (a program's own use of the API): nothing of the workspace is trusted.
    const state = options.trust?.(file, text) ?? 'untrusted';
    return state === 'trusted' ? parsed : restrictUntrusted(parsed, state);
  };
  const readBundleFile = (source: string, layer: Layer): PolicyFile => {
    const { id, file } = splitBundleSource(source);
    const b = bundles.get(id);
    const text = b?.files.files.get(file);
    if (b === undefined || text === undefined)
      throw new PolicyError([{ file: source, message: 'no such file in the bundle' }]);
    const parsed = parse(text, source, layer, b.policyRoot);
    if (parsed.bundle !== undefined)
      throw new PolicyError([{ file: source, message: 'a bundle cannot name another bundle ("bundle:")' }]);
    return parsed;
  };
  /** Where `extends: ext` of `from` points: a file's directory, or a bundle's (never out of it). */
  const target = (file: string, from: string | undefined): string => {
    if (file.startsWith('builtin:') || (from === undefined && file.startsWith(BUNDLE_PREFIX))) return file;
    if (from?.startsWith(BUNDLE_PREFIX)) {
      const { id, file: at } = splitBundleSource(from);
      const joined = path.posix.normalize(path.posix.join(path.posix.dirname(at), file));
      if (path.posix.isAbsolute(file) || joined.startsWith('../') || joined === '..')
        throw new PolicyError([
          { file: from, message: `extends ${file}: a bundle's file extends only files of the bundle` },
        ]);
      return `${BUNDLE_PREFIX}${id}/${joined}`;
    }
    return path.resolve(from ? path.dirname(from) : process.cwd(), file);
  };
  const visit = (file: string, layer: Layer, from?: string, extended = false): void => {
    try {
      const resolved = target(file, from);
      if (seen.has(`${layer}\0${resolved}`)) return;
      seen.add(`${layer}\0${resolved}`);
      const loaded = resolved.startsWith('builtin:')
        ? readBuiltin(resolved.slice(8), layer, parse)
        : readFile(resolved, layer);
      // An extended policy's tests describe that policy, not the one built on it: they stay out.
      files.push(extended ? { ...loaded, tests: [] } : loaded);
      if (loaded.bundle !== undefined) visitBundle(loaded.bundle, loaded, layer);
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
  // The bundle's files are layers right below the managed file that names it.
  const visitBundle = (setting: BundleSetting, namedBy: PolicyFile, layer: Layer): void => {
    if (options.bundle === undefined)
      throw new PolicyError([
        {
          file: namedBy.source,
          message: `names a policy bundle (${setting.url}), and this loader fetches none`,
        },
      ]);
    const b = options.bundle(setting, namedBy);
    bundles.set(b.id, { files: b, policyRoot: namedBy.policyRoot });
    for (const p of b.policies) visit(`${BUNDLE_PREFIX}${b.id}/${p}`, layer);
  };
  for (const e of entries) {
    // The default under discovered layers goes when a user or managed file opts out of it.
    if (e.layer === 'builtin' && e.file === DEFAULT_UNDERLAY && files.some(optsOutOfDefault)) continue;
    visit(e.file, e.layer);
  }
  if (problems.length > 0) throw new PolicyError(problems.flatMap((p) => p.problems));
  return files;
}

function splitBundleSource(source: string): { id: string; file: string } {
  const rest = source.slice(BUNDLE_PREFIX.length);
  const slash = rest.indexOf('/');
  return { id: rest.slice(0, slash), file: rest.slice(slash + 1) };
}

function optsOutOfDefault(f: PolicyFile): boolean {
  return f.builtinDefault === false && (f.layer === 'user' || f.layer === 'managed');
}

function readBuiltin(name: string, layer: Layer, parse: PolicyParser): PolicyFile {
  const file = builtinPolicyFile(name);
  const text = fs.readFileSync(file, 'utf8');
  return parse(text, `builtin:${name}`, layer, path.dirname(file));
}
