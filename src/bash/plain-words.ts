import { ASSIGNING_BUILTINS, type CommandLine, type SimpleCommand } from './command-line.js';
import { LIMITS } from './syntax.js';
import type { Word } from './word.js';

/**
 * A line of plain words (`git status`, `ls -la src`, `npm test`) read without the parser: a
 * third of the labelled corpus, and most of what an agent runs. Accepted only when every
 * character is one that bash and tree-sitter-bash both take as part of an ordinary word
 * (letters, digits, `_ . / , : @ % + = -`) or a separating space, so there is nothing to
 * expand, quote, redirect or join: bash splits such a line on its spaces and nothing else.
 * Anything outside that (a quote, `$`, a glob, a tab, a newline, a non-ASCII letter) goes to
 * the parser, and so does any line whose words bash or the grammar may read as syntax (an
 * assignment first, `a=b cmd`, or a reserved or declaration word anywhere) or that assigns
 * variables (`read x`). The answer is the
 * CommandLine the parser gives for the same line, field for field; a property test holds the
 * two to that on generated lines and on every corpus line.
 */
export function plainCommandLine(source: string): CommandLine | undefined {
  // The parser's size limit applies here too: a huge line of words is "too complex", not read.
  if (source.length > LIMITS.maxSourceChars) return undefined;
  // Every character first: most lines that are not plain words say so early (a quote, a `|`),
  // before any word of them is made.
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c !== SPACE && (c >= 128 || WORD_CHAR[c] !== 1)) return undefined;
  }
  const argv: Word[] = [];
  let wordStart = -1;
  let commandStart = -1;
  let commandEnd = -1;
  let c0 = 0;
  for (let i = 0; i <= source.length; i++) {
    const c = i < source.length ? source.charCodeAt(i) : SPACE;
    if (c === SPACE) {
      if (wordStart < 0) continue;
      const text = source.slice(wordStart, i);
      // `==` last on a line is a syntax error to tree-sitter-bash (a test operator missing its
      // right side): words starting with `=` go to the parser.
      if (SYNTAX_WORDS.has(text) || c0 === EQUALS) return undefined;
      argv.push({ value: text, raw: text, expansions: [], dynamicStart: false });
      commandEnd = i;
      wordStart = -1;
    } else if (wordStart < 0) {
      wordStart = i;
      c0 = c;
      if (commandStart < 0) commandStart = i;
    }
  }
  // No words: the parser says what an empty line is. The first word must be a plain name.
  if (argv.length === 0 || !PLAIN_COMMAND_NAME.test(argv[0]!.value)) return undefined;
  // `read x` and the like assign the names they are given: the parser's walk records them.
  if (ASSIGNING_BUILTINS.has(argv[0]!.value)) return undefined;
  const command: SimpleCommand = {
    kind: 'command',
    argv,
    assignments: [],
    redirects: [],
    cwd: ['.'],
    stdin: 'inherit',
    background: false,
    nesting: 'line',
    start: commandStart,
    end: commandEnd,
  };
  return {
    source,
    commands: [command],
    functions: NO_NAMES,
    taintedNames: NO_NAMES,
    variables: NO_VARIABLES,
    arithmeticNames: NO_NAMES,
    promptExpansions: [],
    indirectExpansions: [],
    problems: [],
  };
}

const SPACE = 0x20;
const EQUALS = 0x3d;
const NO_NAMES: ReadonlySet<string> = new Set();
const NO_VARIABLES: CommandLine['variables'] = new Map();

/** The characters of an ordinary word: none of them starts an expansion, a quote or an operator. */
export const WORD_CHAR = new Uint8Array(128);
for (const ch of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:@%+=-') {
  WORD_CHAR[ch.charCodeAt(0)] = 1;
}

/**
 * The command name, in the shapes names have (`git`, `./run.sh`, `/usr/bin/env`, `g++`): `=` in
 * it may make it an assignment, and tree-sitter-bash misreads names with `@` or `%` in them
 * (`user@host` is a syntax error to it), starting with `-` (`- A=1 ls` loses its `-`) or with
 * `+:` (`a+:b`); the parse path answers those, as "not understood".
 */
export const PLAIN_COMMAND_NAME = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*\+*$/;

/**
 * Words that bash or tree-sitter-bash may read as syntax rather than as a plain word: bash's
 * reserved words and the grammar's keywords and declaration commands (`export a=b` is parsed
 * as a declaration, not as a command with a word). Refused anywhere on the line, not only
 * first: which positions make them syntax is the parser's business.
 */
export const SYNTAX_WORDS: ReadonlySet<string> = new Set([
  // bash reserved words made of word characters
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'time',
  'until',
  'while',
  // tree-sitter-bash's declaration and unset commands
  'declare',
  'typeset',
  'export',
  'readonly',
  'local',
  'unset',
  'unsetenv',
]);
