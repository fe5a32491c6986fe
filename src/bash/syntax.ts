import {
  type Grammar,
  loadGrammar,
  type NativeCursor,
  type NativeNodes,
  type NativeTree,
  withLanguage,
} from './grammar.js';
import { LIMITS } from './limits.js';
import { simpleSyntax } from './simple-syntax.js';

/**
 * tree-sitter-bash trees (see grammar.ts for the loading) copied into plain objects in one
 * pass. Crossing into the native binding is the expensive part (0.1 to 0.2 µs a call, as much
 * as the parse of a short word), so the copy asks for the minimum: type ids, and start and end
 * for named nodes only. The bulk walk lists each inner node's children in one call; the
 * cursor walk, which needs three calls a node, is the fallback.
 */

export interface SyntaxNode {
  readonly type: string;
  readonly named: boolean;
  /** UTF-16 offsets into the source, as JavaScript strings count (-1 for anonymous tokens). */
  readonly start: number;
  readonly end: number;
  readonly children: readonly SyntaxNode[];
}

export interface SyntaxTree {
  readonly root: SyntaxNode;
  /** tree-sitter found an ERROR or MISSING node somewhere. */
  readonly hasError: boolean;
  /**
   * The first offset of a character that is neither blank nor inside any token of the tree,
   * or -1. tree-sitter-bash sometimes drops text without an ERROR node (`- A=1 ls` parses as
   * `A=1 ls`): bash would run what it dropped, so such a tree is not a reading of the line.
   */
  readonly uncovered: number;
  /**
   * How the tree was made (for tests and benchmarks: all give the same tree): built without the
   * parser for a simple line (simple-syntax.ts), or copied from tree-sitter's.
   */
  readonly walk: 'lexed' | 'bulk' | 'cursor';
}

export type SyntaxResult = { ok: true; tree: SyntaxTree } | { ok: false; reason: string };

export { LIMITS };

/** Most nodes are leaves: they share one empty list instead of allocating their own. */
const NO_CHILDREN: readonly SyntaxNode[] = Object.freeze([]);

/**
 * `walk`: 'auto' builds a simple line's tree without the parser and copies any other's by the
 * bulk walk; 'bulk' and 'cursor' always parse, and copy by that walk (tests compare all three).
 */
export function parseSyntax(source: string, walk: 'auto' | 'bulk' | 'cursor' = 'auto'): SyntaxResult {
  if (source.length > LIMITS.maxSourceChars) {
    return { ok: false, reason: `too complex: ${source.length} characters (limit ${LIMITS.maxSourceChars})` };
  }
  if (walk === 'auto') {
    const lexed = simpleSyntax(source);
    if (lexed !== undefined) return { ok: true, tree: lexed };
  }
  const g = loadGrammar();
  const tree = g.parse(source);
  // Not re-entered: the slots and the binding's transfer buffer hold one copy at a time.
  if (walk !== 'cursor' && !copying && bulkWalkWorks(g)) {
    copying = true;
    try {
      const copied = bulkCopy(g, g.nodes!, tree, source);
      if (copied !== undefined) return copied;
    } catch {
      // an answer of the binding's this code does not expect: the cursor walk copies the tree
    } finally {
      copying = false;
    }
  }
  return cursorCopy(g, tree, source);
}

