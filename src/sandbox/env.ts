import { gitHardeningEnv } from './git-hardening-env.js';

/**
 * The environment a sandboxed process sees: an allow list, never the caller's whole
 * environment, because environments are where credentials live.
 *
 * - The baseline below is always passed. It holds what ordinary programs need to behave
 *   (find programs, a home, a locale, a terminal type, a temp dir) and no secrets:
 *   PATH, HOME, LANG, LANGUAGE, LC_*, TERM, TZ, USER, LOGNAME, SHELL, TMPDIR.
 * - `profile.envAllow` adds names; an entry ending in `*` admits a prefix (`NODE_*`), and `*`
 *   alone admits every name.
 * - Git's settings that keep it from running programs (git-hardening-env.ts) are carried
 *   when the caller set them, so an agent's hardened git stays hardened in the jail.
 * - A name that looks like a secret (see SECRET_PATTERNS) is dropped even when a prefix or `*`
 *   admits it; only an entry naming it exactly passes it. The baseline cannot smuggle one in.
 */
export const BASELINE_ENV: readonly string[] = [
  'PATH',
  'HOME',
  'LANG',
  'LANGUAGE',
  'LC_*',
  'TERM',
  'TZ',
  'USER',
  'LOGNAME',
  'SHELL',
  'TMPDIR',
];

/**
 * Names that carry credentials by convention (matched case-insensitively, `*` = any run of
 * characters). SSH_AUTH_SOCK is here because the agent socket hands out the user's keys.
 */
export const SECRET_PATTERNS: readonly string[] = [
  '*_TOKEN',
  '*_TOKENS',
  '*TOKEN_*',
  'TOKEN',
  '*_KEY',
  '*_KEYS',
  '*_KEY_*',
  '*APIKEY*',
  '*_SECRET',
  '*_SECRET_*',
  '*SECRET*',
  '*PASSWORD*',
  '*PASSWD*',
  '*_PASS',
  '*CREDENTIAL*',
  '*_AUTH',
  '*_AUTH_*',
  '*COOKIE*',
  '*SESSION*',
  '*PRIVATE*',
  'AWS_*',
  'AZURE_*',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'ANTHROPIC_*',
  'OPENAI_*',
  'CLAUDE_*',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'GITLAB_TOKEN',
  'NPM_TOKEN',
  'NODE_AUTH_TOKEN',
  'SSH_AUTH_SOCK',
  'DATABASE_URL',
];

const secretMatchers = SECRET_PATTERNS.map(
  (pattern) => new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`, 'i'),
);

export function isSecretName(name: string): boolean {
  return secretMatchers.some((re) => re.test(name));
}

export interface ChildEnv {
  env: Record<string, string>;
  /** Names that an allow entry admitted but that were dropped as secrets. */
  droppedSecrets: string[];
}

/** Builds the child environment from `source` (usually `process.env`) and the allow list. */
export function buildChildEnv(source: NodeJS.ProcessEnv, envAllow: readonly string[]): ChildEnv {
  const exact = new Set(envAllow.filter((entry) => !entry.endsWith('*')));
  const prefixes = [...BASELINE_ENV, ...envAllow].filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1));
  const baseline = new Set(BASELINE_ENV.filter((e) => !e.endsWith('*')));
  const env: Record<string, string> = {};
  const droppedSecrets: string[] = [];
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    if (exact.has(name)) {
      env[name] = value;
      continue;
    }
    if (!baseline.has(name) && !prefixes.some((prefix) => name.startsWith(prefix))) continue;
    if (isSecretName(name)) {
      droppedSecrets.push(name);
      continue;
    }
    env[name] = value;
  }
  // git's numbered config pairs are always the carried ones: an allow list admitting
  // GIT_CONFIG_* would pass the count but drop GIT_CONFIG_KEY_n as secret-looking (*_KEY_*),
  // and git refuses a count whose pairs are missing.
  for (const name of Object.keys(env))
    if (/^GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)$/.test(name)) delete env[name];
  Object.assign(env, gitHardeningEnv(source));
  return { env, droppedSecrets: droppedSecrets.sort() };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
