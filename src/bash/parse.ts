import path from 'node:path';
import { withBraceWords } from './brace-words.js';
import type {
  Assignment,
  CommandKind,
  CommandLine,
  CwdSet,
  Nesting,
  Redirect,
  RedirectOp,
  SimpleCommand,
  VariableValues,
} from './command-line.js';
import { setOperands } from './positionals.js';
import { withoutMisreadPrefixes } from './reserved-prefixes.js';
import { parseSyntax, type SyntaxNode } from './syntax.js';
import {
  decodeAnsiC,
  decodeDoubleQuoted,
  decodeUnquoted,
  isDynamic,
  type Word,
  WordBuilder,
} from './word.js';

/**
 * Source text -> CommandLine. Walks the syntax tree (tree-sitter's, or the same tree built
 * without the parser for a simple line: syntax.ts) with an explicit list of the node types it
 * understands; anything else is recorded as a problem, which makes the line "too complex" for
 * the classifier (fail closed) while still collecting every command it can see, so deny rules
 * keep working on lines it cannot fully model.
 */
export function parseCommandLine(input: string): CommandLine {
  let source = input;
  let syntax = parseSyntax(source);
  // `! if ...`, `time { ...; }`: parsed again without the prefix tree-sitter-bash misreads.
  for (let i = 0; i < MAX_PREFIX_PASSES && syntax.ok; i++) {
    const blanked = withoutMisreadPrefixes(source, syntax.tree.root);
    if (blanked === undefined) break;
    source = blanked;
    syntax = parseSyntax(source);
  }
  // `{git,push} origin`: the tree of the line with each misread `{` a letter; the words are
  // still cut from `source` (same offsets), so the command name is `{git,push}`.
  let parsed = source;
  for (let i = 0; i < MAX_PREFIX_PASSES && syntax.ok; i++) {
    const worded = withBraceWords(parsed, syntax.tree.root);
    if (worded === undefined) break;
    parsed = worded;
    syntax = parseSyntax(parsed);
  }
  const walker = new Walker(source);
  if (!syntax.ok) {
    walker.problem(syntax.reason);
    return walker.result();
  }
  if (syntax.tree.hasError) walker.problem('bash syntax error: the parser could not read the whole line');
  const dropped = syntax.tree.uncovered;
  if (dropped >= 0)
    walker.problem(
      `parser disagreement: ${JSON.stringify(/^\S{1,20}/.exec(source.slice(dropped))?.[0] ?? source[dropped])} at offset ${dropped} is in no part of the parse, but bash reads it`,
    );
  walker.statements(syntax.tree.root.children);
  return walker.result();
}

const MAX_CWD_CHOICES = 8;
/** What a line that defines, assigns or evaluates nothing reports: shared, never written. */
const NO_NAMES: ReadonlySet<string> = new Set();
const NO_VARIABLES: ReadonlyMap<string, VariableValues> = new Map();

/** Adds to a set made on first use. */
function addTo(set: Set<string> | undefined, name: string): Set<string> {
  if (set === undefined) return new Set([name]);
  set.add(name);
  return set;
}
const MAX_REPARSE_DEPTH = 16;
const MAX_PREFIX_PASSES = 4;

const SEPARATORS = new Set([
  ';',
  '\n',
  '&&',
  '||',
  '{',
  '}',
  '(',
  ')',
  'do',
  'done',
  'then',
  'fi',
  'else',
  'elif',
]);

interface Context {
  readonly nesting: Nesting;
  readonly stdin: SimpleCommand['stdin'];
}

const LINE: Context = { nesting: 'line', stdin: 'inherit' };

/** A literal, not a spread: `{ ...ctx, stdin }` is among the dearest lines of a short parse. */
function withStdin(ctx: Context, stdin: SimpleCommand['stdin']): Context {
  return stdin === ctx.stdin ? ctx : { nesting: ctx.nesting, stdin };
}

class Walker {
  private readonly commands: SimpleCommand[] = [];
  private readonly problems: string[] = [];
  // Made on first use: most lines define no function and assign no variable, and four Sets
  // and Maps per line (and per re-parsed substitution) cost more than a short line's walk.
  private functions: Set<string> | undefined;
  private tainted: Set<string> | undefined;
  private variables: Map<string, { values: Set<string>; dynamic: boolean; prefixOnly: boolean }> | undefined;
  /** Names declared integer (`declare -i n`): bash evaluates what is assigned to them as arithmetic. */
  private integers: Set<string> | undefined;
  private arithmetic: Set<string> | undefined;
  private readonly prompt: string[] = [];
  private readonly indirect: string[] = [];
  private cwd: CwdSet = ['.'];
  /** Most lines are one line: then no gap between two nodes holds a newline or a line continuation. */
  private readonly multiline: boolean;
  private reparseDepth = 0;
  /** Redirections tree-sitter attached to a pipeline or list, waiting for its last command. */
  private pendingRedirects:
    | Map<SyntaxNode, { redirects: Redirect[]; stdin: SimpleCommand['stdin'] }>
    | undefined;
  /** Where the most recent `cd` went when it succeeded (for `cd x && y`). */
  private cdSuccess: CwdSet | undefined;
  /** The line changes what globs match (`shopt -s dotglob`, `GLOBIGNORE=`): see unknownGlobs. */
  private globsChanged = false;

  constructor(private readonly source: string) {
    this.multiline = source.includes('\n');
  }

  result(): CommandLine {
    return {
      source: this.source,
      commands: this.globsChanged ? this.commands.map(unknownGlobs) : this.commands,
      functions: this.functions ?? NO_NAMES,
      taintedNames: this.tainted ?? NO_NAMES,
      variables: this.variables ?? NO_VARIABLES,
      arithmeticNames: this.arithmetic ?? NO_NAMES,
      promptExpansions: this.prompt,
      indirectExpansions: this.indirect,
      problems: this.problems,
    };
  }

  /** Records a value a variable takes; undefined means one the line does not show. */
  private assign(name: string, value: Word | undefined, prefix = false): void {
    this.variables ??= new Map();
    let v = this.variables.get(name);
    if (v === undefined) {
      v = { values: new Set(), dynamic: false, prefixOnly: prefix };
      this.variables.set(name, v);
    } else if (!prefix) v.prefixOnly = false;
    if (value === undefined || isDynamic(value)) v.dynamic = true;
    else v.values.add(value.value);
  }

  /**
   * The positional parameters get values the line chooses: `set x ...` or a function called with
   * arguments. Like a variable the line sets, their values can then hold an array subscript that
   * arithmetic runs (`$(( $1 ))`), or an option.
   */
  private positionalsSet(): void {
    for (const p of POSITIONAL_NAMES) this.tainted = addTo(this.tainted, p);
  }

  problem(reason: string): void {
    if (!this.problems.includes(reason)) this.problems.push(reason);
  }

  private text(node: SyntaxNode): string {
    return this.source.slice(node.start, node.end);
  }

  private snippet(node: SyntaxNode): string {
    const t = this.text(node).replace(/\s+/g, ' ');
    return t.length > 40 ? `${t.slice(0, 37)}...` : t;
  }