function cursorCopy(g: Grammar, tree: NativeTree, source: string): SyntaxResult {
  // One root node for the cursor and the error flag: each `tree.rootNode` crosses into C++.
  const rootNode = withLanguage(g, tree).rootNode;
  const hasError = rootNode.hasError;
  const cursor = cursorAt(tree, rootNode);
  const root: MutableNode = {
    type: typeName(g, cursor.nodeTypeId, cursor),
    named: true,
    start: cursor.startIndex,
    end: cursor.endIndex,
    children: NO_CHILDREN,
  };
  const stack: MutableNode[] = [root];
  let parent = root;
  let count = 1;
  // Per open node: its end, and where its last child so far ended (for the gaps between them).
  const openEnds: number[] = [root.end];
  const lastEnds: number[] = [root.start];
  let uncovered = firstNonBlank(source, 0, root.start);
  // Iterative pre-order walk: recursion depth is the input's nesting depth, which is untrusted.
  if (cursor.gotoFirstChild()) {
    parent.children = [];
    for (;;) {
      if (++count > LIMITS.maxNodes)
        return { ok: false, reason: `too complex: more than ${LIMITS.maxNodes} syntax nodes` };
      if (stack.length > LIMITS.maxDepth)
        return { ok: false, reason: `too complex: nested deeper than ${LIMITS.maxDepth} levels` };
      const id = cursor.nodeTypeId;
      const type = typeName(g, id, cursor);
      const start = cursor.startIndex;
      const end = cursor.endIndex;
      // Anonymous tokens (`;`, `|`, `$(`) are read by type only: their offsets are not kept.
      const node: MutableNode = isNamed(g, id)
        ? { type, named: true, start, end, children: NO_CHILDREN }
        : { type, named: false, start: -1, end: -1, children: NO_CHILDREN };
      (parent.children as SyntaxNode[]).push(node);
      uncovered = earliest(
        uncovered,
        firstNonBlank(source, lastEnds[lastEnds.length - 1]!, start, parent.type),
      );
      lastEnds[lastEnds.length - 1] = end;
      if (cursor.gotoFirstChild()) {
        node.children = [];
        stack.push(node);
        openEnds.push(end);
        lastEnds.push(start);
        parent = node;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        uncovered = earliest(
          uncovered,
          firstNonBlank(source, lastEnds.pop()!, openEnds.pop()!, stack[stack.length - 1]!.type),
        );
        if (!cursor.gotoParent() || stack.length === 1) {
          uncovered = earliest(uncovered, firstNonBlank(source, root.end, source.length));
          return { ok: true, tree: { root, hasError, uncovered, walk: 'cursor' } };
        }
        stack.pop();
        parent = stack[stack.length - 1]!;
      }
    }
  }
  uncovered = earliest(uncovered, firstNonBlank(source, root.start, source.length));
  return { ok: true, tree: { root, hasError, uncovered, walk: 'cursor' } };
}

const TOO_MANY_NODES: SyntaxResult = {
  ok: false,
  reason: `too complex: more than ${LIMITS.maxNodes} syntax nodes`,
};
const TOO_DEEP: SyntaxResult = {
  ok: false,
  reason: `too complex: nested deeper than ${LIMITS.maxDepth} levels`,
};

/**
 * Named types that are tokens: the bulk walk does not ask for their children (nor for those
 * of anonymous nodes, which are tokens too). A wrong entry costs no correctness: the node
 * count checked at the end would differ, and the cursor walk would copy the tree instead.
 */
const TOKEN_TYPES = new Set([
  'word',
  'number',
  'variable_name',
  'special_variable_name',
  'raw_string',
  'ansi_c_string',
  'string_content',
  'file_descriptor',
  'heredoc_start',
  'heredoc_end',
  'heredoc_content',
  'comment',
  'test_operator',
  'regex',
  'extglob_pattern',
]);

/**
 * Node types whose last child always ends where they end, so its end needs no native call:
 * in tree-sitter-bash's grammar each ends with a visible node (a command with its last argument
 * or its name, a pipeline or list with its last statement, a redirect with its destination),
 * never with a hidden token such as the `\n` that can close an `else` clause. Only in trees
 * without errors (error recovery can end a node anywhere), and never when the node's last
 * character is blank (no token ends with one); the tests hold the two walks equal.
 */
const ENDS_WITH_LAST_CHILD = new Set([
  'command_name',
  'command',
  'pipeline',
  'list',
  'redirected_statement',
  'file_redirect',
  'simple_expansion',
]);

/** Any whitespace, \r, \v and \f included (a wider set than firstNonBlank's blanks: here, wider is safer). */
function isWhitespace(source: string, at: number): boolean {
  const c = source.charCodeAt(at);
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c;
}

/**
 * How the binding passes a node through its transfer buffer: six 32-bit words (the node's id
 * in two, then its start byte, start row and column, and alias). The start byte is twice the
 * UTF-16 index, as the binding parses UTF-16.
 */
const NODE_WORDS = 6;
/** The binding's words of every node met so far in this copy; grown on demand, kept between parses. */
let slots = new Uint32Array(NODE_WORDS * 256);
/** Nodes met and not yet expanded: the node, its slot, its depth (parallel stacks). */
const pendingNodes: MutableNode[] = [];
const pendingSlot: number[] = [];
const pendingDepth: number[] = [];
/** A bulk copy is under way: the slots, stacks and transfer buffer above are in use. */
let copying = false;

