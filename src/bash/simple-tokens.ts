/**
 * The tokens of a simple line (simple-syntax.ts): plain words, integers, quoted strings that
 * are their own text, the operators `|`, `&&`, `||`, `;`, and simple redirects, with their
 * offsets. Anything else makes the line not simple.
 */

export type Token =
  | {
      /** tree-sitter's node type for it: a plain word, an integer, '...', or "..." */
      readonly kind: 'word' | 'number' | 'raw_string' | 'string';
      readonly start: number;
      readonly end: number;
    }
  | { readonly kind: 'op'; readonly op: Operator; readonly start: number; readonly end: number }
  | {
      readonly kind: 'redirect';
      /** Where the descriptor digit before the operator is (`2>`), when there is one. */
      readonly fd: number | undefined;
      readonly op: '>' | '>>' | '>&' | '<';
      /** A word, or for `>&` a digit (tree-sitter's `number`). */
      readonly target: { readonly kind: 'word' | 'number'; readonly start: number; readonly end: number };
      readonly start: number;
      readonly end: number;
    };

export type Operator = '|' | '&&' | '||' | ';';

/** Bounds the tree well inside syntax.ts's limits (depth grows with each `&&`). */
const MAX_TOKENS = 256;

const SPACE = 0x20;
const QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const PIPE = 0x7c;
const AMP = 0x26;
const SEMI = 0x3b;
const GT = 0x3e;
const LT = 0x3c;
const ZERO = 0x30;

/**
 * The tokens of a simple line, with their offsets; undefined for anything else (simple-syntax.ts
 * says what is simple). Each word, string or redirect must end at a blank, an operator or the
 * end: a word run into a quote or a redirect (`a"b"`, `a>f`) is the parser's.
 */
export function lexSimple(source: string): Token[] | undefined {
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  while (i < n) {
    const c = source.charCodeAt(i);
    if (c === SPACE) {
      i++;
      continue;
    }
    if (tokens.length >= MAX_TOKENS) return undefined;
    const next = source.charCodeAt(i + 1);
    if (c === PIPE) {
      if (next === AMP) return undefined; // `|&`
      const op = next === PIPE ? '||' : '|';
      tokens.push({ kind: 'op', op, start: i, end: i + op.length });
      i += op.length;
    } else if (c === AMP) {
      if (next !== AMP) return undefined; // `&`, `&>`
      tokens.push({ kind: 'op', op: '&&', start: i, end: i + 2 });
      i += 2;
    } else if (c === SEMI) {
      if (next === SEMI) return undefined; // `;;`
      tokens.push({ kind: 'op', op: ';', start: i, end: i + 1 });
      i += 1;
    } else if (c === GT || c === LT || (isDigit(c) && c !== ZERO && (next === GT || next === LT))) {
      const r = redirect(source, i);
      if (r === undefined) return undefined;
      tokens.push(r);
      i = r.end;
    } else if (c === QUOTE) {
      let j = i + 1;
      while (j < n && source.charCodeAt(j) !== QUOTE) {
        const q = source.charCodeAt(j);
        if (q < 0x20 || q > 0x7e) return undefined;
        j++;
      }
      if (j >= n || !endsToken(source, j + 1)) return undefined;
      tokens.push({ kind: 'raw_string', start: i, end: j + 1 });
      i = j + 1;
    } else if (c === DOUBLE_QUOTE) {
      // Only text that expands to itself: no `$`, backquote, backslash, or `!`.
      let j = i + 1;
      while (j < n && source.charCodeAt(j) !== DOUBLE_QUOTE) {
        const q = source.charCodeAt(j);
        if (q < 0x20 || q > 0x7e || q === 0x24 || q === 0x60 || q === 0x5c || q === 0x21) return undefined;
        j++;
      }
      if (j >= n || !endsToken(source, j + 1)) return undefined;
      tokens.push({ kind: 'string', start: i, end: j + 1 });
      i = j + 1;
    } else if (isWordChar(c)) {
      const end = wordEnd(source, i);
      if (!endsToken(source, end)) return undefined;
      const kind = wordKind(source.slice(i, end));
      if (kind === undefined) return undefined;
      tokens.push({ kind, start: i, end });
      i = end;
    } else return undefined;
  }
  return tokens;
}