  // ---------------------------------------------------------------- statements

  /** A sequence of statements (program, compound bodies); `&` puts the one before it in the background. */
  statements(nodes: readonly SyntaxNode[], ctx: Context = LINE): void {
    let mark = this.commands.length;
    for (const node of nodes) {
      if (node.type === '&') {
        this.markBackground(mark);
        mark = this.commands.length;
        continue;
      }
      if (!node.named) {
        if (!SEPARATORS.has(node.type)) this.problem(`unsupported token "${node.type}"`);
        mark = this.commands.length;
        continue;
      }
      mark = this.commands.length;
      this.statement(node, ctx);
    }
  }

  private markBackground(from: number): void {
    for (let i = from; i < this.commands.length; i++)
      this.commands[i] = { ...this.commands[i]!, background: true };
  }

  private statement(node: SyntaxNode, ctx: Context): void {
    switch (node.type) {
      case 'comment':
        return;
      case 'command':
        this.command(node, ctx, []);
        return;
      case 'redirected_statement':
        this.redirectedStatement(node, ctx);
        return;
      case 'list':
        this.list(node, ctx);
        return;
      case 'pipeline':
        this.pipeline(node.children, ctx);
        return;
      case 'subshell':
        this.isolatedCwd(() => this.statements(node.children, ctx));
        return;
      case 'compound_statement':
        if (node.children[0]?.type === '((') this.arithmeticCommand(node, ctx);
        else this.statements(node.children, ctx);
        return;
      case 'negated_command':
        this.statements(
          node.children.filter((c) => c.type !== '!'),
          ctx,
        );
        return;
      case 'if_statement':
      case 'elif_clause':
      case 'else_clause':
      case 'do_group':
        this.branching(() =>
          this.statements(
            node.children.filter((c) => !KEYWORDS.has(c.type)),
            ctx,
          ),
        );
        return;
      case 'while_statement':
        this.branching(() =>
          this.statements(
            node.children.filter((c) => !KEYWORDS.has(c.type)),
            ctx,
          ),
        );
        return;
      case 'for_statement':
        this.forStatement(node, ctx);
        return;
      case 'c_style_for_statement':
        this.cStyleFor(node, ctx);
        return;
      case 'case_statement':
        this.caseStatement(node, ctx);
        return;
      case 'function_definition':
        this.functionDefinition(node);
        return;
      case 'variable_assignment':
        this.push('assignment', [], [this.assignment(node, ctx)], [], node, ctx);
        return;
      case 'variable_assignments':
        this.push(
          'assignment',
          [],
          node.children.filter((c) => c.type === 'variable_assignment').map((c) => this.assignment(c, ctx)),
          [],
          node,
          ctx,
        );
        return;
      case 'declaration_command':
      case 'unset_command':
        this.declaration(node, ctx);
        return;
      case 'test_command':
        this.testCommand(node, ctx);
        return;
      case 'ERROR':
        this.problem(`bash syntax error near "${this.snippet(node)}"`);
        this.recover(node, ctx);
        return;
      default:
        this.problem(`unsupported construct "${node.type}"`);
        this.recover(node, ctx);
    }
  }

  /** Best effort inside a part the parser could not read: keep every command it can see. */
  private recover(node: SyntaxNode, ctx: Context): void {
    for (const child of node.children) {
      if (!child.named) continue;
      if (STATEMENT_TYPES.has(child.type)) this.statement(child, ctx);
      else if (child.type === 'command_name')
        this.push('command', [this.word(child, ctx)], [], [], child, ctx);
      else this.recover(child, ctx);
    }
  }

  private list(node: SyntaxNode, ctx: Context): void {
    const before = this.cwd;
    let changed = false;
    let op: string | undefined;
    for (const child of node.children) {
      if (child.type === '&&' || child.type === '||') {
        op = child.type;
        continue;
      }
      if (!child.named) {
        this.problem(`unsupported token "${child.type}" in a list`);
        continue;
      }
      const start = this.cwd;
      if (op === '&&' && this.cdSuccess !== undefined) this.cwd = this.cdSuccess;
      else if (op === '||' && changed) this.cwd = union(before, this.cwd);
      this.cdSuccess = undefined;
      this.statement(child, ctx);
      if (this.cwd !== start) changed = true;
    }
    // After a list, any operand may have stopped it: every cwd seen is possible.
    if (changed) this.cwd = union(before, this.cwd);
    this.cdSuccess = undefined;
  }

  private pipeline(nodes: readonly SyntaxNode[], ctx: Context): void {
    let first = true;
    for (const child of nodes) {
      if (child.type === '|' || child.type === '|&') continue;
      if (!child.named) {
        this.problem(`unsupported token "${child.type}" in a pipeline`);
        continue;
      }
      // Every element of a pipeline runs in its own subshell: a cd there does not leak. (What
      // isolatedCwd does, without a closure per element.)
      const saved = this.cwd;
      this.statement(child, first ? ctx : withStdin(ctx, 'pipe'));
      this.cwd = saved;
      this.cdSuccess = undefined;
      first = false;
    }
  }

  private isolatedCwd(run: () => void): void {
    const saved = this.cwd;
    run();
    this.cwd = saved;
    this.cdSuccess = undefined;
  }

  /** A body that may run zero or more times: a cd inside leaves the cwd unknown afterwards. */
  private branching(run: () => void): void {
    const saved = this.cwd;
    run();
    if (this.cwd !== saved) this.cwd = null;
    this.cdSuccess = undefined;
  }

  private forStatement(node: SyntaxNode, ctx: Context): void {
    let variable: string | undefined;
    let numeric = true;
    let sawIn = false;
    const words: Word[] = [];
    for (const child of node.children) {
      if (child.type === 'variable_name') variable = this.text(child);
      else if (child.type === 'in') sawIn = true;
      else if (child.type === 'do_group') this.branching(() => this.statements(child.children, ctx));
      else if (child.named && child.type !== 'comment') {
        const w = this.word(child, ctx);
        words.push(w);
        if (isDynamic(w) || !/^-?\d+$/.test(w.value)) numeric = false;
      }
    }
    // `for x; do` iterates over "$@", which the line does not show.
    if (variable !== undefined && (!numeric || !sawIn)) this.tainted = addTo(this.tainted, variable);
    if (variable !== undefined) {
      if (!sawIn) this.assign(variable, undefined);
      for (const w of words) this.assign(variable, w);
    }
  }

  private cStyleFor(node: SyntaxNode, ctx: Context): void {
    for (const child of node.children) {
      if (child.type === 'do_group' || child.type === 'compound_statement') {
        this.branching(() => this.statements(child.children, ctx));
      } else if (child.named) this.arithmeticExpression(child, ctx);
    }
  }

  private caseStatement(node: SyntaxNode, ctx: Context): void {
    for (const child of node.children) {
      if (child.type === 'case_item') {
        this.branching(() => {
          let inBody = false;
          for (const part of child.children) {
            if (part.type === ')') inBody = true;
            else if (!part.named) continue;
            else if (!inBody) this.word(part, ctx);
            else this.statements([part], ctx);
          }
        });
      } else if (child.named && child.type !== 'comment') this.word(child, ctx);
    }
  }

