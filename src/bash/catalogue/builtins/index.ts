import type { CatalogueEntry } from '../entry.js';
import { printer } from '../forms.js';
import { type About, handWritten } from '../hand-written.js';
import { BUILTINS } from './analyzers.js';

/**
 * Builtins that change nothing outside the shell and evaluate no name, as data: their operands
 * are words, not files, and no option of theirs runs code.
 */
const NOTHING: CatalogueEntry = printer(
  ':',
  'does nothing outside the shell (true, false, pwd, shopt, umask, type, alias, exit, ...)',
  {
    readOnly: [
      ':',
      'true',
      'false',
      'popd',
      'dirs',
      'shopt -s nullglob',
      'ulimit -n 4096',
      'umask 077',
      'shift',
      'getopts ab: opt',
      'times',
      'help cd',
      'complete -p',
      'compopt -o default',
      'caller',
      'unalias ll',
      "alias ll='ls -l'",
      'disown',
      'exit 0',
      'return 0',
      'break',
      'continue',
      'logout',
      'pwd',
      'type -a rm',
      'type -t cd ls git',
    ],
  },
  [],
  {},
  {
    aliases: [
      'true',
      'false',
      'pwd',
      'popd',
      'dirs',
      'shopt',
      'ulimit',
      'umask',
      'shift',
      'getopts',
      'times',
      'type',
      'help',
      'complete',
      'compopt',
      'caller',
      'unalias',
      'alias',
      'disown',
      'exit',
      'return',
      'break',
      'continue',
      'logout',
    ],
  },
);

/** Each command's summary and examples by verdict; the analyzers are hand-written (analyzers.ts). */
const ABOUT: Readonly<Record<string, About>> = {
  printf: ['formats and prints its arguments', { readOnly: ["printf '%s\\n' x"] }],
  cd: ["changes the shell's directory (cd, pushd, popd, dirs)", { readOnly: ['cd src', 'pushd src'] }],
  eval: ['runs its arguments as shell code', { destructive: ['eval "$CMD"'] }],
  source: [
    "runs a file's commands in this shell (source, .)",
    { destructive: ['source ./env.sh', '. ./env.sh'] },
  ],
  trap: ['runs code when a signal arrives or the shell exits', { destructive: ["trap 'rm x' EXIT"] }],
  read: ['reads a line into variables', { readOnly: ['read -r line'] }],
  mapfile: [
    'reads lines into an array (mapfile, readarray)',
    { readOnly: ['mapfile -t lines', 'readarray -t lines'] },
  ],
  declare: [
    'declares variables (declare, typeset, local, readonly)',
    {
      // -p prints and sets nothing (the oracle saw no effect of `declare -p PATH`, `typeset -p PATH`).
      readOnly: ['local x=1', 'readonly X=1', 'declare -p PATH', 'typeset -p PATH'],
      // A binding of PATH or a name reference may make a later command run another program.
      destructive: ['export PATH=/tmp:$PATH', 'declare PATH=tools', 'declare -n r=PATH'],
    },
  ],
  unset: ['removes variables or functions', { readOnly: ['unset X'] }],
  let: ['evaluates arithmetic', { readOnly: ['let x=1+2'] }],
  test: ['evaluates a condition (test, [, [[)', { readOnly: ['test -f x', '[ -f x ]', '[[ -f x ]]'] }],
  hash: ['remembers or forgets command locations', { readOnly: ['hash -r'] }],
  enable: ['enables or disables builtins', { notReadOnly: ['enable -n echo'] }],
  fc: ['lists, edits or re-runs history entries', { destructive: ['fc -s'] }],
  history: ["prints the shell's history", { readOnly: ['history'] }],
  bind: ['shows or sets readline key bindings', { readOnly: ['bind -p'] }],
  set: ['sets shell options and positional parameters', { readOnly: ['set -e'] }],
  wait: ['waits for background jobs', { readOnly: ['wait'] }],
  jobs: ['lists background jobs', { readOnly: ['jobs'] }],
  compgen: ['prints completions', { readOnly: ['compgen -c'] }],
};

export const BUILTINS_ENTRIES = [
  NOTHING,
  ...handWritten(
    BUILTINS,
    'shell builtins: what they change in the shell, and code they run (eval, source, trap)',
    ABOUT,
  ),
];
