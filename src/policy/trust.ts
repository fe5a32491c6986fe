import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PolicyFile } from './policy-file.js';

/**
 * Trust for the policy files a workspace carries (`.toolgate/policy.yaml`, `policy.local.yaml`
 * and what they extend): a cloned repository must not switch the guard off. Such a file may add
 * deny and ask rules at once; everything else it says (allow rules, mode, `extends`, workspace
 * roots, sandbox loosening, auto mode's classifier, `when:` conditions) takes effect only once
 * the user has trusted that exact content with `toolgate trust`, which records its sha256 in the
 * user's config. A changed file is untrusted again. (Codex trusts hooks the same way, by hash
 * in the user's config; an untrusted one there is skipped, here it is held to what only tightens.)
 */
export type TrustState = 'trusted' | 'untrusted' | 'changed';

/** Whether a workspace file's text is trusted; `file` is an absolute path. */
export type TrustCheck = (file: string, text: string) => TrustState;

export interface TrustStore {
  readonly version: 1;
  /** Absolute path -> sha256 of the trusted text. */
  readonly files: Readonly<Record<string, string>>;
}

/** Which layers hold files that come with the workspace, and so need trust. */
export function needsTrust(layer: PolicyFile['layer']): boolean {
  return layer === 'project' || layer === 'local';
}

/** `$XDG_CONFIG_HOME/toolgate/trusted.json`, else `~/.config/toolgate/trusted.json`. */
export function trustStorePath(env: NodeJS.ProcessEnv, home = os.homedir()): string {
  const configHome = env.XDG_CONFIG_HOME ?? path.join(home, '.config');
  return path.join(configHome, 'toolgate', 'trusted.json');
}

/**
 * The store; a missing one trusts nothing, and so does one that cannot be read or is not what
 * `toolgate trust` writes (the closed state: workspace files only tighten), with `problem` saying why.
 */
export function readTrustStore(file: string): { store: TrustStore; problem?: string } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { store: { version: 1, files: {} } };
    return { store: { version: 1, files: {} }, problem: `${file}: ${(err as Error).message}` };
  }
  try {
    const data = JSON.parse(text) as Partial<TrustStore>;
    if (
      data?.version !== 1 ||
      data.files === null ||
      typeof data.files !== 'object' ||
      Array.isArray(data.files)
    )
      throw new Error('not a toolgate trust store (version 1)');
    const files: Record<string, string> = {};
    for (const [k, v] of Object.entries(data.files)) {
      if (path.isAbsolute(k) && typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) files[k] = v;
    }
    return { store: { version: 1, files } };
  } catch (err) {
    return { store: { version: 1, files: {} }, problem: `${file}: ${(err as Error).message}` };
  }
}

/** A TrustCheck over a store (hashing only the files the store names). */
export function trustCheckOf(store: TrustStore): TrustCheck {
  return (file, text) => {
    const recorded = store.files[file];
    if (recorded === undefined) return 'untrusted';
    return sha256(text) === recorded ? 'trusted' : 'changed';
  };
}

/** Records the files' current text as trusted (creating the store 0600 in a 0700 directory). */
export function recordTrust(storeFile: string, entries: readonly { file: string; text: string }[]): void {
  const { store } = readTrustStore(storeFile);
  const files = { ...store.files };
  for (const e of entries) files[e.file] = sha256(e.text);
  writeStore(storeFile, { version: 1, files });
}

export function removeTrust(storeFile: string, paths: readonly string[]): string[] {
  const { store } = readTrustStore(storeFile);
  const files = { ...store.files };
  const removed = paths.filter((p) => p in files);
  for (const p of removed) delete files[p];
  writeStore(storeFile, { version: 1, files });
  return removed;
}

function writeStore(storeFile: string, store: TrustStore): void {
  fs.mkdirSync(path.dirname(storeFile), { recursive: true, mode: 0o700 });
  const tmp = `${storeFile}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, storeFile);
}

export function sha256(text: string): string {
  // Loaded on first use: most hook calls have no workspace file in the store to hash.
  const { createHash } = process.getBuiltinModule('node:crypto');
  return createHash('sha256').update(text).digest('hex');
}

/**
 * An untrusted file cut down to what only tightens: deny and ask rules (a `when:` is code, so
 * until trusted the rule holds without it), sandbox deny lists, guards, a lock and its tests. `notes`
 * says what was set aside, for the Decision and stderr.
 */
export function restrictUntrusted(file: PolicyFile, state: Exclude<TrustState, 'trusted'>): PolicyFile {
  const ignored: string[] = [];
  const allows = file.rules.filter((r) => r.kind === 'allow').length;
  if (allows > 0) ignored.push(`${allows} allow rule${allows === 1 ? '' : 's'}`);
  if (file.rules.some((r) => r.kind !== 'allow' && r.when !== undefined))
    ignored.push('when: conditions (their deny and ask rules hold without them)');
  if (file.mode !== undefined) ignored.push(`mode ${file.mode}`);
  if (file.extends.length > 0) ignored.push(`extends ${file.extends.join(', ')}`);
  if (file.roots !== undefined || file.additionalDirectories !== undefined)
    ignored.push('workspace directories');
  const sb = file.sandbox;
  if (sb !== undefined && Object.keys(sb).some((k) => k !== 'write' && k !== 'read'))
    ignored.push('sandbox settings');
  if (sb?.write?.allow !== undefined || sb?.read?.allow !== undefined) ignored.push('sandbox allow lists');
  if (file.auto !== undefined) ignored.push('auto mode settings');
  const sandbox = {
    ...(sb?.write?.deny ? { write: { deny: sb.write.deny } } : {}),
    ...(sb?.read?.deny ? { read: { deny: sb.read.deny } } : {}),
  };
  const what = state === 'changed' ? 'changed since it was trusted' : 'not trusted';
  const note =
    `${file.source} is ${what}: only its deny and ask rules apply` +
    (ignored.length > 0 ? `; ignored: ${ignored.join(', ')}` : '') +
    ` (toolgate trust ${file.source} trusts this content)`;
  return {
    source: file.source,
    layer: file.layer,
    form: file.form,
    policyRoot: file.policyRoot,
    rules: file.rules.filter((r) => r.kind !== 'allow').map(({ when: _when, ...rule }) => rule),
    ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
    ...(file.guards ? { guards: file.guards } : {}),
    // a lock only tightens outside the managed layer (disableBypass of Claude Code's settings)
    ...(file.lock ? { lock: file.lock } : {}),
    tests: file.tests,
    extends: [],
    untrusted: note,
  };
}
