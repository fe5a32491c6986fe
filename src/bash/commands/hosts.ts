import type { Word } from '../word.js';

/**
 * Where a network command connects, as the line shows it: the host of a URL, of `user@host`, of
 * `host:path`. A host is a word of its own; it is only known at run time when any character of
 * it (or anything before it that decides where it starts) is.
 */

/** How many characters at the start of the word's value the line shows. */
function knownLength(w: Word): number {
  return w.expansions.length === 0 ? w.value.length : (w.staticPrefix ?? 0);
}

/** The host at [start, end) of a word. */
export function hostSlice(w: Word, start: number, end: number): Word {
  const value = w.value.slice(start, end);
  if (end <= knownLength(w)) return { value, raw: value, expansions: [], dynamicStart: false };
  return { value, raw: w.raw, expansions: w.expansions, dynamicStart: true };
}

/** The whole word as a host only known at run time (its structure cannot be read). */
export function unknownHost(w: Word): Word {
  return {
    value: w.value,
    raw: w.raw,
    expansions: w.expansions.length > 0 ? w.expansions : ['variable'],
    dynamicStart: true,
  };
}

/** The host part of an authority `[user@]host[:port]` starting at `start`, ending at `end`. */
function authorityHost(w: Word, start: number, end: number): Word | undefined {
  const authority = w.value.slice(start, end);
  const at = authority.lastIndexOf('@');
  const hostStart = start + at + 1;
  const rest = w.value.slice(hostStart, end);
  let hostEnd: number;
  if (rest.startsWith('[')) {
    const close = rest.indexOf(']');
    hostEnd = close < 0 ? end : hostStart + close + 1;
  } else {
    const colon = rest.indexOf(':');
    hostEnd = colon < 0 ? end : hostStart + colon;
  }
  if (hostEnd <= hostStart) return hostEnd > knownLength(w) ? unknownHost(w) : undefined;
  return hostSlice(w, hostStart, hostEnd);
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//;

/**
 * The host of a URL operand. `schemeOptional`: a word without `scheme://` is a host and a path
 * (curl, wget, httpie read `evil.com/x` as `http://evil.com/x`). `file:` URLs have no host.
 */
export function urlHost(w: Word, schemeOptional: boolean): Word | undefined {
  const v = w.value;
  const known = knownLength(w);
  const m = SCHEME.exec(v);
  if (m === null && !schemeOptional) return known < v.length && known === 0 ? unknownHost(w) : undefined;
  const start = m === null ? 0 : m[0].length;
  if (start > known) return unknownHost(w);
  if (m && m[1]!.toLowerCase() === 'file') return undefined;
  const tail = v.slice(start);
  // The authority ends at `/`, `?` or `#` (RFC 3986, as curl, wget, git and Python read it), not
  // at a backslash as in a browser: `http://good.com\@evil.com/` connects to evil.com.
  const stop = tail.search(/[/?#]/);
  const end = stop < 0 ? v.length : start + stop;
  // A separator inside text only known at run time may not be one.
  if (end > known && stop >= 0 && start + stop >= known) return unknownHost(w);
  return authorityHost(w, start, end);
}

/** `[user@]host[:path]` (ssh, scp, rsync) or a URL with a scheme. */
export function userHost(w: Word): Word | undefined {
  if (SCHEME.test(w.value)) return urlHost(w, false);
  const v = w.value;
  const bracket = v.startsWith('[') || /@\[/.test(v);
  const colon = bracket ? v.indexOf(']:') + 1 || v.length : v.indexOf(':');
  const end = colon <= 0 ? v.length : colon;
  return authorityHost(w, 0, end);
}

/** An scp/rsync operand `[user@]host:path` (a colon before any slash) or `scheme://`: remote. */
export function remoteOperand(w: Word): Word | undefined {
  const v = w.value;
  if (SCHEME.test(v)) return urlHost(w, false);
  const colon = v.indexOf(':');
  const slash = v.indexOf('/');
  if (colon > 0 && (slash < 0 || colon < slash)) return userHost(w);
  // Only known at run time before any colon or slash: it may name a host.
  if (
    knownLength(w) < v.length &&
    (colon < 0 || colon >= knownLength(w)) &&
    (slash < 0 || slash >= knownLength(w))
  )
    return unknownHost(w);
  return undefined;
}

/**
 * A git repository operand: a URL (`https://`, `ssh://`, `git://`), or scp-like `user@host:path`.
 * A remote's name or a local path names no host here; `file://` and `ext::` (a command, not a
 * host) neither.
 */
export function gitRemoteHost(w: Word): Word | undefined {
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*::/.test(w.value)) return undefined;
  return remoteOperand(w);
}
