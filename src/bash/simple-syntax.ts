import { LIMITS } from './limits.js';
import { isPlainCommandName, lexSimple, type Operator, type Token } from './simple-tokens.js';
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
  const tokens = lexSimple(source);
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
  if (!isPlainCommandName(source.slice(first.start, first.end))) return undefined;
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
    redirects.push(fileRedirect(t));
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

function fileRedirect(t: Extract<Token, { kind: 'redirect' }>): SyntaxNode {
  const target = named(t.target.kind, t.target.start, t.target.end);
  const children =
    t.fd === undefined
      ? [anonymous(t.op), target]
      : [named('file_descriptor', t.fd, t.fd + 1), anonymous(t.op), target];
  return named('file_redirect', t.start, t.end, children);
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