  private functionDefinition(node: SyntaxNode): void {
    const name = node.children.find((c) => c.type === 'word');
    if (name) this.functions = addTo(this.functions, this.text(name));
    // In its body, $1... are the arguments of each call.
    this.positionalsSet();
    const before = this.cwd;
    for (const child of node.children) {
      if (child.type === 'word' || !child.named) continue;
      if (child.type === 'file_redirect' || child.type === 'herestring_redirect') {
        this.push(
          'redirect-only',
          [],
          [],
          [this.redirect(child, { nesting: 'function', stdin: 'inherit' })],
          child,
          {
            nesting: 'function',
            stdin: 'inherit',
          },
        );
      } else this.statement(child, { nesting: 'function', stdin: 'inherit' });
    }
    // The body runs whenever the function is called, so a cd inside it may happen later.
    if (this.cwd !== before) this.cwd = null;
  }

  private arithmeticCommand(node: SyntaxNode, ctx: Context): void {
    for (const child of node.children) if (child.named) this.arithmeticExpression(child, ctx);
    this.push('arithmetic', [], [], [], node, ctx);
  }

  // ---------------------------------------------------------------- commands

  private redirectedStatement(node: SyntaxNode, ctx: Context): void {
    const body = node.children.find((c) => c.named && !REDIRECT_TYPES.has(c.type));
    const redirects: Redirect[] = [];
    const trailing: SyntaxNode[] = [];
    let stdin = ctx.stdin;
    for (const child of node.children) {
      if (child === body || !child.named) continue;
      if (child.type === 'heredoc_redirect') {
        redirects.push(...this.heredoc(child, ctx, trailing));
        stdin = 'heredoc';
      } else if (REDIRECT_TYPES.has(child.type)) {
        const r = this.redirect(child, ctx);
        redirects.push(r);
        if (r.op === '<<<') stdin = 'herestring';
        else if (r.op === '<' && (r.fd === undefined || r.fd === 0)) stdin = 'file';
      } else this.problem(`unsupported part "${child.type}" of a redirected statement`);
    }
    const last = body && (body.type === 'pipeline' || body.type === 'list') ? lastCommand(body) : undefined;
    if (body === undefined) {
      this.push('redirect-only', [], [], redirects, node, withStdin(ctx, stdin));
    } else if (body.type === 'command') {
      this.command(body, withStdin(ctx, stdin), redirects);
    } else if (last !== undefined) {
      // tree-sitter hangs `a | b > f` and `a && b > f` on the whole pipeline or list; bash binds
      // the redirections to the last simple command.
      this.pendingRedirects ??= new Map();
      this.pendingRedirects.set(last, { redirects, stdin });
      this.statement(body, ctx);
    } else {
      this.statement(body, withStdin(ctx, stdin));
      this.push('redirect-only', [], [], redirects, node, ctx);
    }
    // tree-sitter hangs `cmd <<EOF | next && other` off the heredoc: they follow in a pipeline.
    if (trailing.length > 0) this.pipeline(trailing, withStdin(ctx, 'pipe'));
  }

  /** `redirectsAround`: those found around the command, in a list the caller hands over (the command's own are added to it). */
  private command(node: SyntaxNode, ctx: Context, redirectsAround: Redirect[]): void {
    const assignments: Assignment[] = [];
    const argv: Word[] = [];
    const pending = this.pendingRedirects?.get(node);
    const redirects: Redirect[] =
      pending === undefined ? redirectsAround : [...redirectsAround, ...pending.redirects];
    let stdin = pending && pending.stdin !== 'inherit' ? pending.stdin : ctx.stdin;
    // tree-sitter sometimes ends a word where bash does not: `'r'\m` or `r\<newline>m` come out
    // as two nodes with nothing (or only a line continuation) between them, which bash reads
    // as the one word `rm`. Such neighbours are joined; after a redirect or an assignment they
    // make the line not understood. Where the previous part ended (an anonymous token's end is
    // -1), and its nodes when it was a word: plain locals, not an object per part and a closure.
    let previousEnd: number | undefined;
    let previousWord: readonly SyntaxNode[] | undefined;
    for (const child of node.children) {
      // Nor does a simple command go on past an unescaped newline; tree-sitter sometimes reads
      // `… | head⏎mysql <<'SQL'…` as the one command `head mysql`.
      if (
        previousEnd !== undefined &&
        child.type !== 'comment' &&
        this.newlineBetween(previousEnd, child.start)
      )
        this.problem(
          `parser disagreement: "${this.snippet(node)}" is read as one command across a line break`,
        );
      switch (child.type) {
        case 'variable_assignment':
          assignments.push(this.assignment(child, ctx, argv.length === 0));
          previousEnd = child.end;
          previousWord = undefined;
          break;
        case 'file_redirect':
        case 'herestring_redirect': {
          const r = this.redirect(child, ctx);
          redirects.push(r);
          if (r.op === '<<<') stdin = 'herestring';
          previousEnd = child.end;
          previousWord = undefined;
          break;
        }
        case 'command_name':
          previousWord = this.addWord(argv, previousEnd, previousWord, child.children, child, ctx);
          previousEnd = child.end;
          break;
        case 'comment':
          break;
        case 'subshell':
          // tree-sitter reads `time ( ... )` as a command with a subshell argument.
          if (argv.length !== 1 || argv[0]!.value !== 'time')
            this.problem('unsupported subshell inside a command');
          this.isolatedCwd(() => this.statements(child.children, ctx));
          previousEnd = child.end;
          previousWord = undefined;
          break;
        default:
          if (!child.named && !ARGUMENT_TOKENS.has(child.type)) {
            this.problem(`unsupported token "${child.type}" in a command`);
          }
          previousWord = this.addWord(argv, previousEnd, previousWord, [child], child, ctx);
          previousEnd = child.end;
      }
    }
    this.push(
      argv.length === 0 ? 'assignment' : 'command',
      argv,
      assignments,
      redirects,
      node,
      withStdin(ctx, stdin),
    );
    // `builtin read x` and `command read x` are `read x` all the same.
    const run = runByShell(argv);
    this.trackCd(run);
    this.trackAssigningBuiltins(run);
  }

  /**
   * Adds the word `span` makes to argv, or joins it to the word before it (which ended at
   * `previousEnd`, made of `previousWord`; no end before the first part) when bash reads the
   * two as one. Returns the nodes of the word it made.
   */
  private addWord(
    argv: Word[],
    previousEnd: number | undefined,
    previousWord: readonly SyntaxNode[] | undefined,
    nodes: readonly SyntaxNode[],
    span: SyntaxNode,
    ctx: Context,
  ): readonly SyntaxNode[] {
    if (previousEnd !== undefined && this.joined(previousEnd, span.start)) {
      if (previousWord !== undefined) {
        const merged = [...previousWord, ...nodes];
        argv[argv.length - 1] = this.wordOf(merged, undefined, ctx);
        return merged;
      }
      this.problem(
        `parser disagreement: "${this.source.slice(previousEnd, span.end)}" continues the word before it, which bash would read as one`,
      );
    }
    argv.push(this.wordOf(nodes, span, ctx));
    return nodes;
  }

