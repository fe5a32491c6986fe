/**
 * One bundle's copy on disk and its pull over HTTP. The copy is the last known good: the
 * exact bytes of the last bundle that verified, kept with the ETag it came with and when the
 * server was last asked (`STATE/toolgate/bundles/KEY.bundle` and `KEY.state.json`, KEY from
 * the URL). It is verified again whenever it is read, so a copy someone edited is refused,
 * not trusted for having been good once. Files are replaced atomically (temp file + rename):
 * many hook processes may pull at once, and a reader sees the old copy or the new one.
 *
 * What the copy cannot stop: whoever can write it can put back an older bundle signed with
 * the same key, until that one expires (`notAfter` bounds it), or delete it (then every call is
 * refused until a pull succeeds). The pull itself refuses a bundle issued before the copy's.
 */
import { createHash, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type BundleOpen, openBundle } from './format.js';

export { bundleStateDir } from './state-dir.js';

export interface BundleState {
  readonly etag?: string;
  /** When the server was last asked (ms since the epoch), whatever it answered. */
  readonly checkedAt?: number;
  /** What went wrong the last time, until a pull succeeds. */
  readonly error?: string;
}

export interface BundleCopy {
  readonly bundleFile: string;
  readonly stateFile: string;
}

export function copyOf(dir: string, url: string): BundleCopy {
  const key = createHash('sha256').update(url).digest('hex').slice(0, 24);
  return { bundleFile: path.join(dir, `${key}.bundle`), stateFile: path.join(dir, `${key}.state.json`) };
}

/** The copy on disk, verified now; undefined when there is none. */
export function readCopy(copy: BundleCopy, key: KeyObject, now: Date): BundleOpen | undefined {
  let text: string;
  try {
    text = fs.readFileSync(copy.bundleFile, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    return { ok: false, kind: 'not-a-bundle', message: `cannot read ${copy.bundleFile}: ${String(err)}` };
  }
  return openBundle(text, key, now);
}

export function readState(copy: BundleCopy): BundleState {
  try {
    const s = JSON.parse(fs.readFileSync(copy.stateFile, 'utf8')) as unknown;
    if (typeof s !== 'object' || s === null) return {};
    const { etag, checkedAt, error } = s as Record<string, unknown>;
    return {
      ...(typeof etag === 'string' && { etag }),
      ...(typeof checkedAt === 'number' && { checkedAt }),
      ...(typeof error === 'string' && { error }),
    };
  } catch {
    return {};
  }
}

export type PullResult =
  | { kind: 'new'; id: string }
  | { kind: 'unchanged' }
  | { kind: 'failed'; error: string };

/**
 * Asks the server for the bundle (If-None-Match: the copy's ETag, when the copy verifies) and
 * keeps what it sends only if it verifies, has not expired, and was not issued before the copy.
 * Records in the state what happened, so the next process knows when to ask again and why the
 * last pull failed.
 */
export async function pullBundle(
  url: string,
  copy: BundleCopy,
  key: KeyObject,
  now: Date,
  timeoutMs: number,
): Promise<PullResult> {
  const current = readCopy(copy, key, now);
  const state = readState(copy);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (current?.ok && state.etag !== undefined) headers['if-none-match'] = state.etag;
  const fail = (error: string): PullResult => {
    writeState(copy, {
      ...(state.etag !== undefined && { etag: state.etag }),
      checkedAt: now.getTime(),
      error,
    });
    return { kind: 'failed', error };
  };
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    body = await response.text();
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return fail(`cannot reach ${url}: ${cause ?? (err instanceof Error ? err.message : String(err))}`);
  }
  if (response.status === 304 && current?.ok) {
    writeState(copy, { ...(state.etag !== undefined && { etag: state.etag }), checkedAt: now.getTime() });
    return { kind: 'unchanged' };
  }
  if (response.status !== 200) return fail(`${url} answered HTTP ${response.status}`);
  const opened = openBundle(body, key, now);
  if (!opened.ok) return fail(`${url} sent a bundle that cannot be used: ${opened.kind}: ${opened.message}`);
  if (current?.ok && Date.parse(opened.bundle.manifest.issued) < Date.parse(current.bundle.manifest.issued))
    return fail(
      `${url} sent ${opened.bundle.id}, issued ${opened.bundle.manifest.issued}, before the copy on disk (${current.bundle.id}, issued ${current.bundle.manifest.issued}): refused as a rollback`,
    );
  try {
    fs.mkdirSync(path.dirname(copy.bundleFile), { recursive: true, mode: 0o700 });
    replaceFile(copy.bundleFile, body);
  } catch (err) {
    return fail(
      `cannot keep ${opened.bundle.id} in ${copy.bundleFile}: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const etag = response.headers.get('etag');
  writeState(copy, { ...(etag !== null && { etag }), checkedAt: now.getTime() });
  return { kind: 'new', id: opened.bundle.id };
}

function writeState(copy: BundleCopy, state: BundleState): void {
  try {
    fs.mkdirSync(path.dirname(copy.stateFile), { recursive: true, mode: 0o700 });
    replaceFile(copy.stateFile, `${JSON.stringify(state)}\n`);
  } catch {
    // The state only saves requests; losing it costs the next process a pull, never a decision.
  }
}

function replaceFile(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  try {
    fs.renameSync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
