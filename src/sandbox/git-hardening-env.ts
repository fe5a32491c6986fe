/**
 * Git settings the caller's environment uses to keep git from running programs, carried into
 * the jail although its allow list (env.ts) would drop them. Agents harden the git they run:
 * Gemini CLI points GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM at /dev/null and, through
 * GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n / GIT_CONFIG_VALUE_n, empties core.fsmonitor,
 * core.hooksPath, diff.external, the editors and the credential helper. Without these, a
 * repository's own `core.fsmonitor` ran inside the jail where the agent alone would not have run
 * it (seen with Gemini CLI 0.61.0): the jail still held it, but the agent's hardening was lost.
 *
 * Only settings that name a program are carried (a reviewer can read the list below), as the
 * caller set them: their values are commands or paths, while other keys can hold credentials
 * (`http.extraHeader` holds tokens) and stay out. A credential helper can be an inline script
 * that prints a password, so it is carried only emptied (switched off). Whatever a carried value
 * runs still runs in the jail. GIT_CONFIG_PARAMETERS (`git -c`) is not carried: any key.
 */
export const GIT_PROGRAM_KEYS: readonly string[] = [
  'core.fsmonitor',
  'core.hookspath',
  'core.sshcommand',
  'core.pager',
  'core.editor',
  'core.askpass',
  'core.gitproxy',
  'sequence.editor',
  'diff.external',
  'credential.helper',
  'gpg.program',
];

/** Which config files git reads: paths or a switch, never secrets. */
const CONFIG_FILE_VARIABLES = ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM'];

const programKeys = new Set(GIT_PROGRAM_KEYS);

/** The variables to add to a child environment built from `source` (pairs re-numbered from 0). */
export function gitHardeningEnv(source: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CONFIG_FILE_VARIABLES) {
    const value = source[name];
    if (value !== undefined) out[name] = value;
  }
  // git reads GIT_CONFIG_COUNT pairs and fails on a missing one; a count it cannot read is
  // git's error too, so nothing is carried for it.
  const count = Number(source.GIT_CONFIG_COUNT);
  if (!Number.isSafeInteger(count) || count <= 0) return out;
  let kept = 0;
  for (let i = 0; i < count; i++) {
    const key = source[`GIT_CONFIG_KEY_${i}`];
    const value = source[`GIT_CONFIG_VALUE_${i}`];
    if (key === undefined || value === undefined || !programKeys.has(key.toLowerCase())) continue;
    if (key.toLowerCase() === 'credential.helper' && value !== '') continue;
    out[`GIT_CONFIG_KEY_${kept}`] = key;
    out[`GIT_CONFIG_VALUE_${kept}`] = value;
    kept++;
  }
  if (kept > 0) out.GIT_CONFIG_COUNT = String(kept);
  return out;
}