/**
 * The tree through the binding's node functions: per inner node one call for its children
 * (type ids and starts come with them), per named node one for its end. Undefined when the
 * binding answers in a way this code does not expect; the caller then walks with a cursor.
 * `checkTypes`: also ask the binding each node's type, and give up where it differs from what
 * the cursor taught.
 */
function bulkCopy(
  g: Grammar,
  nodes: NativeNodes,
  tree: NativeTree,
  source: string,
  checkTypes = false,
): SyntaxResult | undefined {
  const rootType = nodes.root(tree);
  const hasError = nodes.hasError(tree);
  const rootEnd = nodes.endIndex(tree);
  let transfer = nodes.transfer();
  const rootName = rootType === undefined ? nodes.type(tree) : learnType(g, nodes, tree, rootType);
  if (checkTypes && nodes.type(tree) !== rootName) return undefined;
  const root: MutableNode = {
    type: rootName,
    named: true,
    start: transfer[2]! >>> 1,
    end: rootEnd,
    children: NO_CHILDREN,
  };
  copyWords(transfer, 0, slots, 0, NODE_WORDS);
  let used = 1;
  let count = 1;
  let uncovered = earliest(
    firstNonBlank(source, 0, root.start),
    firstNonBlank(source, root.end, source.length),
  );
  // Kept between parses (the copy is never re-entered): three small arrays less per line.
  const pending = pendingNodes;
  pending.length = 0;
  pending.push(root);
  pendingSlot.length = 0;
  pendingSlot.push(0);
  pendingDepth.length = 0;
  pendingDepth.push(0);
  while (pending.length > 0) {
    const node = pending.pop()!;
    const slot = pendingSlot.pop()!;
    const depth = pendingDepth.pop()! + 1;
    copyWords(slots, slot * NODE_WORDS, nodes.transfer(), 0, NODE_WORDS);
    const kinds = nodes.children(tree);
    const n = kinds.length;
    if (n === 0) continue;
    if (depth > LIMITS.maxDepth) return TOO_DEEP;
    count += n;
    if (count > LIMITS.maxNodes) return TOO_MANY_NODES;
    if ((used + n) * NODE_WORDS > slots.length) {
      const bigger = new Uint32Array(Math.max(slots.length * 2, (used + n) * NODE_WORDS));
      bigger.set(slots);
      slots = bigger;
    }
    transfer = nodes.transfer();
    copyWords(transfer, 0, slots, used * NODE_WORDS, n * NODE_WORDS);
    const first = used;
    used += n;
    // The binding's fresh list of ids becomes the list of children, each id read before its
    // slot is overwritten (ids are small integers: the list changes kind, not storage).
    const children = kinds as unknown as MutableNode[];
    // Where the previous child ended: the text between two children must be blank.
    let lastEnd = node.start;
    // The slot of the previous child when its end was taken from its type's length (an
    // anonymous token), -1 otherwise: asked of the binding only if text seems to follow it.
    let guessedAt = -1;
    for (let i = 0; i < n; i++) {
      const id = kinds[i];
      // A node the binding already holds an object for comes back as that object: not ours.
      if (typeof id !== 'number') return undefined;
      const at = (first + i) * NODE_WORDS;
      let type = id < DENSE_IDS ? g.typeNames[id] : sparseTypes.get(id)?.name;
      if (type === undefined) {
        copyWords(slots, at, nodes.transfer(), 0, NODE_WORDS);
        type = learnType(g, nodes, tree, id);
      } else if (checkTypes) {
        copyWords(slots, at, nodes.transfer(), 0, NODE_WORDS);
        if (nodes.type(tree) !== type || nodes.isNamed(tree) !== isNamed(g, id)) return undefined;
      }
      let child: MutableNode;
      const start = slots[at + 2]! >>> 1;
      if (start !== lastEnd)
        uncovered = earliest(uncovered, gapAfter(nodes, tree, source, lastEnd, guessedAt, start, node.type));
      guessedAt = -1;
      if (isNamed(g, id)) {
        if (
          i === n - 1 &&
          !hasError &&
          ENDS_WITH_LAST_CHILD.has(node.type) &&
          !isWhitespace(source, node.end - 1)
        ) {
          lastEnd = node.end;
        } else lastEnd = endOf(nodes, tree, at);
        child = { type, named: true, start, end: lastEnd, children: NO_CHILDREN };
        if (!TOKEN_TYPES.has(type)) {
          pending.push(child);
          pendingSlot.push(first + i);
          pendingDepth.push(depth);
        }
      } else {
        child = { type, named: false, start: -1, end: -1, children: NO_CHILDREN };
        // An anonymous token mostly is its type's text (`;`, `$(`), but not always: `$$` can be
        // one token of type `$`. The guess is checked against the binding when text follows it.
        if (source.startsWith(type, start)) {
          lastEnd = start + type.length;
          guessedAt = at;
        } else lastEnd = endOf(nodes, tree, at);
      }
      children[i] = child;
    }
    if (lastEnd !== node.end)
      uncovered = earliest(uncovered, gapAfter(nodes, tree, source, lastEnd, guessedAt, node.end, node.type));
    node.children = children;
  }
  // Every node the binding has, and none it has not: else a token type had children after all.
  copyWords(slots, 0, nodes.transfer(), 0, NODE_WORDS);
  if (nodes.descendantCount(tree) !== count) return undefined;
  return { ok: true, tree: { root, hasError, uncovered, walk: 'bulk' } };
}

