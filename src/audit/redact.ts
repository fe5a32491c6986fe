/**
 * Optional redaction of secrets before a record is written: tokens, keys, passwords,
 * `Authorization` headers, AWS keys, private key blocks, and `NAME=value` assignments (and
 * `--password=...` style flags, `"password": "..."` members, URL passwords) whose name looks
 * secret. Each secret is replaced by a marker carrying the first 16 hex digits of its sha256,
 * so an auditor holding a suspected secret can confirm it was used without the log holding it.
 * That also means a low-entropy secret (a short password) can be guessed offline from its
 * marker: redaction protects keys and tokens, not weak passwords.
 *
 * Replay caveat: a redacted record replays against the redacted input. A rule whose pattern
 * mentions the secret text itself, or one that depends on the exact value that was replaced
 * (a path, a URL password), may decide differently than it did live. The record lists what
 * was redacted (`redacted`, JSON pointers), so replay can flag those records rather than
 * report a silent flip.
 *
 * Redaction is a best-effort filter: it catches the common shapes above and never touches
 * anything else, so that replay of ordinary records stays exact.
 */

import { pointer } from './canonical.js';
import { sha256Hex } from './chain.js';

export function marker(secret: string): string {
  return `[redacted sha256:${sha256Hex(secret).slice(0, 16)}]`;
}

// A marker left by an earlier rule counts as one value, so it is not redacted again.
const QUOTED_OR_BARE = String.raw`(\[redacted sha256:[0-9a-f]{16}\]|"(?:[^"\\]|\\.)*"|'[^']*'|[^\s'"\x60;&|()<>]+)`;

/** Names of variables, flags and members that hold secrets. */
export function isSecretName(name: string): boolean {
  const ws = words(name);
  // TOKEN_FILE, --password-stdin, ACCESS_KEY_ID: they name where a secret is, or its id.
  if (ws.length > 1 && NOT_A_SECRET_LAST_WORD.has(ws[ws.length - 1]!)) return false;
  return STRONG_NAME.test(name) || ws.some((w) => WEAK_WORDS.has(w));
}
const NOT_A_SECRET_LAST_WORD = new Set([
  'file',
  'path',
  'dir',
  'env',
  'var',
  'name',
  'id',
  'stdin',
  'length',
  'type',
]);
// Substrings that mean "secret" wherever they occur (PGPASSWORD, AWS_SECRET_ACCESS_KEY).
const STRONG_NAME = /pass(?:word|wd|phrase)|secret|credential|api[_-]?key|private[_-]?key|access[_-]?key/i;
// Words that mean "secret" only as a whole word: TOKEN but not TOKENIZER, AUTH but not AUTHOR.
const WEAK_WORDS = new Set(['token', 'pass', 'pw', 'auth', 'authorization', 'cookie', 'apikey']);
function words(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.toLowerCase())
    .filter((w) => w !== '');
}

type Rule = { pattern: RegExp; replace: (match: string, ...groups: string[]) => string };

/**
 * Keeps quotes around a value and redacts what is inside them. In shell text an unquoted or
 * double-quoted `$VAR`, `${VAR}` or `$(cmd)` names where the secret lives rather than being
 * it, and is kept so that replay sees the command as it was; single quotes are literal.
 * In config text only a `${VAR}` template is kept.
 */
function redactValue(value: string, context: 'shell' | 'config' | 'json'): string {
  const q = value[0];
  const quoted = (q === '"' || q === "'") && value.length >= 2 && value.endsWith(q);
  const inner = quoted ? value.slice(1, -1) : value;
  if (inner === '' || MARKER.test(inner)) return value;
  if (context === 'shell' && q !== "'" && inner.startsWith('$')) return value;
  if (context === 'config' && inner.startsWith('${')) return value;
  return quoted ? `${q}${marker(inner)}${q}` : marker(inner);
}
/** Text another rule already redacted. */
const MARKER = /\[redacted sha256:[0-9a-f]{16}\]/;

