import { type KeyObject, sign } from 'node:crypto';
import { canonicalize } from '../audit/canonical.js';
import {
  BUNDLE_FORMAT,
  type Bundle,
  type BundleManifest,
  badBundlePath,
  keyIdOf,
  sha256Hex,
  signedBytes,
} from './format.js';

export interface BundleInput {
  readonly name: string;
  readonly version: string;
  readonly issued: Date;
  readonly notAfter: Date;
  /** Every file, by its path in the bundle. */
  readonly files: ReadonlyMap<string, string>;
  /** The files loaded as layers, highest first. */
  readonly policies: readonly string[];
  /** The Ed25519 private key that signs the manifest. */
  readonly key: KeyObject;
}

/** The bundle's text (canonical JSON, one line): what `toolgate bundle build` writes. */
export function buildBundle(input: BundleInput): string {
  if (input.notAfter.getTime() <= input.issued.getTime())
    throw new Error(`it would expire (${input.notAfter.toISOString()}) before it is issued`);
  for (const p of input.files.keys()) {
    const why = badBundlePath(p);
    if (why !== undefined) throw new Error(`the path ${JSON.stringify(p)} ${why}`);
  }
  const paths = [...input.files.keys()].sort();
  const manifest: BundleManifest = {
    name: input.name,
    version: input.version,
    issued: input.issued.toISOString(),
    notAfter: input.notAfter.toISOString(),
    policies: [...input.policies],
    files: paths.map((path) => ({ path, sha256: sha256Hex(input.files.get(path)!) })),
  };
  const bundle: Bundle = {
    toolgateBundle: BUNDLE_FORMAT,
    manifest,
    files: Object.fromEntries(paths.map((p) => [p, input.files.get(p)!])),
    signature: {
      alg: 'ed25519',
      keyId: keyIdOf(input.key),
      sig: sign(null, signedBytes(manifest), input.key).toString('base64'),
    },
  };
  return `${canonicalize(bundle)}\n`;
}

/**
 * `30d`, `12h`, `90m` after `from`, or an ISO 8601 time: when a bundle stops being usable.
 * Undefined when the text is neither.
 */
export function expiryOf(text: string, from: Date): Date | undefined {
  const m = /^(\d+)([dhm])$/.exec(text);
  if (m) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[m[2] as 'd' | 'h' | 'm'];
    return new Date(from.getTime() + Number(m[1]) * unit);
  }
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : new Date(t);
}
