/**
 * A signed policy bundle: the policy files a fleet runs, a manifest (name, version, when it was
 * issued, until when it may be used, each file's sha256) and an Ed25519 signature over the
 * manifest. One JSON file, so a reviewer reads it with `jq` and the guard parses it without an
 * archive reader (no tar: no paths, links or modes from the archive to get wrong).
 *
 * Opening a bundle is pure: its text, the public key and the time in, the verified files or
 * the reason they cannot be used out. Every way it can fail is a `BundleProblem` kind, so the
 * caller (policy loading, `toolgate bundle verify`) fails closed with a sentence, never
 * quietly with an older or partial policy.
 */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { canonicalize } from '../audit/canonical.js';

export const BUNDLE_FORMAT = 1;

/** Domain separation: a bundle signature can never be taken for a signature over anything else. */
const SIGNED_PREFIX = 'toolgate policy bundle v1\n';

export interface BundleManifest {
  /** What the bundle is, e.g. "acme-fleet". */
  readonly name: string;
  /** The publisher's revision of it, e.g. "2026-12-02.1". */
  readonly version: string;
  /** When it was built (ISO 8601); a newer one never gives way to an older one. */
  readonly issued: string;
  /** After this instant (ISO 8601) the bundle is refused: a stolen old bundle stops working. */
  readonly notAfter: string;
  /** The files loaded as policy layers, highest first (the others are reached by `extends`). */
  readonly policies: readonly string[];
  /** Every file in the bundle: its path (relative, `/`-separated) and sha256 (hex). */
  readonly files: readonly { readonly path: string; readonly sha256: string }[];
}

export interface Bundle {
  readonly toolgateBundle: typeof BUNDLE_FORMAT;
  readonly manifest: BundleManifest;
  /** The files' text by path. */
  readonly files: Readonly<Record<string, string>>;
  /** `keyId` names the key that signed (keyIdOf), so a wrong key is told apart from a forgery. */
  readonly signature: { readonly alg: 'ed25519'; readonly keyId: string; readonly sig: string };
}

/** A verified bundle: what policy loading reads. */
export interface OpenedBundle {
  readonly manifest: BundleManifest;
  readonly files: ReadonlyMap<string, string>;
  /** `name@version`: how rule sources and decisions name it. */
  readonly id: string;
}

export type BundleProblemKind =
  | 'not-a-bundle'
  | 'newer-format'
  | 'wrong-key'
  | 'bad-signature'
  | 'tampered'
  | 'expired';

export type BundleOpen =
  | { ok: true; bundle: OpenedBundle }
  | { ok: false; kind: BundleProblemKind; message: string };