const RULES: Rule[] = [
  {
    // A whole private key, or from BEGIN to the end of the text when the END line is missing.
    pattern:
      /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|[\s\S]*$)/g,
    replace: (m) => marker(m),
  },
  {
    pattern:
      /\b((?:proxy-)?authorization)(["']?\s*[:=]\s*["']?)(?!(?:[A-Za-z]+\s+)?\[redacted )((?:bearer|basic|token|digest|negotiate)\s+)?([^\s'"\\,;}]+)/gi,
    replace: (_m, name, sep, scheme, cred) => `${name}${sep}${scheme ?? ''}${marker(cred!)}`,
  },
  {
    pattern: /\b(x-api-key|api-key|x-auth-token|private-token|cookie)(\s*:\s*)(?!\[redacted )([^\r\n'"]+)/gi,
    replace: (_m, name, sep, value) => `${name}${sep}${marker(value!)}`,
  },
  // Token formats that are secret wherever they appear.
  ...[
    /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}(?![A-Za-z0-9])/g, // AWS access key ids
    /\bgh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9_])/g, // GitHub
    /\bgithub_pat_[A-Za-z0-9_]{22,255}/g,
    /\bglpat-[A-Za-z0-9_-]{20,}/g, // GitLab
    /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, // Slack
    /\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/g, // Anthropic, OpenAI
    /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g, // Stripe
    /\bAIza[0-9A-Za-z_-]{35}/g, // Google API keys
    /\bnpm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g,
    /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, // JWTs
  ].map((pattern): Rule => ({ pattern, replace: (m) => marker(m) })),
  {
    // user:password@ in URLs.
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:@/'"]+:)([^\s@/'"]+)@/gi,
    replace: (_m, head, password) => `${head}${marker(password!)}@`,
  },
  {
    // NAME=value (environment assignments, .env lines, `export`), when NAME looks secret.
    pattern: new RegExp(`(?<![A-Za-z0-9_$])([A-Za-z_][A-Za-z0-9_]*)=${QUOTED_OR_BARE}`, 'g'),
    replace: (m, name, value) => (isSecretName(name!) ? `${name}=${redactValue(value!, 'shell')}` : m),
  },
  {
    // --password=value, --token value
    pattern: new RegExp(
      String.raw`(?<![A-Za-z0-9_-])(--?[A-Za-z][A-Za-z0-9-]*)(=|[ \t]+)(?!-)${QUOTED_OR_BARE}`,
      'g',
    ),
    // (?!-): a flag that follows is not a value, and must stay free to match on its own.
    replace: (m, flag, sep, value) =>
      isSecretName(flag!.replace(/^-+/, '')) ? `${flag}${sep}${redactValue(value!, 'shell')}` : m,
  },
  {
    // "password": "value" inside JSON or YAML-ish text.
    pattern: /(["']?)([A-Za-z_][A-Za-z0-9_-]*)\1(\s*:\s*)("(?:[^"\\]|\\.)*"|'[^']*')/g,
    replace: (m, q, name, sep, value) =>
      isSecretName(name!) ? `${q}${name}${q}${sep}${redactValue(value!, 'json')}` : m,
  },
  {
    // password: value, unquoted, on a line of its own (YAML, INI-like config in a Write).
    pattern: /^([ \t]*)([A-Za-z_][A-Za-z0-9_-]*)([ \t]*:[ \t]+)([^\s#'"][^\r\n#]*?)([ \t]*)$/gm,
    replace: (m, indent, name, sep, value, tail) =>
      isSecretName(name!) ? `${indent}${name}${sep}${redactValue(value!, 'config')}${tail}` : m,
  },
];

export function redactText(text: string): string {
  let out = text;
  for (const rule of RULES) {
    rule.pattern.lastIndex = 0;
    out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: unknown[]) => string);
  }
  return out;
}

export interface Redacted<T> {
  value: T;
  /** JSON pointers of the strings that changed. */
  pointers: string[];
}

/**
 * Redacts every string of a JSON value. A member whose name looks secret (`password`,
 * `apiKey`, `token`) has its whole string value replaced, whatever it looks like.
 */
export function redactJson<T>(value: T, base: readonly string[] = []): Redacted<T> {
  const pointers: string[] = [];
  const walk = (v: unknown, path: string[], secretName: boolean): unknown => {
    if (typeof v === 'string') {
      const out = secretName && v !== '' && !MARKER.test(v) ? marker(v) : redactText(v);
      if (out !== v) pointers.push(pointer(path));
      return out;
    }
    if (Array.isArray(v)) return v.map((item, i) => walk(item, [...path, String(i)], secretName));
    if (typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [key, member] of Object.entries(v)) {
        Object.defineProperty(out, key, {
          value: walk(member, [...path, key], isSecretName(key)),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    // Anything else is left for canonicalize() to accept (numbers, booleans) or refuse.
    return v;
  };
  return { value: walk(value, [...base], false) as T, pointers };
}
