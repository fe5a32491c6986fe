import type { Analyzer, CommandContext, EffectSink, Parsed } from '../commands/spec.js';
import type { ParseOptions } from '../options.js';
import type { Effect, Trait } from './effect.js';

/**
 * One command as reviewable data: what its body looks like (`shape`), every option it has with
 * the effect of each, what an option not listed means, the typed traits the policy reads, and
 * example lines grouped by the verdict each must get. One interpreter (interpret.ts) turns an
 * entry into the classifier's analyzer; the registry (registry.ts) checks entries at load.
 */
export interface CatalogueEntry {
  /**
   * The command name; `aliases` are other names for the same program (gawk, mawk), or programs
   * whose knowledge is exactly this entry's (cmake and ninja run a build file as make does).
   */
  readonly name: string;
  readonly aliases?: readonly string[];
  /** One line a reviewer reads: what it does with its arguments. */
  readonly summary: string;
  readonly shape: Shape;
  /**
   * Every option in getopt form (`'o|output='`: `-o` / `--output` with a value, `'color?'` an
   * optional `=value`, `'c'` a flag), with what it does. The option's id is its long name.
   */
  readonly options?: Readonly<Record<string, Effect>>;
  /** What an option not listed means: `fail` (not read-only) unless the program has no option that matters. */
  readonly unknownOptions: 'fail' | 'harmless';
  readonly parse?: Omit<ParseOptions, 'dangerous'>;
  readonly traits?: readonly Trait[];
  /**
   * The options of subcommands (git push, git branch, ...) a deny or ask rule may name
   * (`Bash(git push --force *)`), so every spelling of one matches it: getopt forms, and
   * `compound` letters that stand for several options at once (`git branch -D` is `--delete
   * --force`). Spellings only: what a subcommand does is its shape's analyzer's.
   */
  readonly subcommandOptions?: Readonly<Record<string, SubcommandOptions>>;
  readonly examples: Examples;
}

export interface SubcommandOptions {
  readonly options: readonly string[];
  /** A letter and the options (ids) it stands for together. */
  readonly compound?: Readonly<Record<string, readonly string[]>>;
}

/** Example lines, by the verdict the classifier must give each (checked by a test over the whole catalogue). */
export interface Examples {
  /** Only reads local state. */
  readonly readOnly?: readonly string[];
  /** Not read-only, not destructive (an additive write, a network read, an option not modelled). */
  readonly notReadOnly?: readonly string[];
  /** Can destroy data, send it off the machine, or run code the line does not show. */
  readonly destructive?: readonly string[];
}

export type Shape =
  /** Its operands are data, not files (echo, seq). */
  | { readonly kind: 'printer' }
  /** Its operands are files it reads. */
  | {
      readonly kind: 'reader';
      /** The first operand is a program or expression, not a file (yq EXPR FILE...). */
      readonly skipFirst?: boolean;
      /** With this option (id) it edits its file operands in place rather than reading them. */
      readonly inPlace?: { readonly option: string; readonly written: string };
      /** With any of these options (ids) its operands are data, not files (shuf -e). */
      readonly dataWith?: readonly string[];
      /**
       * With this option (id) each operand (stdin without one) is a list of files it reads, and
       * then each file listed (`md5sum -c SUMS`): names only known at run time.
       */
      readonly listsWith?: string;
      /**
       * Each operand is read as a tree: every file below a directory operand, dot files too
       * (diff). `noFollow`: the option (id) with which it does not follow links to directories.
       */
      readonly trees?: { readonly noFollow?: string };
    }
  /** Its operands are files it writes; with the `append` option (id) it appends. Devices that discard are no writes. */
  | { readonly kind: 'writer'; readonly append: string }
  /** Its operands are files or directories it creates, or only touches when they exist (mkdir, touch): "NAME `verb` OPERAND". */
  | { readonly kind: 'creator'; readonly verb: string }
  /**
   * Its operands are files or directories it deletes; with the `recursive` option (id), each
   * with everything below it (the critical guard reads which).
   */
  | { readonly kind: 'remover'; readonly recursive?: string }
  /**
   * It runs code the line does not show (a build file's recipes, a package's scripts, tests,
   * plugins): never read-only, except a line that only asks one of `asks` (its version, its
   * help). `downloads`: it may fetch what it runs first (npx).
   */
  | {
      readonly kind: 'program';
      readonly runs: string;
      readonly asks: readonly string[];
      readonly downloads?: string;
    }
  /**
   * An interpreter: a line that only asks one of `asks` is read-only; code from a file, from an
   * option (-c, -e) or from stdin is code the line does not show (the file is also read).
   */
  | { readonly kind: 'interpreter'; readonly asks: readonly string[] }
  /**
   * A hand-written analyzer from before the catalogue (src/bash/catalogue/GROUP/analyzers.ts),
   * its options not yet described as data here: `why` says what it knows. Its examples are
   * checked like every entry's; `toolgate catalogue` lists it as hand-written.
   */
  | { readonly kind: 'hand-written'; readonly why: string; readonly analyze: Analyzer }
  /** It never ends by design (yes). */
  | { readonly kind: 'lingers'; readonly why: string }
  /**
   * The named escape hatch: a one-off analyzer for a command whose arguments are a language of
   * their own (sed and awk scripts, jq filters). Its options still come from the entry.
   */
  | {
      readonly kind: 'escape';
      readonly why: string;
      readonly analyze: EscapeAnalyzer;
      /** Options (ids) whose listed effect this analyzer reports itself (`sed -i` edits the operands). */
      readonly handles?: readonly string[];
    };

/**
 * An escape hatch's analyzer. `parsed`: the arguments read with the entry's options (whose
 * effects are already reported); undefined when the entry lists none because the command's
 * arguments are not getopt's (jq's `--arg NAME VALUE`): it reads `ctx.args` itself.
 */
export type EscapeAnalyzer = (ctx: CommandContext, sink: EffectSink, parsed: Parsed | undefined) => void;

export type ShapeKind = Shape['kind'];

export const SHAPES: readonly ShapeKind[] = [
  'printer',
  'reader',
  'writer',
  'creator',
  'remover',
  'program',
  'interpreter',
  'lingers',
  'escape',
  'hand-written',
];