  /**
   * `read x`, `mapfile a`, `printf -v x` (or `-vx`), `getopts o x`, `wait -p x` set variables from
   * data the line does not show; `set x ...` sets the positional parameters.
   */
  private trackAssigningBuiltins(argv: readonly Word[]): void {
    const name = argv[0]?.value;
    if (name === undefined || !ASSIGNING_BUILTINS.has(name)) return;
    const args = argv.slice(1);
    if (name === 'set') {
      if (setOperands(args) !== undefined) this.positionalsSet();
      return;
    }
    for (let i = 0; i < args.length; i++) {
      const v = args[i]!.value;
      if (name === 'printf' || name === 'wait') {
        const flag = name === 'printf' ? 'v' : 'p';
        // The name follows the flag, attached (`-vX`) or as the next word; other flags may come first (`-nvX` is no printf form, but `wait -np X` is).
        const m = new RegExp(`^-[a-zA-Z]*${flag}(.*)$`).exec(v);
        if (m && !v.startsWith('--')) {
          if (m[1] !== '') this.taintName(m[1]!);
          else if (args[i + 1]) this.taintName(args[i + 1]!.value);
        }
        if (v === '--' || !v.startsWith('-')) break;
        continue;
      }
      if (!v.startsWith('-')) this.taintName(v);
    }
  }

