import { LIMITS } from './limits.js';
import type { SyntaxNode, SyntaxTree } from './syntax.js';

/**
 * The syntax tree of a simple line, built without the parser: commands of plain words and
 * quoted strings that are their own text (`'...'`, and `"..."` without `$`, backquotes,
 * backslashes or `!`), joined by `|`, `&&`, `||` and `;`, with `>`, `>>`, `<`, `N>` and `N>&M`
 * redirects at the end of a statement's first or last command (`npm test 2>&1 | tail`,
 * `git commit -m "Fix typo"`, `cd src && ls > files.txt`). Over half the labelled corpus,
 * and most of what agents run. The tree is the one tree-sitter-bash gives for the line, node for
 * node and offset for offset (its quirks included: a redirect at the end of a list applies to
 * the whole list), so parse.ts reads it like any other; a property test holds the two equal on
 * generated lines and on the corpus. Anything else, or anything in doubt, is left to the parser
 * (undefined): an expansion (`$`, a glob, `~`, braces), a tab, a newline, `&`, a heredoc, a number
 * where tree-sitter may read something else, a word run into a quote or a redirect.
 */
export function simpleSyntax(source: string): SyntaxTree | undefined {
  // Past the parser's size limit a line is "too complex" (syntax.ts), simple or not.
  if (source.length > LIMITS.maxSourceChars) return undefined;
  const tokens = lex(source);
  if (tokens === undefined || tokens.length === 0) return undefined;
  const children: SyntaxNode[] = [];
  let from = 0;
  for (let i = 0; i <= tokens.length; i++) {
    const t = tokens[i];
    if (t !== undefined && !(t.kind === 'op' && t.op === ';')) continue;
    const statement = buildStatement(source, tokens, from, i);
    if (statement === undefined) return undefined;
    if (children.length > 0) children.push(anonymous(';'));
    children.push(statement);
    from = i + 1;
  }
  // tree-sitter's program runs to the end of the text, blanks included.
  const root = named('program', tokens[0]!.start, source.length, children);
  return { root, hasError: false, uncovered: -1, walk: 'lexed' };
}

type Token =
  | {
      readonly kind: 'word' | 'number' | 'raw_string' | 'string';
      readonly start: number;
      readonly end: number;
    }
  | { readonly kind: 'op'; readonly op: Operator; readonly start: number; readonly end: number }
  | { readonly kind: 'redirect'; readonly node: SyntaxNode; readonly start: number; readonly end: number };

type Operator = '|' | '&&' | '||' | ';';

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

function lex(source: string): Token[] | undefined {
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
  const children: SyntaxNode[] = [];
  let k = at;
  // tree-sitter reads `1>` to `9>` as a descriptor and `0>` as a number argument, then `>`.
  if (isDigit(source.charCodeAt(k)) && source.charCodeAt(k) !== ZERO) {
    children.push(named('file_descriptor', k, k + 1));
    k++;
  }
  const c = source.charCodeAt(k);
  const d = source.charCodeAt(k + 1);
  let op: '>' | '>>' | '>&' | '<' | undefined;
  if (c === GT) op = d === GT ? '>>' : d === AMP ? '>&' : d === PIPE ? undefined : '>';
  else if (c === LT && children.length === 0 && d !== LT && d !== AMP && d !== GT) op = '<';
  if (op === undefined) return undefined; // `>|`, `<<`, `<&`, `<>`, `N<`
  children.push(anonymous(op));
  k += op.length;
  let target: SyntaxNode;
  if (op === '>&') {
    // One digit, right after: `2>&1`, `>&2`.
    if (!isDigit(source.charCodeAt(k)) || !endsToken(source, k + 1)) return undefined;
    target = named('number', k, k + 1);
  } else {
    while (source.charCodeAt(k) === SPACE) k++;
    if (!isWordChar(source.charCodeAt(k))) return undefined;
    const end = wordEnd(source, k);
    if (!endsToken(source, end) || wordKind(source.slice(k, end)) !== 'word') return undefined;
    target = named('word', k, end);
  }
  children.push(target);
  return {
    kind: 'redirect',
    node: named('file_redirect', at, target.end, children),
    start: at,
    end: target.end,
  };
}

/**
 * What tree-sitter makes of a plain word: `number` for an integer, `word` otherwise. Refused:
 * reserved and declaration words and a leading `=` (an assignment, or `==` that tree-sitter reads
 * as a test operator), and words
 * that start like a number without being one (`0x1F`, `5x`), which tree-sitter reads either way.
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

interface Command {
  readonly node: SyntaxNode;
  readonly redirects: readonly SyntaxNode[];
}

/**
 * One statement (tokens [from, to)): commands joined by `|`, `&&` and `||`, with pipelines
 * binding tighter than lists and lists folding to the left, as tree-sitter nests them.
 * Redirects only on the first command or the last: tree-sitter wraps a redirect on the last
 * command around everything before it in the statement, and one on a middle command around
 * part of it, a shape not modelled here; nor is a pipeline of three or more before `&&`/`||`.
 */
