import { type Grammar, loadGrammar, type NativeCursor } from './grammar.js';

/**
 * tree-sitter-bash trees (see grammar.ts for the loading) copied into plain objects in one
 * cursor pass. Crossing into the native binding is the expensive part (about 0.1 µs a call,
 * as much as the parse of a short word), so the copy asks each node for the minimum: type id,
 * and start and end for named nodes only.
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
}

export type SyntaxResult = { ok: true; tree: SyntaxTree } | { ok: false; reason: string };

/** Beyond these, a line is "too complex": the answer is immediate, and memory stays bounded. */
export const LIMITS = {
  maxSourceChars: 65_536,
  maxNodes: 60_000,
  maxDepth: 200,
} as const;

/** Most nodes are leaves: they share one empty list instead of allocating their own. */
const NO_CHILDREN: readonly SyntaxNode[] = Object.freeze([]);

export function parseSyntax(source: string): SyntaxResult {
  if (source.length > LIMITS.maxSourceChars) {
    return { ok: false, reason: `too complex: ${source.length} characters (limit ${LIMITS.maxSourceChars})` };
  }
  const g = loadGrammar();
  const tree = parseWithBuffer(g.parser, source);
  // One root node for the cursor and the error flag: each `tree.rootNode` crosses into C++.
  const rootNode = tree.rootNode;
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
      // Anonymous tokens (`;`, `|`, `$(`) are read by type only: skip two native calls for them.
      const node: MutableNode = isNamed(g, id)
        ? { type, named: true, start: cursor.startIndex, end: cursor.endIndex, children: NO_CHILDREN }
        : { type, named: false, start: -1, end: -1, children: NO_CHILDREN };
      (parent.children as SyntaxNode[]).push(node);
      if (cursor.gotoFirstChild()) {
        node.children = [];
        stack.push(node);
        parent = node;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent() || stack.length === 1) return { ok: true, tree: { root, hasError } };
        stack.pop();
        parent = stack[stack.length - 1]!;
      }
    }
  }
  return { ok: true, tree: { root, hasError } };
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

/** The binding's parse, with the options grammar.ts's view of it leaves out. */
interface SizedParser {
  parse(
    source: string,
    oldTree: undefined,
    options: { bufferSize: number },
  ): ReturnType<Grammar['parser']['parse']>;
}

/**
 * Parses with an input buffer the size of the line. Without `bufferSize` the binding allocates
 * and zero-fills a 32K-unit (64 KB) buffer on every parse: as much memory traffic as the parse
 * of a short line, and the whole L1 data cache evicted before the walk. One unit more than the
 * line: the binding's string copy keeps the last unit for a terminating zero.
 */
function parseWithBuffer(parser: Grammar['parser'], source: string) {
  return (parser as SizedParser).parse(source, undefined, { bufferSize: source.length + 1 });
}

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