/** `[N]>`, `>>`, `<` with a word, or `[N]>&M`; any other redirect is the parser's. */
function redirect(source: string, at: number): Token | undefined {
  let k = at;
  // tree-sitter reads `1>` to `9>` as a descriptor and `0>` as a number argument, then `>`.
  const fd = isDigit(source.charCodeAt(k)) && source.charCodeAt(k) !== ZERO ? k++ : undefined;
  const c = source.charCodeAt(k);
  const d = source.charCodeAt(k + 1);
  let op: '>' | '>>' | '>&' | '<' | undefined;
  if (c === GT) op = d === GT ? '>>' : d === AMP ? '>&' : d === PIPE ? undefined : '>';
  else if (c === LT && fd === undefined && d !== LT && d !== AMP && d !== GT) op = '<';
  if (op === undefined) return undefined; // `>|`, `<<`, `<&`, `<>`, `N<`
  k += op.length;
  let target: { kind: 'word' | 'number'; start: number; end: number };
  if (op === '>&') {
    // One digit, right after: `2>&1`, `>&2`.
    if (!isDigit(source.charCodeAt(k)) || !endsToken(source, k + 1)) return undefined;
    target = { kind: 'number', start: k, end: k + 1 };
  } else {
    while (source.charCodeAt(k) === SPACE) k++;
    if (!isWordChar(source.charCodeAt(k))) return undefined;
    const end = wordEnd(source, k);
    if (!endsToken(source, end) || wordKind(source.slice(k, end)) !== 'word') return undefined;
    target = { kind: 'word', start: k, end };
  }
  return { kind: 'redirect', fd, op, target, start: at, end: target.end };
}

/**
 * What tree-sitter makes of a plain word: `number` for an integer, `word` otherwise. Refused:
 * reserved and declaration words, a leading `=` (an assignment, or `==` that tree-sitter reads
 * as a test operator), and words that start like a number without being one (`0x1F`, `5x`),
 * which tree-sitter reads either way.
 */
function wordKind(text: string): 'word' | 'number' | undefined {
  if (SYNTAX_WORDS.has(text) || text.charCodeAt(0) === 0x3d) return undefined;
  if (/^-?[0-9]+$/.test(text)) return 'number';
  if (/^-?[0-9]/.test(text)) return undefined;
  return 'word';
}

/** After a word or a quoted string: a blank, the end, or an operator, never more of the same word. */
function endsToken(source: string, at: number): boolean {
  if (at >= source.length) return true;
  const c = source.charCodeAt(at);
  return c === SPACE || c === PIPE || c === AMP || c === SEMI;
}

function wordEnd(source: string, at: number): number {
  let j = at;
  while (j < source.length && isWordChar(source.charCodeAt(j))) j++;
  return j;
}

function isWordChar(c: number): boolean {
  return c < 128 && WORD_CHAR[c] === 1;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** The characters of an ordinary word: none of them starts an expansion, a quote or an operator. */
const WORD_CHAR = new Uint8Array(128);
for (const ch of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:@%+=-') {
  WORD_CHAR[ch.charCodeAt(0)] = 1;
}

/**
 * The command name, in the shapes names have (`git`, `./run.sh`, `/usr/bin/env`, `g++`): `=` in
 * it may make it an assignment, and tree-sitter-bash misreads names with `@` or `%` in them
 * (`user@host` is a syntax error to it), starting with `-` (`- A=1 ls` loses its `-`) or with
 * `+:` (`a+:b`); the parse path answers those, as "not understood".
 */
const PLAIN_COMMAND_NAME = /^[A-Za-z0-9_./][A-Za-z0-9_./-]*\+*$/;

export function isPlainCommandName(text: string): boolean {
  return PLAIN_COMMAND_NAME.test(text);
}

/**
 * Words that bash or tree-sitter-bash may read as syntax rather than as a plain word: bash's
 * reserved words and the grammar's keywords and declaration commands (`export a=b` is parsed
 * as a declaration, not as a command with a word). Refused anywhere on the line, not only
 * first: which positions make them syntax is the parser's business.
 */
const SYNTAX_WORDS: ReadonlySet<string> = new Set([
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