function buildStatement(
  source: string,
  tokens: readonly Token[],
  from: number,
  to: number,
): SyntaxNode | undefined {
  const commands: Command[] = [];
  const operators: Operator[] = [];
  let i = from;
  for (;;) {
    const command = buildCommand(source, tokens, i, to);
    if (command === undefined) return undefined;
    commands.push(command.command);
    i = command.next;
    if (i >= to) break;
    const t = tokens[i]!;
    if (t.kind !== 'op') return undefined;
    operators.push(t.op);
    i++;
  }
  const last = commands.length - 1;
  for (let k = 1; k < last; k++) if (commands[k]!.redirects.length > 0) return undefined;
  const atoms = commands.map((c, k) =>
    k === 0 && last > 0 && c.redirects.length > 0 ? redirected(c.node, c.redirects) : c.node,
  );
  // Pipelines first (flat: one node for `a | b | c`), then lists, folded to the left.
  const pipelines: SyntaxNode[] = [];
  const listOperators: Operator[] = [];
  let run: SyntaxNode[] = [atoms[0]!];
  for (let k = 0; k < operators.length; k++) {
    if (operators[k] === '|') {
      run.push(anonymous('|'), atoms[k + 1]!);
      continue;
    }
    // tree-sitter nests `a | b | c && d` as `a | (b | c && d)`: not modelled.
    if (run.length > 3) return undefined;
    pipelines.push(run.length === 1 ? run[0]! : span('pipeline', run));
    listOperators.push(operators[k]!);
    run = [atoms[k + 1]!];
  }
  pipelines.push(run.length === 1 ? run[0]! : span('pipeline', run));
  let statement = pipelines[0]!;
  for (let k = 0; k < listOperators.length; k++) {
    statement = span('list', [statement, anonymous(listOperators[k]!), pipelines[k + 1]!]);
  }
  const lastRedirects = commands[last]!.redirects;
  return lastRedirects.length > 0 ? redirected(statement, lastRedirects) : statement;
}

/** A command: a plain name, then words, numbers and quoted strings, then redirects. */
function buildCommand(
  source: string,
  tokens: readonly Token[],
  from: number,
  to: number,
): { command: Command; next: number } | undefined {
  const first = tokens[from];
  if (first === undefined || from >= to || first.kind !== 'word') return undefined;
  if (!PLAIN_COMMAND_NAME.test(source.slice(first.start, first.end))) return undefined;
  const word = named('word', first.start, first.end);
  const children: SyntaxNode[] = [named('command_name', first.start, first.end, [word])];
  let i = from + 1;
  while (i < to) {
    const t = tokens[i]!;
    if (t.kind === 'string') children.push(doubleQuoted(source, t.start, t.end));
    else if (t.kind === 'word' || t.kind === 'number' || t.kind === 'raw_string')
      children.push(named(t.kind, t.start, t.end));
    else break;
    i++;
  }
  const redirects: SyntaxNode[] = [];
  // tree-sitter drops a `-` argument right before `2>` (`cat - 2>&1` parses as `cat 2>&1`).
  const lastArgument = children[children.length - 1]!;
  if (i < to && tokens[i]!.kind === 'redirect' && source.slice(lastArgument.start, lastArgument.end) === '-')
    return undefined;
  while (i < to) {
    const t = tokens[i]!;
    if (t.kind === 'op') break;
    if (t.kind !== 'redirect') return undefined; // a word after a redirect
    redirects.push(t.node);
    i++;
  }
  const node = named('command', first.start, children[children.length - 1]!.end, children);
  return { command: { node, redirects }, next: i };
}

/** `"..."`: its quotes, and the text between them unless that is only spaces (tree-sitter's shape). */
function doubleQuoted(source: string, start: number, end: number): SyntaxNode {
  const text = source.slice(start + 1, end - 1);
  const children =
    text.trim() === ''
      ? [anonymous('"'), anonymous('"')]
      : [anonymous('"'), named('string_content', start + 1, end - 1), anonymous('"')];
  return named('string', start, end, children);
}

function redirected(body: SyntaxNode, redirects: readonly SyntaxNode[]): SyntaxNode {
  return span('redirected_statement', [body, ...redirects]);
}

const NO_CHILDREN: readonly SyntaxNode[] = Object.freeze([]);

function named(
  type: string,
  start: number,
  end: number,
  children: readonly SyntaxNode[] = NO_CHILDREN,
): SyntaxNode {
  return { type, named: true, start, end, children };
}

function anonymous(type: string): SyntaxNode {
  return { type, named: false, start: -1, end: -1, children: NO_CHILDREN };
}

/** A node from its first named child's start to its last one's end. */
function span(type: string, children: readonly SyntaxNode[]): SyntaxNode {
  return named(type, children[0]!.start, children[children.length - 1]!.end, children);
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
