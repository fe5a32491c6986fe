import { GIT } from '../catalogue/git/index.js';
import { staticWord, type Word } from '../word.js';

/**
 * git reads configuration from its environment as it reads `-c`: GIT_CONFIG_COUNT with
 * GIT_CONFIG_KEY_<i> / GIT_CONFIG_VALUE_<i>, then GIT_CONFIG_PARAMETERS (where git keeps an
 * outer git's `-c`), and `--config-env=KEY=VAR` takes KEY's value from VAR. So
 * `env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p` is
 * `git -c alias.p=push p`, which is `git push`: the command is also analyzed, and matched by
 * rules, in that form. Wherever the line shows the variables (a prefix, `env`, `export`, a plain
 * assignment, an outer line), every value it shows is a form of its own: a deny rule that any
 * of them meets holds. Values only known at run time are the environment's own finding.
 */

/** The values a variable may hold when a program starts, as far as the line shows them. */
export interface ShownValues {
  readonly values: readonly string[];
  /** It may also hold something the line does not show. */
  readonly dynamic: boolean;
}

export type ShownEnvironment = (name: string) => ShownValues | undefined;

/** More forms than this are not listed: the caller fails closed instead. */
export const MAX_GIT_FORMS = 16;
const MAX_COUNT = 64;

/**
 * Each way the environment makes `argv` (a git command) run, as git argv with the settings as
 * `-c` words; [] when the environment sets nothing; undefined when there are too many to list.
 */
export function gitEnvironmentForms(argv: readonly Word[], env: ShownEnvironment): Word[][] | undefined {
  const settings = environmentSettings(env);
  const commands = configEnvForms(argv, env);
  if (settings === undefined || commands === undefined) return undefined;
  if (commands.length === 0 && settings.length === 0) return [];
  const bases = commands.length > 0 ? commands : [argv];
  const lists = commands.length > 0 ? [[], ...settings] : settings;
  if (lists.length * bases.length > MAX_GIT_FORMS) return undefined;
  const out: Word[][] = [];
  for (const s of lists)
    for (const b of bases)
      out.push([b[0]!, ...s.flatMap((kv) => [staticWord('-c'), staticWord(kv)]), ...b.slice(1)]);
  return out;
}

/**
 * The `KEY=VALUE` lists the environment may hold, in git's order (COUNT, then PARAMETERS). Each
 * variable may also be unset where the command runs (a value the line gives it later, in a
 * branch): that is the empty list, and the command as written covers it.
 */
function environmentSettings(env: ShownEnvironment): string[][] | undefined {
  const counted = countSettings(env);
  const fromParams: string[][] = [[]];
  for (const v of new Set(env('GIT_CONFIG_PARAMETERS')?.values ?? [])) {
    const parsed = parseConfigParameters(v);
    if (parsed !== undefined && parsed.length > 0) fromParams.push(parsed);
  }
  if (counted === undefined || counted.length * fromParams.length > MAX_GIT_FORMS + 1) return undefined;
  return counted.flatMap((c) => fromParams.map((p) => [...c, ...p])).filter((s) => s.length > 0);
}

function countSettings(env: ShownEnvironment): string[][] | undefined {
  const out: string[][] = [[]];
  for (const text of new Set(env('GIT_CONFIG_COUNT')?.values ?? [])) {
    // git reads the count with strtoul and refuses anything after the digits.
    const count = /^\s*\+?\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!(count > 0)) continue;
    let lists: string[][] = [[]];
    for (let i = 0; i < Math.min(count, MAX_COUNT); i++) {
      const keys = [...new Set(env(`GIT_CONFIG_KEY_${i}`)?.values ?? [])];
      const values = [...new Set(env(`GIT_CONFIG_VALUE_${i}`)?.values ?? [])];
      const pairs = keys.flatMap((k) => values.map((v) => `${k}=${v}`));
      // Missing, git stops with an error; only known at run time, the environment's finding.
      if (pairs.length === 0) continue;
      lists = lists.flatMap((l) => pairs.map((p) => [...l, p]));
      if (lists.length > MAX_GIT_FORMS) return undefined;
    }
    out.push(...lists);
    if (out.length > MAX_GIT_FORMS + 1) return undefined;
  }
  return out;
}

