/**
 * Environment variables and what setting them can do. A variable handed to a program
 * (`X=1 cmd`, `export X`) can change what that program runs: PAGER, GIT_EXTERNAL_DIFF, LESSOPEN
 * name programs; LD_PRELOAD and BASH_ENV load code; PATH decides which binary a name means.
 */

/** Safe to hand to any program: they change formatting, language or time zone, never what runs. */
const HARMLESS_EXACT = new Set([
  'LANG',
  'LANGUAGE',
  'TZ',
  'COLUMNS',
  'LINES',
  'NO_COLOR',
  'FORCE_COLOR',
  'CLICOLOR',
  'CLICOLOR_FORCE',
  'TERM',
  'TIME_STYLE',
  'BLOCK_SIZE',
  'BLOCKSIZE',
  'DF_BLOCK_SIZE',
  'DU_BLOCK_SIZE',
  'LS_BLOCK_SIZE',
  'LS_COLORS',
  'GREP_COLOR',
  'GREP_COLORS',
  'QUOTING_STYLE',
  'TABSIZE',
  'POSIXLY_CORRECT',
  'GIT_OPTIONAL_LOCKS',
  'GIT_TERMINAL_PROMPT',
  'GIT_NO_REPLACE_OBJECTS',
  'GIT_LITERAL_PATHSPECS',
  'NODE_ENV',
  'CI',
]);

/**
 * Builtins that run inside the shell and look at no exported variable: an `export FOO=bar`
 * before them reaches no program.
 */
export const RUNS_IN_THE_SHELL: ReadonlySet<string> = new Set([
  ':',
  'true',
  'false',
  'echo',
  'printf',
  'pwd',
  'cd',
  'test',
  '[',
  '[[',
  'set',
  'shift',
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'unset',
  'read',
  'exit',
  'return',
]);

/** Variables whose value is a command line a program will run. */
const CODE_VARIABLES = new Set([
  'PAGER',
  'GIT_PAGER',
  'MANPAGER',
  'SYSTEMD_PAGER',
  'GIT_EXTERNAL_DIFF',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_SSH_COMMAND',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'EDITOR',
  'VISUAL',
  'BROWSER',
  'PROMPT_COMMAND',
  'LESSOPEN',
  'LESSCLOSE',
]);

/** A pager that only copies its input is harmless as a value of a code variable. */
const HARMLESS_PAGER_VALUES = new Set(['', 'cat', 'less', 'more']);

export type VariableRisk =
  | { kind: 'harmless' }
  /** The value is a command the program will run. */
  | { kind: 'code' }
  /**
   * It changes what runs in a way the line does not show. `loadsCode`: it can make the program
   * run arbitrary code (LD_PRELOAD, PATH, BASH_ENV, GIT_CONFIG_*, TAR_OPTIONS, ...).
   */
  | { kind: 'influence'; why: string; loadsCode: boolean };

/** What handing `name=value` to a program can do. */
export function variableRisk(name: string, value: string | undefined): VariableRisk {
  if (HARMLESS_EXACT.has(name) || name.startsWith('LC_')) return { kind: 'harmless' };
  // bash never imports IFS from the environment; as a prefix it only changes how `read` splits.
  if (name === 'IFS') return { kind: 'harmless' };
  if (CODE_VARIABLES.has(name)) {
    if (value !== undefined && HARMLESS_PAGER_VALUES.has(value.trim()) && name.endsWith('PAGER')) {
      return { kind: 'harmless' };
    }
    return { kind: 'code' };
  }
  return { kind: 'influence', why: influence(name), loadsCode: isSensitiveShellVariable(name) };
}

function influence(name: string): string {
  if (name === 'PATH') return 'PATH decides which program a command name runs';
  if (name.startsWith('LD_') || name.startsWith('DYLD_')) return `${name} makes the loader run other code`;
  if (name === 'BASH_ENV' || name === 'ENV') return `${name} names a script every shell runs first`;
  if (name.startsWith('GIT_CONFIG'))
    return `${name} injects git configuration, which can name programs to run`;
  if (name.startsWith('GIT_')) return `${name} changes which repository or programs git uses`;
  return `${name} may change what the program does`;
}

/**
 * A plain assignment (`x=1`) only reaches programs when the name is already exported. These
 * names usually are, and they change what later commands run.
 */
export function isSensitiveShellVariable(name: string): boolean {
  if (SENSITIVE_SHELL_VARIABLES.has(name) || CODE_VARIABLES.has(name)) return true;
  return /^(LD_|DYLD_|GIT_|NPM_CONFIG_|npm_config_|PYTHON|NODE_|RUBY|PERL|JAVA_|_JAVA_)|(_OPTIONS|_OPTS|_CONFIG|_CONFIG_PATH|PAGER|EDITOR)$/.test(
    name,
  );
}

const SENSITIVE_SHELL_VARIABLES = new Set([
  'PATH',
  // bash's own tables of what a command name runs: `BASH_CMDS[ls]=/x` hashes ls to /x, and
  // `BASH_ALIASES[ls]=cmd` defines an alias.
  'BASH_CMDS',
  'BASH_ALIASES',
  'BASH_LOADABLES_PATH',
  'EXECIGNORE',
  'BASH_XTRACEFD',
  'HISTFILE',
  'IFS',
  'BASH_ENV',
  'ENV',
  'PS4',
  'SHELLOPTS',
  'BASHOPTS',
  'HOME',
  'CDPATH',
  'GLOBIGNORE',
  'TMPDIR',
  'LESS',
  'MANOPT',
  'RIPGREP_CONFIG_PATH',
  'TAR_OPTIONS',
  'GZIP',
  'XZ_OPT',
  'BZIP2',
  'ZDOTDIR',
  'INPUTRC',
  'http_proxy',
  'https_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'all_proxy',
]);
