import type { Word } from './word.js';

/** What a command line is made of, once parsed: every simple command, wherever it sits. */

export interface Assignment {
  /** The variable name (for `a[i]=x`, `a`). */
  readonly name: string;
  /** The subscript text of `a[i]=x`, when there is one. */
  readonly subscript?: string;
  readonly value: Word;
  readonly append: boolean;
}

export type RedirectOp =
  | '>'
  | '>>'
  | '>|'
  | '&>'
  | '&>>'
  | '<'
  | '>&'
  | '<&'
  | '>&-'
  | '<&-'
  | '<<'
  | '<<-'
  | '<<<';

export interface Redirect {
  readonly op: RedirectOp;
  /** The file descriptor written before the operator (`2>`), when given. */
  readonly fd?: number;
  /** The file, fd number, heredoc delimiter or here-string word. */
  readonly target?: Word;
  /** Heredoc body and whether the delimiter was quoted (a quoted body is not expanded). */
  readonly heredoc?: { readonly quoted: boolean; readonly body: string };
}

/**
 * The working directories a command may run in, relative to where the line starts ('.' is the
 * start; absolute and `~/` paths are kept as written). Several when a `cd` may have failed;
 * null when a `cd` went somewhere the line does not show.
 */
export type CwdSet = readonly string[] | null;

export type CommandKind = 'command' | 'assignment' | 'declaration' | 'test' | 'arithmetic' | 'redirect-only';

/** Where a command was found: at the top level, or inside something that runs it. */
export type Nesting = 'line' | 'substitution' | 'process-substitution' | 'function';

export interface SimpleCommand {
  readonly kind: CommandKind;
  /** argv as bash passes it; empty for assignments and bare redirects. */
  readonly argv: readonly Word[];
  readonly assignments: readonly Assignment[];
  readonly redirects: readonly Redirect[];
  readonly cwd: CwdSet;
  /** Where stdin comes from: a pipe, a heredoc or here-string, or whatever the line inherited. */
  readonly stdin: 'inherit' | 'pipe' | 'heredoc' | 'herestring' | 'file';
  readonly background: boolean;
  readonly nesting: Nesting;
  /** Offsets of the command in the source. */
  readonly start: number;
  readonly end: number;
}

export interface VariableValues {
  /** The static values assigned. */
  readonly values: ReadonlySet<string>;
  /** Also assigned something only known at run time (read, command output, ...). */
  readonly dynamic: boolean;
  /**
   * Only ever assigned as a command's prefix (`IFS= read x`), which reaches that command alone;
   * false once anything else sets it: `X=1`, `read X`, `for X in`, `printf -v X`, `${X:=1}`...
   */
  readonly prefixOnly: boolean;
}

export interface CommandLine {
  readonly source: string;
  /** Every simple command, in source order, including those inside substitutions and bodies. */
  readonly commands: readonly SimpleCommand[];
  /** Names of functions the line defines (a call to one runs its body, which is in `commands`). */
  readonly functions: ReadonlySet<string>;
  /** Variables the line assigns from anything other than an integer literal. */
  readonly taintedNames: ReadonlySet<string>;
  /** Every variable the line assigns, with the values it can take (when the line shows them). */
  readonly variables: ReadonlyMap<string, VariableValues>;
  /** Variables whose values bash evaluates as arithmetic (where array subscripts run code). */
  readonly arithmeticNames: ReadonlySet<string>;
  /** Names used in `${x@P}` (prompt expansion runs command substitutions in the value). */
  readonly promptExpansions: readonly string[];
  /** Names used in `${!x}` (indirection evaluates the value as a name, subscripts included). */
  readonly indirectExpansions: readonly string[];
  /** Why the line is not fully understood; empty when every construct was modelled. */
  readonly problems: readonly string[];
}