/**
 * The first text that should not be between a child ending at `lastEnd` and `to` (firstNonBlank),
 * or -1. When that end was guessed from the child's type (`guessedAt`, its slot; -1 if not), the
 * binding is asked for the real one before any text there counts.
 */
function gapAfter(
  nodes: NativeNodes,
  tree: NativeTree,
  source: string,
  lastEnd: number,
  guessedAt: number,
  to: number,
  within: string,
): number {
  const gap = firstNonBlank(source, lastEnd, to, within);
  return gap >= 0 && guessedAt >= 0 ? firstNonBlank(source, endOf(nodes, tree, guessedAt), to, within) : gap;
}

/** The end of the node in `slots` at `at`, asked of the binding. */
function endOf(nodes: NativeNodes, tree: NativeTree, at: number): number {
  copyWords(slots, at, nodes.transfer(), 0, NODE_WORDS);
  return nodes.endIndex(tree);
}

// ---------------------------------------------------------------- what the tree covers

/**
 * The first offset in [from, to) of a character the grammar should not have skipped, or -1.
 * Blank is what bash splits words on and tree-sitter skips alike: spaces, tabs, newlines, and
 * a backslash before a newline (a line continuation). Not a carriage return, vertical tab or
 * form feed, which tree-sitter skips but bash keeps in the word (`ls\v# ; rm x` runs `rm`),
 * nor a backslash before a space, which is an escaped space to bash. Inside a heredoc body
 * (`within`), the text before its first expansion is in no token; it is data, and only a `$`
 * or a backquote there, which would start an expansion, counts.
 */
function firstNonBlank(source: string, from: number, to: number, within?: string): number {
  if (within === 'heredoc_body') {
    for (let i = from; i < to; i++) {
      const c = source.charCodeAt(i);
      if (c === 0x24 || c === 0x60) return i;
    }
    return -1;
  }
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x0a) continue;
    if (c === 0x5c && source.charCodeAt(i + 1) === 0x0a) {
      i++;
      continue;
    }
    return i;
  }
  return -1;
}

/** The earlier of two offsets, -1 meaning none. */
function earliest(a: number, b: number): number {
  return a < 0 ? b : b < 0 || a < b ? a : b;
}

/** A loop, not `set(subarray())`: a subarray is an object made per node. */
function copyWords(from: Uint32Array, at: number, to: Uint32Array, into: number, count: number): void {
  for (let i = 0; i < count; i++) to[into + i] = from[at + i]!;
}

/** The type name of `id`, asked of the binding (for the node in the transfer buffer) once per id. */
function learnType(g: Grammar, nodes: NativeNodes, tree: NativeTree, id: number): string {
  const known = id < DENSE_IDS ? g.typeNames[id] : sparseTypes.get(id)?.name;
  if (known !== undefined) return known;
  const name = nodes.type(tree);
  const named = nodes.isNamed(tree);
  if (id < DENSE_IDS) {
    g.typeNames[id] = name;
    g.namedById[id] = named;
  } else {
    sparseTypes.set(id, { name, named });
  }
  return name;
}

/**
 * Whether the bulk walk reads this binding right: checked once per process against the cursor
 * walk, on a short line with named and anonymous nodes, nesting, quotes and an ERROR node (a
 * hook process runs this check cold: a longer line costs it milliseconds). A binding whose
 * buffer layout or functions changed copies every tree with the cursor, never with a wrong
 * reading. The tests hold the two walks equal on the corpus and on generated lines.
 */
