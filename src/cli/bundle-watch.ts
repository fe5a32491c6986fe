import type { BundleInUse, CompiledPolicy } from '../policy/compile.js';
import { PolicyLoadFailed } from './policy-args.js';

/**
 * A long-lived process (`serve`) loads its policy once, so its bundles (src/bundle) need a
 * clock of their own: `current` refuses a policy whose bundle has expired (every call then
 * answers deny with that reason, as a hook process would), and `schedule` reloads it every
 * pollSeconds and when a bundle expires, so a fresh bundle is taken up without a SIGHUP.
 */
export function expiredBundle(policy: CompiledPolicy, now: Date): BundleInUse | undefined {
  return policy.bundles?.find((b) => now.getTime() > Date.parse(b.notAfter));
}

export function current(policy: CompiledPolicy, now = new Date()): CompiledPolicy {
  const expired = expiredBundle(policy, now);
  if (expired !== undefined)
    throw new PolicyLoadFailed(
      `the policy was refused, nothing is allowed: policy bundle ${expired.url}: ${expired.id} expired at ${expired.notAfter}, and no fresh one was pulled`,
    );
  return policy;
}

/** When to reload next: the nearest poll or expiry of the policy's bundles; undefined without any. */
export function nextReloadMs(policy: CompiledPolicy, now: Date): number | undefined {
  const bundles = policy.bundles ?? [];
  if (bundles.length === 0) return undefined;
  const poll = Math.min(...bundles.map((b) => b.pollSeconds * 1000));
  const expiry = Math.min(...bundles.map((b) => Date.parse(b.notAfter) - now.getTime() + 1));
  return Math.max(100, expiry > 0 ? Math.min(poll, expiry) : poll);
}

/** setTimeout's longest delay (about 24.8 days): a later expiry is waited for in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * Calls `expired` once the earliest of the policy's bundles expires (a process that cannot
 * reload, `mcp-proxy`, stops then rather than decide on). Returns what cancels it.
 */
export function atExpiry(policy: CompiledPolicy, expired: (b: BundleInUse) => void): () => void {
  const bundles = policy.bundles ?? [];
  if (bundles.length === 0) return () => {};
  const first = bundles.reduce((a, b) => (Date.parse(b.notAfter) < Date.parse(a.notAfter) ? b : a));
  let timer: NodeJS.Timeout | undefined;
  const wait = (): void => {
    const ms = Date.parse(first.notAfter) - Date.now() + 1;
    if (ms <= 0) expired(first);
    else timer = setTimeout(wait, Math.min(ms, MAX_DELAY_MS)).unref();
  };
  wait();
  return () => clearTimeout(timer);
}
