import os from 'node:os';
import path from 'node:path';
import type { CompiledPolicy } from './compile.js';
import { compilePolicy } from './compile.js';
import { type ConditionLimits, prepareConditions } from './conditions.js';
import { discoverPolicyFiles, type LayerOptions, loadPolicyFiles, readPolicyLayers } from './layers.js';
import { type Layer, parsePolicyText } from './load.js';
import { readTrustStore, type TrustCheck, trustCheckOf, trustStorePath } from './trust.js';

/**
 * The library's way in: find the layers, read and compile them, and get conditions ready.
 * A PolicyError (with file, line and column for every problem) means nothing was loaded.
 */
export async function loadPolicy(
  options: LayerOptions & ConditionLimits & { trust?: TrustCheck } = {},
): Promise<CompiledPolicy> {
  const entries = discoverPolicyFiles(options);
  const trust = options.trust ?? userTrust(options);
  if (!entries.some((e) => e.layer === 'managed'))
    return withConditions(loadPolicyFiles(entries, { trust }), options);
  // A managed file may name a signed policy bundle (src/bundle): pulled, kept, verified.
  const [{ BundleSource, loadWithBundles }, { bundleStateDir }] = await Promise.all([
    import('../bundle/source.js'),
    import('../bundle/pull.js'),
  ]);
  const source = new BundleSource({
    dir: bundleStateDir(options.env ?? process.env, options.home ?? os.homedir()),
    ...(options.managedOwner !== undefined && { owner: options.managedOwner }),
  });
  const policy = await loadWithBundles(source, () =>
    loadPolicyFiles(entries, { trust, bundle: source.reader }),
  );
  return withConditions(policy, options);
}

/** The trust the user recorded with `toolgate trust` (trust.ts), for the home and environment given. */
export function userTrust(options: { env?: NodeJS.ProcessEnv; home?: string } = {}): TrustCheck {
  return trustCheckOf(readTrustStore(trustStorePath(options.env ?? process.env, options.home)).store);
}

/**
 * A policy from text (YAML or JSON), e.g. for tests and embedding; `/x` anchors and relative
 * `extends` paths are relative to `root`. `extends` is followed as a policy file's is: a text
 * that says `extends: builtin:default` and got none of the default's deny rules would allow
 * what its author meant to deny.
 */
export async function policyFromText(
  text: string,
  options: { source?: string; layer?: Layer; root?: string } & ConditionLimits = {},
): Promise<CompiledPolicy> {
  const layer = options.layer ?? 'cli';
  const root = options.root ?? process.cwd();
  const file = parsePolicyText(text, options.source ?? 'inline', layer, root);
  const extended = readPolicyLayers(
    file.extends.map((ext) =>
      ext.startsWith('builtin:')
        ? { file: ext, layer: 'builtin' as const }
        : { file: path.resolve(root, ext), layer },
    ),
    parsePolicyText,
  ).map((f) => ({ ...f, tests: [] }));
  return withConditions(compilePolicy([file, ...extended]), options);
}

async function withConditions(policy: CompiledPolicy, limits: ConditionLimits): Promise<CompiledPolicy> {
  if (policy.hasConditions) policy.conditions = await prepareConditions(policy, limits);
  return policy;
}
