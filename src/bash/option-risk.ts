import type { CommandLine } from './command-line.js';
import { setOperands } from './positionals.js';
import type { Leading, Word } from './word.js';

/**
 * Whether a word only known at run time could turn into an option (`-o /etc/x`). The threat is
 * the line, not the user's environment: a variable the line never sets comes from the
 * environment and is trusted; one the line sets from data it does not show (`read`, a
 * substitution, a glob over file names) is not. A substitution is trusted only when its command
 * prints something that cannot start with a dash (a hash, a ref name, an absolute path).
 */
export function wordMayBeOption(word: Word, line: CommandLine): boolean {
  // `a$x`: the value of $x is split into words of its own, any of which may be an option.
  if (word.splitLeads?.some((l) => leadMayBeOption(l, line))) return true;
  if (!word.dynamicStart) return false;
  const lead = word.leading;
  if (lead === undefined) return true;
  return leadMayBeOption(lead, line);
}

function leadMayBeOption(lead: Leading, line: CommandLine): boolean {
  switch (lead.kind) {
    // `~` is the home directory, `~user` theirs: absolute paths. (`~+`, `~-`, `~N` lead as the
    // variables PWD, OLDPWD, DIRSTACK, which the line may set.)
    case 'tilde':
      return false;
    case 'arithmetic':
    case 'process':
      return false;
    case 'glob':
    case 'brace':
      return true;
    case 'command':
      return !printsNoDash(lead.text);
    case 'variable':
      return variableMayBeOption(lead.name, line);
  }
}

function variableMayBeOption(name: string, line: CommandLine): boolean {
  if (name === '?') return true;
  // $? $$ $! $# are numbers, $0 the shell's name, $- its flags.
  if (/^[?$!#0-]$/.test(name)) return false;
  if (name === '_') return true;
  if (/^([1-9][0-9]*|@|\*)$/.test(name)) return positionalMayBeOption(line);
  const v = line.variables.get(name);
  if (v === undefined) return false;
  if (v.dynamic) return true;
  // Unquoted, the value is split into words: `x="HEAD --output=f"` gives an option too.
  for (const value of v.values) if (/(^|[ \t\n])-/.test(value)) return true;
  return false;
}

/** Positional parameters are what the line passes to its own functions, or sets with `set` (`set x ...`, `set - ...`, `set -e -- ...`). */
function positionalMayBeOption(line: CommandLine): boolean {
  for (const c of line.commands) {
    const name = c.argv[0]?.value;
    if (name === undefined) continue;
    const given = line.functions.has(name)
      ? c.argv.slice(1)
      : name === 'set'
        ? setOperands(c.argv.slice(1))
        : undefined;
    if (given?.some((w) => w.expansions.length > 0 || w.value.startsWith('-'))) return true;
  }
  return false;
}

/**
 * Commands whose output cannot begin with a dash: object ids, ref and tag names (git refuses
 * names starting with "-"), absolute paths, numbers, and paths under a static starting point.
 */
const SAFE_OUTPUT = [
  /^git (merge-base|rev-list|describe|write-tree|hash-object|symbolic-ref)( |$)/,
  // rev-parse prints object ids, ref names and paths, except what --flags, --sq-quote,
  // --parseopt and the like echo back from its arguments.
  /^git rev-parse( (--short(=\d+)?|--verify|--quiet|-q|--abbrev-ref|--symbolic-full-name|--show-toplevel|--git-dir|--absolute-git-dir|--git-common-dir|--is-inside-work-tree|--show-cdup|--show-prefix|[^-\s]\S*))*$/,
  /^git branch --show-current$/,
  /^(pwd|whoami|id( -[ugnr]+)?|nproc|uname( -[a-z]+)?|hostname|realpath [^-]\S*|wc -[lcwm])( |$)/,
  // A name under $TMPDIR, or a template's: a template after `--` may begin with a dash.
  /^mktemp( (-[dqu]+|--directory|--dry-run|--quiet|--tmpdir=[^-\s]\S*|-p [^-\s]\S*|--suffix=\S*))*( [^-\s]\S*)?$/,
  // Paths under the starting point, unless -printf, -fprintf or a program chooses what is printed.
  /^find (\.|\/|\w)[^ ]* (?!.*(^| )-(f?printf|exec|execdir|ok|okdir|fls|fprint0?) )/,
];

function printsNoDash(text: string): boolean {
  const t = text.replace(/\s+/g, ' ').trim();
  return SAFE_OUTPUT.some((re) => re.test(t));
}
