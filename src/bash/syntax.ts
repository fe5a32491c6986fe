import { type Grammar, loadGrammar, type NativeCursor } from './grammar.js';

/**
 * tree-sitter-bash trees (see grammar.ts for the loading) copied into plain objects in one
 * cursor pass. Crossing into the native binding is
 * the expensive part, so the copy asks each node for the minimum: type id, start, end.
 */

export interface SyntaxNode {
  readonly type: string;
  readonly named: boolean;
  /** UTF-16 offsets into the source, as JavaScript strings count (-1 for anonymous tokens). */
  readonly start: number;
  readonly end: number;
  readonly children: SyntaxNode[];
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

export function parseSyntax(source: string): SyntaxResult {
  if (source.length > LIMITS.maxSourceChars) {
    return { ok: false, reason: `too complex: ${source.length} characters (limit ${LIMITS.maxSourceChars})` };
  }
  const g = loadGrammar();
  const tree = g.parser.parse(source);
  // One root node for both the walk and the error flag: each `tree.rootNode` crosses into C++.
  const rootNode = tree.rootNode;
  const cursor = rootNode.walk();
  const root: MutableNode = {
    type: typeName(g, cursor.nodeTypeId, cursor),
    named: true,
    start: cursor.startIndex,
    end: cursor.endIndex,
    children: [],
  };
  const stack: MutableNode[] = [root];
  let parent = root;
  let count = 1;
  // Iterative pre-order walk: recursion depth is the input's nesting depth, which is untrusted.
  if (cursor.gotoFirstChild()) {
    for (;;) {
      if (++count > LIMITS.maxNodes)
        return { ok: false, reason: `too complex: more than ${LIMITS.maxNodes} syntax nodes` };
      if (stack.length > LIMITS.maxDepth)
        return { ok: false, reason: `too complex: nested deeper than ${LIMITS.maxDepth} levels` };
      const id = cursor.nodeTypeId;
      const type = typeName(g, id, cursor);
      // Anonymous tokens (`;`, `|`, `$(`) are read by type only: skip two native calls for them.
      const node: MutableNode =
        g.namedById[id] === true
          ? {
              type,
              named: true,
              start: cursor.startIndex,
              end: cursor.endIndex,
              children: [],
            }
          : { type, named: false, start: -1, end: -1, children: [] };
      parent.children.push(node);
      if (cursor.gotoFirstChild()) {
        stack.push(node);
        parent = node;
        continue;
      }
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent() || stack.length === 1) {
          return { ok: true, tree: { root, hasError: rootNode.hasError } };
        }
        stack.pop();
        parent = stack[stack.length - 1]!;
      }
    }
  }
  return { ok: true, tree: { root, hasError: rootNode.hasError } };
}

interface MutableNode {
  type: string;
  named: boolean;
  start: number;
  end: number;
  children: SyntaxNode[];
}

function typeName(g: Grammar, id: number, cursor: NativeCursor): string {
  let name = g.typeNames[id];
  if (name === undefined) {
    name = cursor.nodeType;
    g.typeNames[id] = name;
    g.namedById[id] = cursor.nodeIsNamed;
  }
  return name;
}