/**
 * GIT_CONFIG_PARAMETERS as git's parse_config_env_list reads it: shell-single-quoted `'key'='value'`
 * (or the older `'key=value'`) entries separated by blanks, `'\''` and `'\!'` for a quote and a
 * `!` inside. Undefined where git would refuse it ("bogus format"): no setting is taken from a
 * text git does not take, so a mistake here can only leave the environment's own finding.
 */
export function parseConfigParameters(text: string): string[] | undefined {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const key = sqDequoteStep(text, i);
    if (key === undefined) return undefined;
    i = key.next;
    if (i >= text.length || SPACE.test(text[i]!)) {
      const eq = key.text.indexOf('=');
      out.push(eq < 0 ? key.text.trim() : `${key.text.slice(0, eq).trim()}=${key.text.slice(eq + 1)}`);
    } else if (text[i] === '=') {
      i++;
      if (text[i] === "'") {
        const value = sqDequoteStep(text, i);
        if (value === undefined || (value.next < text.length && !SPACE.test(text[value.next]!)))
          return undefined;
        out.push(`${key.text.trim()}=${value.text}`);
        i = value.next;
      } else if (i >= text.length || SPACE.test(text[i]!)) out.push(key.text.trim());
      else return undefined;
    } else return undefined;
    while (i < text.length && SPACE.test(text[i]!)) i++;
  }
  return out;
}

/** C's isspace. */
const SPACE = /[ \t\n\v\f\r]/;

/** git's sq_dequote_step: one single-quoted string from `at`, and where the text goes on. */
function sqDequoteStep(s: string, at: number): { text: string; next: number } | undefined {
  if (s[at] !== "'") return undefined;
  let out = '';
  let i = at + 1;
  for (;;) {
    const close = s.indexOf("'", i);
    if (close < 0) return undefined;
    out += s.slice(i, close);
    i = close + 1;
    if (s[i] === '\\' && (s[i + 1] === "'" || s[i + 1] === '!') && s[i + 2] === "'") {
      out += s[i + 1];
      i += 3;
      continue;
    }
    return { text: out, next: i };
  }
}

/** git's global options that take the next word as their value when written without `=`. */
const VALUE_OPTIONS = new Set(
  Object.keys(GIT.options ?? {})
    .filter((spec) => spec.endsWith('='))
    .flatMap((spec) => spec.slice(0, -1).split('|'))
    .map((n) => (n.length === 1 ? `-${n}` : `--${n}`)),
);

/**
 * `--config-env=KEY=VAR` (or `--config-env KEY=VAR`) among git's global options, with VAR's
 * value(s) from the environment: one command per combination, each as `-c KEY=VALUE`. [] when
 * there is no such option whose variable the line shows.
 */
function configEnvForms(argv: readonly Word[], env: ShownEnvironment): Word[][] | undefined {
  let forms: Word[][] = [[argv[0]!]];
  let resolved = false;
  for (let i = 1; i < argv.length; i++) {
    const w = argv[i]!;
    const attached = w.value.startsWith('--config-env=');
    // KEY=VAR: git splits at the last `=`.
    const specWord = attached ? w : w.value === '--config-env' ? argv[i + 1] : undefined;
    const spec = attached ? w.value.slice('--config-env='.length) : specWord?.value;
    const eq = spec?.lastIndexOf('=') ?? -1;
    const known = specWord !== undefined && specWord.expansions.length === 0 && eq > 0;
    const shown = known ? env(spec!.slice(eq + 1)) : undefined;
    if (shown !== undefined && shown.values.length > 0) {
      const key = spec!.slice(0, eq);
      const alternatives = [...new Set(shown.values)].map((v) => [
        staticWord('-c'),
        staticWord(`${key}=${v}`),
      ]);
      // A value only known at run time stays the option it was: git reads it then.
      if (shown.dynamic) alternatives.push(attached ? [w] : [w, argv[i + 1]!]);
      forms = forms.flatMap((f) => alternatives.map((a) => [...f, ...a]));
      if (forms.length > MAX_GIT_FORMS) return undefined;
      resolved = true;
      if (!attached) i++;
      continue;
    }
    forms = forms.map((f) => [...f, w]);
    if (!w.value.startsWith('-') || w.value === '--') {
      forms = forms.map((f) => [...f, ...argv.slice(i + 1)]);
      break;
    }
    if (VALUE_OPTIONS.has(w.value) && i + 1 < argv.length) {
      forms = forms.map((f) => [...f, argv[i + 1]!]);
      i++;
    }
  }
  return resolved ? forms : [];
}
