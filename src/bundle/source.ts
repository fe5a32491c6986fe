/**
 * Policy loading's view of bundles: `reader` answers readPolicyLayers (layer-files.ts) from the
 * copies on disk, synchronously, and notes which bundles are due for a pull; `loadWithBundles`
 * pulls those and loads again. So a call whose copy is fresh loads once and asks no server,
 * and only a call every `pollSeconds` waits for one.
 *
 * Fail closed: a bundle that was never obtained, whose copy does not verify with the key the
 * managed file names, or that has expired refuses the whole policy (every call is denied with
 * that reason). A server that is down, or that sends something that does not verify, leaves
 * the last known good copy in use, with a note on every call until a pull succeeds.
 */
import type { KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { verifyingKeyOf } from '../audit/checkpoint.js';
import type { BundleInUse } from '../policy/compile.js';
import { ownershipProblem } from '../policy/managed.js';
import { type BundleFiles, type BundleSetting, PolicyError, type PolicyFile } from '../policy/policy-file.js';
import { type BundleCopy, copyOf, pullBundle, readCopy, readState } from './pull.js';

export interface BundleSourceOptions {
  /** Where the copies live (pull.ts bundleStateDir). */
  readonly dir: string;
  readonly now?: () => Date;
  /** How long one pull may take; then the copy on disk is used (default 5 s). */
  readonly timeoutMs?: number;
  /** The uid a public key file must belong to, as the managed files must (default root). */
  readonly owner?: number;
}

interface Due {
  readonly setting: BundleSetting;
  readonly key: KeyObject;
  readonly copy: BundleCopy;
}

/** After a failed pull, the next is tried this soon at most, however long pollSeconds is. */
const RETRY_MS = 30_000;

export class BundleSource {
  /** Bundles whose copy is missing or older than pollSeconds, and not pulled by this process yet. */
  readonly due = new Map<string, Due>();
  /** What the caller should say on stderr: pulls that failed, copies in use in their place. */
  readonly notes: string[] = [];
  /** The bundles the last load used (compile.ts BundleInUse). */
  readonly used: BundleInUse[] = [];
  private readonly pulled = new Set<string>();
  private readonly now: () => Date;

  constructor(private readonly options: BundleSourceOptions) {
    this.now = options.now ?? (() => new Date());
  }

  readonly reader = (setting: BundleSetting, namedBy: PolicyFile): BundleFiles => {
    const refuse = (message: string): never => {
      throw new PolicyError([{ file: namedBy.source, message: `policy bundle ${setting.url}: ${message}` }]);
    };
    let key: KeyObject;
    try {
      key = publicKeyOf(setting.publicKey, namedBy.source, this.options.owner ?? 0);
    } catch (err) {
      return refuse(err instanceof Error ? err.message : String(err));
    }
    const copy = copyOf(this.options.dir, setting.url);
    const now = this.now();
    const opened = readCopy(copy, key, now);
    const state = readState(copy);
    if (!this.pulled.has(setting.url)) {
      const wait =
        state.error === undefined
          ? setting.pollSeconds * 1000
          : Math.min(setting.pollSeconds * 1000, RETRY_MS);
      if (!opened?.ok || state.checkedAt === undefined || now.getTime() - state.checkedAt >= wait)
        this.due.set(setting.url, { setting, key, copy });
    }
    const failed = state.error === undefined ? '' : ` (the last pull failed: ${state.error})`;
    if (opened === undefined) return refuse(`no verified bundle was ever obtained${failed}`);
    if (!opened.ok)
      return refuse(
        `the copy on disk (${copy.bundleFile}) cannot be used: ${opened.kind}: ${opened.message}${failed}`,
      );
    if (state.error !== undefined)
      this.notes.push(
        `policy bundle ${setting.url}: the last pull failed (${state.error}); using the last known good ${opened.bundle.id}, valid until ${opened.bundle.manifest.notAfter}`,
      );
    const b = opened.bundle;
    this.used.push({
      id: b.id,
      url: setting.url,
      notAfter: b.manifest.notAfter,
      pollSeconds: setting.pollSeconds,
    });
    return { id: b.id, policies: b.manifest.policies, files: b.files };
  };

  /** Pulls every bundle that is due, each once per process. */
  async pullDue(): Promise<void> {
    const due = [...this.due.values()];
    this.due.clear();
    await Promise.all(
      due.map(async (d) => {
        this.pulled.add(d.setting.url);
        await pullBundle(d.setting.url, d.copy, d.key, this.now(), this.options.timeoutMs ?? 5000);
      }),
    );
  }
}

/**
 * Loads with `load`, and when a bundle was due, pulls it and loads again: the second load
 * decides (a failed pull is in the copy's state, and so in its reason or note).
 */
export async function loadWithBundles<T>(source: BundleSource, load: () => T | Promise<T>): Promise<T> {
  let first: { value: T } | { error: unknown };
  try {
    first = { value: await load() };
  } catch (error) {
    first = { error };
  }
  if (source.due.size === 0) {
    if ('error' in first) throw first.error;
    return first.value;
  }
  source.notes.length = 0;
  source.used.length = 0;
  await source.pullDue();
  return load();
}

/**
 * The managed file's `publicKey`: PEM text, or a PEM file (relative to the managed file) that
 * must be as safe from others as the managed file is: whoever could replace the key could sign.
 */
function publicKeyOf(text: string, namedBy: string, owner: number): KeyObject {
  if (text.trimStart().startsWith('-----BEGIN')) return verifyingKeyOf(text);
  const file = path.resolve(path.dirname(namedBy), text);
  const bad = ownershipProblem(file, path.dirname(file), owner);
  if (bad !== undefined)
    throw new Error(`publicKey ${file}: ${bad.message.replace(/^managed policy refused: /, '')}`);
  return verifyingKeyOf(fs.readFileSync(file, 'utf8'));
}
