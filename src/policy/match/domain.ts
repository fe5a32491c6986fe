/**
 * WebFetch(domain:...): the host, case-insensitive, trailing dot ignored. `*.example.com`
 * matches subdomains at any depth but not the apex; a `*` anywhere else stays inside one label,
 * so `example.*` does not match `example.evil.com`.
 */
export function compileDomainPattern(pattern: string): (host: string) => boolean {
  const p = normalizeHost(pattern);
  if (p === '*') return () => true;
  if (p.startsWith('*.') && !p.slice(2).includes('*')) {
    const suffix = p.slice(1);
    return (host) => normalizeHost(host).endsWith(suffix);
  }
  const re = new RegExp(
    `^${p
      .split('*')
      .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^.]*')}$`,
  );
  return (host) => re.test(normalizeHost(host));
}

export function normalizeHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}

/** The host of a URL, or undefined when it is not an http(s) URL. */
export function hostOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    return normalizeHost(u.hostname.replace(/^\[|\]$/g, ''));
  } catch {
    return undefined;
  }
}