let bulkVerdict: boolean | undefined;
const BULK_CHECK_LINE = `x=1 é "$(a 'b' 2>&1)" | c >> d; ) e`;
function bulkWalkWorks(g: Grammar): boolean {
  if (bulkVerdict !== undefined) return bulkVerdict;
  bulkVerdict = false;
  const nodes = g.nodes;
  if (nodes === undefined) return false;
  try {
    // tree-sitter's own parse and cursor first: the type names are learnt from them, and the
    // bulk walk over the binding's parse must find the same names, nodes and positions.
    const cursor = JSON.stringify(cursorCopy(g, g.wrappedParse(BULK_CHECK_LINE), BULK_CHECK_LINE)).replace(
      '"walk":"cursor"',
      '"walk":"bulk"',
    );
    const bulk = bulkCopy(g, nodes, g.parse(BULK_CHECK_LINE), BULK_CHECK_LINE, true);
    bulkVerdict = bulk !== undefined && JSON.stringify(bulk) === cursor;
  } catch {
    bulkVerdict = false;
  }
  return bulkVerdict;
}

interface MutableNode {
  type: string;
  named: boolean;
  start: number;
  end: number;
  children: readonly SyntaxNode[];
}

/**
 * Type ids below this are the grammar's symbols (tree-sitter-bash has a few hundred) and are
 * looked up by index. tree-sitter's ERROR is 0xFFFF: one entry that far out would turn the
 * by-id arrays into hash tables for the rest of the process, a slower lookup on every node.
 */
const DENSE_IDS = 4096;
const sparseTypes = new Map<number, { readonly name: string; readonly named: boolean }>();

function typeName(g: Grammar, id: number, cursor: NativeCursor): string {
  if (id >= DENSE_IDS) {
    let t = sparseTypes.get(id);
    if (t === undefined) {
      t = { name: cursor.nodeType, named: cursor.nodeIsNamed };
      sparseTypes.set(id, t);
    }
    return t.name;
  }
  let name = g.typeNames[id];
  if (name === undefined) {
    name = cursor.nodeType;
    g.typeNames[id] = name;
    g.namedById[id] = cursor.nodeIsNamed;
  }
  return name;
}

/** Whether nodes of a type id met by typeName are named. */
function isNamed(g: Grammar, id: number): boolean {
  return id < DENSE_IDS ? g.namedById[id] === true : sparseTypes.get(id)?.named === true;
}

// ---------------------------------------------------------------- the native calls

// ---------------------------------------------------------------- one cursor for every parse

type NativeRoot = ReturnType<Grammar['parser']['parse']>['rootNode'];

/** What the binding's TreeCursor has beyond grammar.ts's view of it. */
interface ResettableCursor extends NativeCursor {
  /** The tree `reset` reads the node's tree from (the binding's walk() sets it). */
  tree: unknown;
  reset(node: NativeRoot): void;
  readonly currentNode: unknown;
}

let reusable: ResettableCursor | undefined;
/** Cleared for good if the binding ever leaves a reset cursor elsewhere than on the root. */
let resetWorks = true;

/**
 * A cursor at the root of `tree`. A new one per parse (`walk()`) costs as much as a dozen
 * cursor steps: a wrapped native object made, then finalized by the GC. One cursor is reset to
 * each new root instead. The binding's native reset takes the node from its transfer buffer,
 * not from its argument: the `hasError` read just before wrote `rootNode` there. The identity
 * check makes that an assumption verified on every call, not a trusted one: the binding hands
 * back the very root object only when the cursor stands on this tree's root.
 */
function cursorAt(tree: unknown, rootNode: NativeRoot): NativeCursor {
  const cursor = reusable;
  if (cursor !== undefined) {
    cursor.tree = tree;
    cursor.reset(rootNode);
    if (cursor.currentNode === rootNode) return cursor;
    reusable = undefined;
    resetWorks = false;
  }
  const fresh = rootNode.walk();
  if (resetWorks && isResettable(fresh)) reusable = fresh;
  return fresh;
}

function isResettable(cursor: NativeCursor): cursor is ResettableCursor {
  const c = cursor as Partial<ResettableCursor>;
  return typeof c.reset === 'function' && 'tree' in cursor;
}