  private taintName(text: string): void {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text);
    if (m) {
      this.tainted = addTo(this.tainted, m[0]);
      this.assign(m[0], undefined);
    }
  }

  private trackCd(argv: readonly Word[]): void {
    const name = argv[0]?.value;
    if (name !== 'cd' && name !== 'pushd' && name !== 'popd') return;
    const args = argv.slice(1).filter((w) => !/^-[LPe@]+$/.test(w.value));
    let target: CwdSet;
    if (name === 'popd' || args.length > 1) target = null;
    else if (args.length === 0) target = name === 'cd' ? ['~'] : null;
    else {
      const arg = args[0]!;
      if (arg.value === '-' || arg.expansions.some((e) => e !== 'tilde')) target = null;
      else
        target =
          this.cwd === null
            ? arg.value.startsWith('/')
              ? [arg.value]
              : null
            : this.cwd.map((c) => joinCwd(c, arg.value));
    }
    this.cdSuccess = target;
    this.cwd = union(this.cwd, target);
  }

  private declaration(node: SyntaxNode, ctx: Context): void {
    const argv: Word[] = [];
    const assignments: Assignment[] = [];
    for (const child of node.children) {
      if (!child.named) {
        argv.push(this.literalWord(child.type));
        continue;
      }
      if (child.type === 'variable_assignment') {
        const a = this.assignment(child, ctx);
        assignments.push(a);
        argv.push(this.assignmentWord(child, a));
      } else if (child.type === 'variable_name') {
        argv.push(this.literalWord(this.text(child)));
      } else if (child.type === 'comment') {
      } else argv.push(this.word(child, ctx));
    }
    // `declare`/`local`/`read`-style builtins assign by name: every named variable is tainted.
    // With -p they print the names instead and set nothing (bash ignores the other options).
    const prints = argv.slice(1).some((w) => /^-[a-zA-Z]*p/.test(w.value));
    for (const w of prints ? [] : argv.slice(1)) {
      const m = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(w.value);
      if (m && !w.value.startsWith('-') && !assignments.some((a) => a.name === m[1] && isInteger(a.value))) {
        this.tainted = addTo(this.tainted, m[1]!);
        if (!assignments.some((a) => a.name === m[1])) this.assign(m[1]!, this.literalWord(''));
      }
    }
    // `declare -i n=...`: the value is evaluated as arithmetic, now and at every later assignment.
    if (argv.some((w) => /^-[a-zA-Z]*i/.test(w.value))) {
      for (const w of argv.slice(1)) {
        const m = /^([A-Za-z_][A-Za-z0-9_]*)/.exec(w.value);
        if (m && !w.value.startsWith('-')) this.integers = addTo(this.integers, m[1]!);
      }
      for (const a of assignments) this.arithmeticValue(a.value);
    }
    this.push('declaration', argv, assignments, [], node, ctx);
  }

  /** `NAME=value` as the word a declaration builtin receives; its value's expansions are the assignment's. */
  private assignmentWord(node: SyntaxNode, a: Assignment): Word {
    const raw = this.text(node);
    const eq = raw.indexOf(a.append ? '+=' : '=');
    const head = eq >= 0 ? raw.slice(0, eq + (a.append ? 2 : 1)) : `${a.name}=`;
    const v = a.value;
    if (!isDynamic(v)) return { value: head + v.value, raw, expansions: [], dynamicStart: false };
    return {
      value: head + v.value,
      raw,
      expansions: v.expansions,
      dynamicStart: false,
      staticPrefix: head.length + (v.staticPrefix ?? 0),
    };
  }

  /** A value bash evaluates as arithmetic: every name in it is evaluated, subscripts included. */
  private arithmeticValue(value: Word): void {
    for (const m of value.raw.matchAll(/[A-Za-z_][A-Za-z0-9_]*|\$\{?([0-9]+|[@*])/g))
      this.arithmetic = addTo(this.arithmetic, m[1] ?? m[0]);
  }

  private testCommand(node: SyntaxNode, ctx: Context): void {
    const argv: Word[] = [];
    const redirects: Redirect[] = [];
    const flatten = (n: SyntaxNode): void => {
      if (!n.named) {
        argv.push(this.literalWord(n.type));
        return;
      }
      switch (n.type) {
        case 'binary_expression':
        case 'unary_expression':
        case 'parenthesized_expression':
          n.children.forEach(flatten);
          return;
        case 'test_operator':
          argv.push(this.literalWord(this.text(n)));
          return;
        case 'redirected_statement':
          this.problem('unsupported redirect inside a test');
          return;
        default:
          argv.push(this.word(n, ctx));
      }
    };
    node.children.forEach(flatten);
    this.push('test', argv, [], redirects, node, ctx);
  }

  private push(
    kind: CommandKind,
    argv: readonly Word[],
    assignments: readonly Assignment[],
    redirects: readonly Redirect[],
    node: SyntaxNode,
    ctx: Context,
  ): void {
    if (!this.globsChanged && changesGlobbing(argv, assignments)) this.globsChanged = true;
    this.commands.push({
      kind,
      argv,
      assignments,
      redirects,
      cwd: this.cwd,
      stdin: ctx.stdin,
      background: false,
      nesting: ctx.nesting,
      start: node.start,
      end: node.end,
    });
  }

  // ---------------------------------------------------------------- assignments and redirects

  private assignment(node: SyntaxNode, ctx: Context, prefix = false): Assignment {
    let name = '';
    let subscript: string | undefined;
    let append = false;
    const valueNodes: SyntaxNode[] = [];
    let seenOperator = false;
    for (const child of node.children) {
      if (!seenOperator) {
        if (child.type === 'variable_name') name = this.text(child);
        else if (child.type === 'subscript') {
          const [n, index] = this.subscript(child, ctx);
          name = n;
          subscript = index;
        } else if (child.type === '=' || child.type === '+=') {
          seenOperator = true;
          append = child.type === '+=';
        } else this.problem(`unsupported assignment part "${child.type}"`);
      } else valueNodes.push(child);
    }
    const value = valueNodes.length === 0 ? this.literalWord('') : this.wordOf(valueNodes, node, ctx);
    // A prefix assignment (`X=1 cmd`) is only seen by that command; it still taints the name
    // for arithmetic in that command's arguments, which bash expands before running it.
    // `n=$((n+1))` assigns a number, whatever the expression: the counter is no more tainted
    // than `n=1` (a subscript in the expression runs when the expression is evaluated, and the
    // names in it are checked as arithmetic).
    const numeric = isInteger(value) || isArithmeticValue(value, valueNodes);
    if (!numeric || append || subscript !== undefined || prefix) this.tainted = addTo(this.tainted, name);
    if (this.integers?.has(name)) this.arithmeticValue(value);
    this.assign(name, append ? undefined : value, prefix);
    return subscript === undefined ? { name, value, append } : { name, subscript, value, append };
  }

  private subscript(node: SyntaxNode, ctx: Context): [string, string] {
    let name = '';
    let index = '';
    for (const child of node.children) {
      if (child.type === 'variable_name' && name === '') name = this.text(child);
      else if (child.named) {
        index = this.text(child);
        // `${a[@]}` and `${a[*]}` are every element, not an index to evaluate.
        if (index !== '@' && index !== '*') this.arithmeticExpression(child, ctx);
      }
    }
    return [name, index];
  }

  private redirect(node: SyntaxNode, ctx: Context): Redirect {
    let fd: number | undefined;
    let op: RedirectOp | undefined;
    const targetNodes: SyntaxNode[] = [];
    for (const child of node.children) {
      if (child.type === 'file_descriptor') fd = Number(this.text(child));
      else if (!child.named && REDIRECT_OPS.has(child.type)) op = child.type as RedirectOp;
      else if (child.named) targetNodes.push(child);
      else this.problem(`unsupported redirect token "${child.type}"`);
    }
    if (op === undefined) {
      if (node.type === 'herestring_redirect') op = '<<<';
      else {
        this.problem(`unsupported redirect "${this.snippet(node)}"`);
        op = '>';
      }
    }
    const target = targetNodes.length > 0 ? this.wordOf(targetNodes, undefined, ctx) : undefined;
    const out: { op: RedirectOp; fd?: number; target?: Word } = { op };
    if (fd !== undefined) out.fd = fd;
    if (target !== undefined) out.target = target;
    return out;
  }

  private heredoc(node: SyntaxNode, ctx: Context, trailing: SyntaxNode[]): Redirect[] {
    let op: RedirectOp = '<<';
    let delimiter = '';
    let quoted = false;
    let body = '';
    const extra: Redirect[] = [];
    for (const child of node.children) {
      switch (child.type) {
        case '<<':
        case '<<-':
          op = child.type;
          break;
        case 'heredoc_start': {
          const raw = this.text(child);
          quoted = /['"\\]/.test(raw);
          delimiter = raw.replace(/['"\\]/g, '');
          // `$'EOF'` or `$"EOF"`: what bash's quote removal makes of these is not modelled.
          if (raw.includes('$')) this.problem(`unsupported heredoc delimiter ${raw}`);
          break;
        }
        case 'heredoc_body':
          body = this.text(child);
          this.checkHeredocLines(body, delimiter, op, quoted, child);
          // An unquoted heredoc expands its body: substitutions in it run. tree-sitter leaves
          // some bodies (`<<-`) unparsed; read those as the double-quoted text they behave like.
          if (!quoted) {
            if (child.children.length > 0) this.expandInto(new WordBuilder(), child, ctx);
            else if (/[$`]/.test(body)) this.reparse(`: "${body.replace(/(?<!\\)"/g, '\\"')}"`, child, ctx);
          }
          break;
        case 'heredoc_end':
          if (stripTabs(this.text(child), op) !== delimiter)
            this.problem(
              `parser disagreement: the here-document ends at "${this.text(child)}", but bash ends it at a line "${delimiter}"`,
            );
          break;
        case 'file_redirect':
        case 'herestring_redirect':
          extra.push(this.redirect(child, ctx));
          break;
        default:
          if (STATEMENT_TYPES.has(child.type)) trailing.push(child);
          else if (child.type === '|' || child.type === '|&' || child.type === '&&' || child.type === '||') {
            if (child.type !== '|' && child.type !== '|&') {
              this.problem(`unsupported "${child.type}" after a heredoc`);
            }
          } else this.problem(`unsupported heredoc part "${child.type}"`);
      }
    }
    return [{ op, target: this.literalWord(delimiter), heredoc: { quoted, body } }, ...extra];
  }

  /**
   * bash ends a here-document at the first line that is the delimiter after quote removal
   * (`<<E"O"F` ends at `EOF`), tabs stripped for `<<-`. In an unquoted one, a backslash-newline
   * joins two lines before that test (`EO\` then `F` is the line `EOF`). A body that holds such
   * a line was read longer than bash reads it: what follows that line is commands.
   */
  private checkHeredocLines(
    body: string,
    delimiter: string,
    op: RedirectOp,
    quoted: boolean,
    node: SyntaxNode,
  ): void {
    for (const line of quoted ? body.split('\n') : joinedLines(body)) {
      if (stripTabs(line, op) === delimiter) {
        this.problem(
          `parser disagreement: bash ends the here-document at the line "${delimiter}" inside "${this.snippet(node)}"`,
        );
        return;
      }
    }
  }

  // ---------------------------------------------------------------- words

  private literalWord(text: string): Word {
    return { value: text, raw: text, expansions: [], dynamicStart: false };
  }

  /** Whether the text between two nodes holds a newline that is not a line continuation. */
  private newlineBetween(end: number, start: number): boolean {
    if (!this.multiline) return false;
    const gap = this.source.slice(end, start);
    return gap.includes('\n') && gap.replaceAll('\\\n', '').includes('\n');
  }

  /** Whether bash reads the text between two nodes as no separation at all. */
  private joined(end: number, start: number): boolean {
    if (start === end) return true;
    if (!this.multiline) return false;
    const gap = this.source.slice(end, start);
    return LINE_CONTINUATIONS.test(gap);
  }

  private word(node: SyntaxNode, ctx: Context): Word {
    return this.wordOf([node], node, ctx);
  }

  private wordOf(nodes: readonly SyntaxNode[], span: SyntaxNode | undefined, ctx: Context): Word {
    if (nodes.length === 1) {
      const plain = this.plainWord(nodes[0]!, span);
      if (plain !== undefined) return plain;
    }
    const b = new WordBuilder();
    for (const n of nodes) this.piece(b, n, ctx);
    // An anonymous token (`==` as an argument) has no position; its text is its type.
    const raw = span
      ? span.named
        ? this.text(span)
        : span.type
      : nodes.length > 0
        ? this.source.slice(nodes[0]!.start, nodes[nodes.length - 1]!.end)
        : '';
    return b.build(raw);
  }

  /**
   * Most words are one unquoted token with no escape, blank or pattern character: their value
   * is their text, which is what `piece` and WordBuilder would make of them, only sooner.
   */
  private plainWord(node: SyntaxNode, span: SyntaxNode | undefined): Word | undefined {
    if ((node.type !== 'word' && node.type !== 'number') || node.children.length > 0) return undefined;
    const value = this.text(node);
    if (NOT_PLAIN.test(value)) return undefined;
    // The span is mostly the node itself: its text is `value`, not a second slice of it.
    const raw = span === undefined || span === node ? value : this.text(span);
    return { value, raw, expansions: [], dynamicStart: false };
  }

  /** Adds one syntax node's contribution to a word. */
  private piece(b: WordBuilder, node: SyntaxNode, ctx: Context): void {
    switch (node.type) {
      case 'word':
      case 'number': {
        const text = this.text(node);
        // An unquoted word cannot hold unescaped blanks in bash; tree-sitter sometimes reads
        // `x\n\\rm -rf y` as one word, which bash runs as two commands. Never trust that.
        if (UNESCAPED_BLANK.test(text)) {
          this.problem(
            `parser disagreement: the word "${this.snippet(node)}" contains a blank bash would split on`,
          );
        }
        if (node.children.length > 0) this.expandInto(b, node, ctx);
        else decodeUnquoted(text, (chunk, unquoted) => b.literal(chunk, unquoted));
        return;
      }
      case 'concatenation':
      case 'command_name':
        for (const child of node.children) this.piece(b, child, ctx);
        return;
      case 'raw_string':
        b.literal(this.text(node).slice(1, -1), false);
        return;
      case 'ansi_c_string':
        b.literal(decodeAnsiC(this.text(node).slice(2, -1)), false);
        return;
      case 'string':
      case 'translated_string':
        this.doubleQuoted(b, node, ctx);
        return;
      case 'extglob_pattern':
      case 'regex':
        this.patternExpansions(node, ctx);
        b.literal(this.text(node), true);
        return;
      case 'variable_name':
        b.literal(this.text(node), true);
        return;
      case 'simple_expansion':
      case 'expansion':
      case 'command_substitution':
      case 'process_substitution':
      case 'arithmetic_expansion':
      case 'brace_expression':
      case 'array':
        this.expandInto(b, node, ctx);
        return;
      default:
        if (!node.named && ARGUMENT_TOKENS.has(node.type)) {
          b.literal(node.type, false);
          return;
        }
        this.problem(`unsupported word part "${node.type}" in "${this.snippet(node)}"`);
        b.expansion('variable', this.text(node));
    }
  }

  private doubleQuoted(b: WordBuilder, node: SyntaxNode, ctx: Context): void {
    const inner = node.type === 'translated_string' ? node.children.find((c) => c.type === 'string') : node;
    if (inner === undefined) {
      this.problem('unsupported translated string');
      return;
    }
    // Literal text is whatever lies between the expansions, so spaces inside tokens survive.
    let pos = inner.start + 1;
    const end = inner.end - 1;
    const outer = b.quoted;
    b.quoted = true;
    for (const child of inner.children) {
      if (child.type === 'string_content' || !child.named) continue;
      if (child.start > pos) b.literal(decodeDoubleQuoted(this.source.slice(pos, child.start)), false);
      this.expandInto(b, child, ctx);
      pos = Math.max(pos, child.end);
    }
    b.quoted = outer;
    if (end > pos) b.literal(decodeDoubleQuoted(this.source.slice(pos, end)), false);
    else if (inner.end - inner.start === 2) b.literal('', false);
  }

  /** An expansion: its value is unknown, and any commands inside it run. */
  private expandInto(b: WordBuilder, node: SyntaxNode, ctx: Context): void {
    switch (node.type) {
      case 'simple_expansion': {
        const name = node.children.find(
          (c) => c.type === 'variable_name' || c.type === 'special_variable_name',
        );
        b.expansion('variable', this.text(node), { kind: 'variable', name: name ? this.text(name) : '?' });
        return;
      }
      case 'expansion': {
        const simple = /^\$\{([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])\}$/.exec(this.text(node));
        // `${x}` is `$x`; any operator (`${x:-y}`, `${x#y}`, `${!x}`) makes the start unknown.
        b.expansion(
          'variable',
          this.text(node),
          simple ? { kind: 'variable', name: simple[1]! } : { kind: 'variable', name: '?' },
        );
        this.parameterExpansion(node, ctx);
        return;
      }
      case 'command_substitution':
        b.expansion('command', this.text(node), { kind: 'command', text: this.substitutionHead(node) });
        this.substitution(node, ctx);
        return;
      case 'process_substitution':
        b.expansion('process', this.text(node));
        this.isolatedCwd(() =>
          this.statements(
            node.children.filter((c) => c.named),
            { nesting: 'process-substitution', stdin: 'inherit' },
          ),
        );
        return;
      case 'arithmetic_expansion':
        b.expansion('arithmetic', this.text(node));
        for (const c of node.children) if (c.named) this.arithmeticExpression(c, ctx);
        return;
      case 'brace_expression':
        b.expansion('brace', this.text(node));
        return;
      case 'array':
        b.expansion('variable', this.text(node));
        for (const c of node.children) if (c.named) this.piece(new WordBuilder(), c, ctx);
        return;
      case 'heredoc_body':
      case 'word':
      case 'number':
        for (const c of node.children) {
          if (c.type === 'heredoc_content') continue;
          if (c.named) this.expandInto(b, c, ctx);
        }
        if (node.type !== 'heredoc_body') b.expansion('variable', this.text(node));
        return;
      default:
        this.problem(`unsupported expansion "${node.type}"`);
        b.expansion('variable', this.text(node));
    }
  }

  /** The first command of a substitution as text (`git merge-base HEAD main`), for judging its output. */
  private substitutionHead(node: SyntaxNode): string {
    const inner = node.children.filter((c) => c.named);
    if (inner.length !== 1 || inner[0]!.type !== 'command') return '';
    return this.text(inner[0]!);
  }

  private substitution(node: SyntaxNode, ctx: Context): void {
    const inner = node.children.filter((c) => c.named);
    const nested: Context = { nesting: 'substitution', stdin: 'inherit' };
    const open = node.children[0];
    const body = this.text(node).trim();
    if (open && open.type === '`' && body.startsWith('`') && body.includes('\\')) {
      // Inside backticks bash first removes the backslash from \` \$ and \\, then parses what is
      // left: an escaped backtick there opens a nested substitution tree-sitter does not see.
      const unescaped = body.slice(1, -1).replace(/\\([`$\\])/g, '$1');
      this.isolatedCwd(() => this.reparse(unescaped, node, nested));
      return;
    }
    this.isolatedCwd(() => {
      // `$(< file)` reads a file: the same as `cat file`.
      if (inner.length > 0 && inner.every((c) => c.type === 'file_redirect')) {
        this.push(
          'redirect-only',
          [],
          [],
          inner.map((c) => this.redirect(c, nested)),
          node,
          nested,
        );
      } else this.statements(inner, nested);
    });
    void ctx;
  }

  /**
   * tree-sitter keeps a pattern (`${v#PAT}`, `##`, `%`, `%%`, `^`, `^^`, `,`, `,,`, `[[ x =~ PAT ]]`)
   * as one text node, but bash expands it first: `$(...)`, backquotes and `$((...))` in it run.
   * Its expansions are those of the same text in double quotes (where only `$`, backquote and
   * backslash are special), which is re-read as such; quotes inside are not modelled.
   */
  private patternExpansions(node: SyntaxNode, ctx: Context): void {
    const text = this.text(node);
    if (!/[$`]/.test(text)) return;
    if (/["']/.test(text)) {
      this.problem(`unsupported quotes in the pattern "${this.snippet(node)}", which bash expands`);
      return;
    }
    // A `$` that starts no expansion (`^a$`) is literal; escaped, it cannot meet the closing quote as `$"`.
    this.reparse(`: "${text.replace(/\$(?![A-Za-z_{(0-9@*#?$!-])/g, '\\$')}"`, node, ctx);
  }

  /** Parses text that bash re-reads as code, and adopts its commands (offsets: the enclosing node). */
  private reparse(text: string, at: SyntaxNode, ctx: Context): void {
    if (++this.reparseDepth > MAX_REPARSE_DEPTH) {
      this.problem(`too complex: backquotes nested more than ${MAX_REPARSE_DEPTH} levels deep`);
      return;
    }
    try {
      const inner = parseCommandLine(text);
      for (const p of inner.problems) this.problem(p);
      for (const c of inner.commands) {
        this.commands.push({ ...c, start: at.start, end: at.end, cwd: this.cwd, nesting: ctx.nesting });
      }
      for (const f of inner.functions) this.functions = addTo(this.functions, f);
      for (const t of inner.taintedNames) this.tainted = addTo(this.tainted, t);
      for (const [n, v] of inner.variables) {
        if (v.dynamic) this.assign(n, undefined, v.prefixOnly);
        for (const value of v.values) this.assign(n, this.literalWord(value), v.prefixOnly);
      }
      for (const a of inner.arithmeticNames) this.arithmetic = addTo(this.arithmetic, a);
      this.prompt.push(...inner.promptExpansions);
      this.indirect.push(...inner.indirectExpansions);
    } finally {
      this.reparseDepth--;
    }
  }

  private parameterExpansion(node: SyntaxNode, ctx: Context): void {
    const children = node.children;
    let name: string | undefined;
    let sawOperator = false;
    let substring = false;
    for (let i = 0; i < children.length; i++) {
      const c = children[i]!;
      if (c.type === ':' && name !== undefined) substring = true;
      if (substring && c.named && c.type !== 'variable_name' && c.type !== 'special_variable_name') {
        this.arithmeticExpression(c, ctx);
        continue;
      }
      if (c.type === 'variable_name' || c.type === 'special_variable_name') {
        if (name === undefined) name = this.text(c);
        // `${x:offset:length}`: offset and length are arithmetic, where a name's value is evaluated.
        else if (substring) this.arithmetic = addTo(this.arithmetic, this.text(c));
        continue;
      }
      if (c.type === '!' && name === undefined && !sawOperator) {
        const target = children[i + 1];
        if (target && (target.type === 'variable_name' || target.type === 'subscript')) {
          const after = children[i + 2]?.type;
          // `${!prefix*}` and `${!prefix@}` list names; anything else dereferences the value.
          if (after !== '*' && after !== '@') this.indirect.push(this.text(target));
        }
        continue;
      }
      if (c.type === '@' && children[i + 1]?.type === 'P') {
        this.prompt.push(name ?? '?');
        continue;
      }
      if (c.type === ':=' || c.type === '=') sawOperator = true;
      if (c.type === 'subscript') {
        const [n] = this.subscript(c, ctx);
        if (name === undefined) name = n;
        continue;
      }
      if (!c.named) {
        if (c.type !== '${' && c.type !== '}') sawOperator = true;
        continue;
      }
      // Operands of :- := :+ :? // # % and the like: words whose expansions run.
      this.piece(new WordBuilder(), c, ctx);
    }
    if (name !== undefined) {
      this.variableUse(name);
      if (sawOperator && children.some((c) => c.type === ':=' || c.type === '=')) {
        this.tainted = addTo(this.tainted, name);
        this.assign(name, undefined);
      }
    }
  }

  private variableUse(_name: string): void {
    // Reserved for a future data-flow view; plain expansions run no code.
  }

  /** Arithmetic: identifiers are evaluated as expressions, so their values can run code. */
  private arithmeticExpression(node: SyntaxNode, ctx: Context): void {
    switch (node.type) {
      case 'variable_name':
        this.arithmetic = addTo(this.arithmetic, this.text(node));
        return;
      case 'word': {
        const t = this.text(node);
        if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(t)) this.arithmetic = addTo(this.arithmetic, t);
        else if (!/^[0-9#xXa-fA-F]+$/.test(t)) this.problem(`unsupported arithmetic "${this.snippet(node)}"`);
        return;
      }
      case 'number':
        if (node.children.length > 0) for (const c of node.children) this.arithmeticExpression(c, ctx);
        return;
      case 'simple_expansion':
      case 'expansion':
        for (const c of node.children) {
          if (c.type === 'variable_name') this.arithmetic = addTo(this.arithmetic, this.text(c));
        }
        if (node.type === 'expansion') this.parameterExpansion(node, ctx);
        return;
      case 'command_substitution':
        this.substitution(node, ctx);
        return;
      case 'subscript': {
        const [n] = this.subscript(node, ctx);
        this.arithmetic = addTo(this.arithmetic, n);
        return;
      }
      case 'variable_assignment': {
        let target: string | undefined;
        for (const c of node.children) {
          if (c.type === 'variable_name' && target === undefined) target = this.text(c);
          else if (c.named) this.arithmeticExpression(c, ctx);
        }
        if (target !== undefined) {
          this.arithmetic = addTo(this.arithmetic, target);
          // `(( PATH = 0 ))` binds PATH as surely as `PATH=0` (its value is a number).
          this.assign(target, undefined);
        }
        return;
      }
      case 'string':
      case 'raw_string':
        this.problem('unsupported quoted text inside arithmetic');
        return;
      default:
        if (ARITHMETIC_TYPES.has(node.type)) {
          const target = arithmeticTarget(node);
          // `(( PATH = 0 ))`, `(( IFS++ ))` bind the name as surely as `PATH=0` (to a number).
          if (target !== undefined) this.assign(this.text(target), undefined);
          for (const c of node.children) if (c.named) this.arithmeticExpression(c, ctx);
        } else if (node.named) this.problem(`unsupported arithmetic "${node.type}"`);
    }
  }
}

const ARITHMETIC_ASSIGNMENT = /^([-+*/%&|^]|<<|>>)?=$|^(\+\+|--)$/;

/** The variable an arithmetic assignment (`x = 1`, `x += 1`, `x++`, `--x`) sets, if it is one. */
function arithmeticTarget(node: SyntaxNode): SyntaxNode | undefined {
  const [a, b] = node.children;
  if (a === undefined || b === undefined) return undefined;
  if (a.type === 'variable_name' && !b.named && ARITHMETIC_ASSIGNMENT.test(b.type)) return a;
  if (b.type === 'variable_name' && !a.named && /^(\+\+|--)$/.test(a.type)) return b;
  return undefined;
}

/** Shell options that change which files a glob names: dot files, case, `**`, extended patterns. */
const GLOB_OPTIONS = /^(dotglob|nocaseglob|globstar|extglob|nocasematch|globasciiranges)$/;

/**
 * `shopt -s dotglob` (or any shopt whose option is only known at run time) and a GLOBIGNORE
 * assignment (which turns dotglob on) make `*` reach `.env`, `.E[N]V` reach `.env`: what a glob
 * names is no longer what listing the directory the usual way shows.
 */
function changesGlobbing(argv: readonly Word[], assignments: readonly Assignment[]): boolean {
  if (assignments.some((a) => a.name === 'GLOBIGNORE')) return true;
  const name = argv[0];
  if (name === undefined || isDynamic(name)) return false;
  if (
    name.value === 'declare' ||
    name.value === 'export' ||
    name.value === 'typeset' ||
    name.value === 'local'
  )
    return argv.some((w) => /^GLOBIGNORE(=|$)/.test(w.value) || isDynamic(w));
  if (name.value !== 'shopt') return false;
  return argv.slice(1).some((w) => isDynamic(w) || GLOB_OPTIONS.test(w.value));
}

/**
 * Once a line changed globbing, a glob's files are only known at run time: every word with a glob
 * is also marked as a variable, so a path rule cannot be ruled out by listing the directory.
 */
function unknownGlobs(c: SimpleCommand): SimpleCommand {
  const mark = (w: Word): Word =>
    w.expansions.includes('glob') ? { ...w, expansions: [...w.expansions, 'variable'] } : w;
  const hasGlob = (w: Word | undefined) => w?.expansions.includes('glob') === true;
  if (
    !c.argv.some(hasGlob) &&
    !c.redirects.some((r) => hasGlob(r.target)) &&
    !c.assignments.some((a) => hasGlob(a.value))
  )
    return c;
  return {
    ...c,
    argv: c.argv.map(mark),
    redirects: c.redirects.map((r) => (r.target === undefined ? r : { ...r, target: mark(r.target) })),
    assignments: c.assignments.map((a) => ({ ...a, value: mark(a.value) })),
  };
}

/** The last simple command of a pipeline or list, when it is a plain command. */
function lastCommand(node: SyntaxNode): SyntaxNode | undefined {
  const named = node.children.filter((c) => c.named && c.type !== 'comment');
  const last = named[named.length - 1];
  if (last === undefined) return undefined;
  if (last.type === 'command') return last;
  if (last.type === 'pipeline' || last.type === 'list') return lastCommand(last);
  return undefined;
}

/** A here-document line as bash compares it with the delimiter: `<<-` strips leading tabs. */
function stripTabs(line: string, op: RedirectOp): string {
  return op === '<<-' ? line.replace(/^\t+/, '') : line;
}

function isInteger(w: Word): boolean {
  return !isDynamic(w) && INTEGER.test(w.value);
}

function joinCwd(base: string, target: string): string {
  if (target.startsWith('/') || target.startsWith('~')) return path.posix.normalize(target);
  if (base === '~' || base.startsWith('~/')) return path.posix.normalize(`${base}/${target}`);
  return path.posix.join(base, target);
}

/** The lines bash reads from an unquoted here-document body: a backslash-newline joins two. */
function joinedLines(body: string): string[] {
  const out: string[] = [];
  let pending = '';
  for (const line of body.split('\n')) {
    const backslashes = /\\*$/.exec(line)![0].length;
    if (backslashes % 2 === 1) pending += line.slice(0, -1);
    else {
      out.push(pending + line);
      pending = '';
    }
  }
  if (pending !== '') out.push(pending);
  return out;
}

function union(a: CwdSet, b: CwdSet): CwdSet {
  if (a === null || b === null) return null;
  if (a === b) return a;
  const out = [...new Set([...a, ...b])];
  return out.length > MAX_CWD_CHOICES ? null : out;
}

/** A word holding one of these goes through WordBuilder: escapes, blanks, globs, braces, tildes. */
const NOT_PLAIN = /[\\\s*?[{~]/;
const UNESCAPED_BLANK = /(^|[^\\])[ \t\n\r]/;
/** Only backslash-newlines: bash removes them before it splits words, so they separate nothing. */
const LINE_CONTINUATIONS = /^(?:\\\n)+$/;
const INTEGER = /^[-+]?\d+$/;

const ASSIGNING_BUILTINS = new Set(['read', 'mapfile', 'readarray', 'printf', 'getopts', 'wait', 'set']);

const POSITIONAL_NAMES = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '@', '*'];

/** argv without the `builtin` and `command` (`-p`) in front that run it as it is; `command -v` runs nothing. */
function runByShell(argv: readonly Word[]): readonly Word[] {
  let i = 0;
  for (;;) {
    const v = argv[i]?.value;
    if (v === 'builtin') i++;
    else if (v === 'command') {
      i++;
      while (argv[i]?.value === '-p' || argv[i]?.value === '--') i++;
      if (argv[i]?.value.startsWith('-')) return [];
    } else return i === 0 ? argv : argv.slice(i);
  }
}

/** A value that is one arithmetic expansion, `$((...))`: bash assigns the number it computes. */
function isArithmeticValue(value: Word, nodes: readonly SyntaxNode[]): boolean {
  return nodes.length === 1 && nodes[0]!.type === 'arithmetic_expansion' && value.expansions.length === 1;
}

const KEYWORDS = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'while',
  'until',
  'do',
  'done',
  ';',
  '&',
  ';;',
  '\n',
]);

const STATEMENT_TYPES = new Set([
  'command',
  'redirected_statement',
  'list',
  'pipeline',
  'subshell',
  'compound_statement',
  'negated_command',
  'if_statement',
  'while_statement',
  'for_statement',
  'c_style_for_statement',
  'case_statement',
  'function_definition',
  'variable_assignment',
  'variable_assignments',
  'declaration_command',
  'unset_command',
  'test_command',
]);

const REDIRECT_TYPES = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);

const REDIRECT_OPS = new Set(['>', '>>', '>|', '&>', '&>>', '<', '>&', '<&', '>&-', '<&-', '<<<']);

/** Operators tree-sitter leaves as bare argument tokens (`[[ a == b ]]`, `=~`). */
const ARGUMENT_TOKENS = new Set(['==', '=~', '!=', '=']);

const ARITHMETIC_TYPES = new Set([
  'binary_expression',
  'unary_expression',
  'postfix_expression',
  'ternary_expression',
  'parenthesized_expression',
]);