export function signedBytes(manifest: BundleManifest): Buffer {
  return Buffer.from(SIGNED_PREFIX + canonicalize(manifest));
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The first 16 hex digits of the sha256 of the public key's DER form. */
export function keyIdOf(key: KeyObject): string {
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  return createHash('sha256')
    .update(pub.export({ type: 'spki', format: 'der' }))
    .digest('hex')
    .slice(0, 16);
}

/**
 * A path inside a bundle: relative, `/`-separated, normalised, no `..`, no empty or dot
 * segments, no NUL or backslash. Undefined when it is one.
 */
export function badBundlePath(p: string): string | undefined {
  if (p === '') return 'is empty';
  if (p.startsWith('/')) return 'is absolute';
  if (/[\0\\]/.test(p)) return 'holds a NUL or a backslash';
  if (p.split('/').some((s) => s === '' || s === '.' || s === '..'))
    return 'has an empty, "." or ".." segment';
  return undefined;
}

const HEX64 = /^[0-9a-f]{64}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Checks a bundle's text: its shape, that `publicKey` signed its manifest, that every file is
 * the one the manifest names (and no other), and that `now` is not after its `notAfter`.
 */
export function openBundle(text: string, publicKey: KeyObject, now: Date = new Date()): BundleOpen {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, kind: 'not-a-bundle', message: 'not JSON' };
  }
  const shape = shapeProblem(data);
  if (shape !== undefined) return shape;
  const b = data as Bundle;
  const expected = keyIdOf(publicKey);
  if (b.signature.keyId !== expected) {
    return {
      ok: false,
      kind: 'wrong-key',
      message: `signed by key ${b.signature.keyId}, not by the configured key ${expected}`,
    };
  }
  const good = verify(null, signedBytes(b.manifest), publicKey, Buffer.from(b.signature.sig, 'base64'));
  if (!good) {
    return {
      ok: false,
      kind: 'bad-signature',
      message: `the signature does not verify with key ${expected}: the manifest was altered or forged`,
    };
  }
  const files = new Map<string, string>();
  for (const f of b.manifest.files) {
    const body = Object.hasOwn(b.files, f.path) ? b.files[f.path] : undefined;
    if (typeof body !== 'string')
      return { ok: false, kind: 'tampered', message: `${f.path} is in the manifest but not in the bundle` };
    if (sha256Hex(body) !== f.sha256)
      return { ok: false, kind: 'tampered', message: `${f.path} is not the file the manifest signed` };
    files.set(f.path, body);
  }
  const extra = Object.keys(b.files).find((p) => !files.has(p));
  if (extra !== undefined)
    return { ok: false, kind: 'tampered', message: `${extra} is in the bundle but not in its manifest` };
  if (now.getTime() > Date.parse(b.manifest.notAfter)) {
    return {
      ok: false,
      kind: 'expired',
      message: `${b.manifest.name}@${b.manifest.version} expired at ${b.manifest.notAfter}`,
    };
  }
  return {
    ok: true,
    bundle: { manifest: b.manifest, files, id: `${b.manifest.name}@${b.manifest.version}` },
  };
}

/** Shape only, by hand: the hook opens a bundle on every call and loads no zod for it. */
function shapeProblem(data: unknown): BundleOpen | undefined {
  const bad = (message: string): BundleOpen => ({ ok: false, kind: 'not-a-bundle', message });
  if (!isObject(data)) return bad('not a JSON object');
  if (typeof data.toolgateBundle === 'number' && data.toolgateBundle > BUNDLE_FORMAT)
    return {
      ok: false,
      kind: 'newer-format',
      message: `format ${data.toolgateBundle}, written by a newer toolgate`,
    };
  if (data.toolgateBundle !== BUNDLE_FORMAT) return bad('no "toolgateBundle": 1');
  const m = data.manifest;
  if (!isObject(m)) return bad('no manifest');
  for (const k of ['name', 'version'] as const)
    if (typeof m[k] !== 'string' || m[k] === '' || /[\s@]/.test(m[k] as string))
      return bad(`manifest.${k} must be a word without spaces or "@"`);
  for (const k of ['issued', 'notAfter'] as const)
    if (typeof m[k] !== 'string' || !ISO.test(m[k] as string) || Number.isNaN(Date.parse(m[k] as string)))
      return bad(`manifest.${k} must be an ISO 8601 UTC time`);
  if (!Array.isArray(m.files) || m.files.length === 0) return bad('manifest.files must list the files');
  const paths = new Set<string>();
  for (const f of m.files) {
    if (!isObject(f) || typeof f.path !== 'string' || typeof f.sha256 !== 'string' || !HEX64.test(f.sha256))
      return bad('manifest.files: each is {path, sha256}');
    const why = badBundlePath(f.path);
    if (why !== undefined) return bad(`manifest.files: ${JSON.stringify(f.path)} ${why}`);
    if (paths.has(f.path)) return bad(`manifest.files: ${f.path} twice`);
    paths.add(f.path);
  }
  if (!Array.isArray(m.policies) || m.policies.length === 0) return bad('manifest.policies must name a file');
  for (const p of m.policies)
    if (typeof p !== 'string' || !paths.has(p))
      return bad(`manifest.policies: ${String(p)} is not a file of it`);
  if (!isObject(data.files)) return bad('no files');
  const s = data.signature;
  if (!isObject(s) || s.alg !== 'ed25519' || typeof s.keyId !== 'string' || typeof s.sig !== 'string')
    return bad('no ed25519 signature');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(s.sig)) return bad('the signature is not base64');
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
