import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * tree-sitter and its Bash grammar, loaded on first use: a hook process pays for the native
 * addons only on Bash calls. The grammar goes to the parser as an object of our own holding
 * just the native language: tree-sitter's setLanguage builds a JavaScript class per node type
 * from `nodeTypeInfo` (a third of the load time) and stores them on the object it is given,
 * and the classifier reads the tree through a cursor that needs none of them. For the same
 * reason the grammar's native addon is found the way its own index.js finds it (node-gyp-build
 * on its package directory), without that file's parse of node-types.json.
 */

export interface NativeCursor {
  nodeTypeId: number;
  nodeType: string;
  nodeIsNamed: boolean;
  startIndex: number;
  endIndex: number;
  gotoFirstChild(): boolean;
  gotoNextSibling(): boolean;
  gotoParent(): boolean;
}
export interface NativeTree {
  rootNode: { hasError: boolean; walk(): NativeCursor };
}
interface NativeParser {
  parse(source: string): NativeTree;
  /** tree-sitter's own parse (with the same buffer), for checking `parse` against. */
  wrappedParse(source: string): NativeTree;
  setLanguage(language: unknown): void;
}

/**
 * The binding's own node functions, under tree-sitter's JavaScript: one call lists a node's
 * children with their type ids and starts, where a cursor needs three calls per child. They
 * take and give nodes through a shared transfer buffer (syntax.ts's bulk walk says how, and
 * checks its reading of it against the cursor's before it trusts it).
 */
export interface NativeNodes {
  /** Puts the tree's root node in the transfer buffer; returns its type id when that comes free. */
  root(tree: NativeTree): number | undefined;
  /** The children of the node in the transfer buffer: type ids, their nodes in the buffer in order. */
  children(tree: NativeTree): unknown[];
  endIndex(tree: NativeTree): number;
  hasError(tree: NativeTree): boolean;
  /** The node and every node below it. */
  descendantCount(tree: NativeTree): number;
  type(tree: NativeTree): string;
  isNamed(tree: NativeTree): boolean;
  /** The transfer buffer: the binding replaces it with a bigger one when it needs to, so ask after every call. */
  transfer(): Uint32Array;
}

export interface Grammar {
  parser: NativeParser;
  /**
   * Parses `source` with an input buffer the size of the line, through the binding's own parse
   * when it could be read before tree-sitter's JavaScript wrapped it, in a tested version of
   * the binding (the wrapper makes a closure per call and stores three properties on the tree,
   * ~0.8 µs of a 9 µs parse); the tree then has no `language`, which only tree-sitter's node
   * objects need (see withLanguage).
   */
  parse(source: string): NativeTree;
  /** tree-sitter's own parse (with the same buffer), for checking `parse` against. */
  wrappedParse(source: string): NativeTree;
  /** Undefined when the binding does not offer them as this code expects. */
  nodes: NativeNodes | undefined;
  /** Type names and whether they are named, by type id, learnt as the walk meets them. */
  typeNames: string[];
  namedById: boolean[];
}

let grammar: Grammar | undefined;

export function loadGrammar(): Grammar {
  if (grammar) return grammar;
  // The hook's bundle drops this line (scripts/bundle-cli.mjs): its own require() then bundles
  // tree-sitter's JavaScript, code-cached, and still runs it only here, on first use.
  const require = createRequire(import.meta.filename);
  const nodeGypBuild = require('node-gyp-build') as (dir: string) => unknown;
  // The binding tree-sitter's index.js loads (the same file, so the same module), read before
  // that file replaces Tree#rootNode with a getter that wraps the root in a cached object.
  const runtimeDir = path.dirname(require.resolve('tree-sitter/package.json'));
  const runtime = nodeGypBuild(runtimeDir);
  // The binding's own functions only in a version they were read and tested against: another
  // could lay its transfer buffer out otherwise, and a wrong reading there can crash the process.
  const tested = TESTED_BINDINGS.includes(versionOf(runtimeDir));
  const nativeRoot = tested ? nativeMethodOf(runtime, 'Tree', 'rootNode') : undefined;
  const nativeParse = tested ? nativeMethodOf(runtime, 'Parser', 'parse') : undefined;
  const Parser = require('tree-sitter') as new () => NativeParser;
  const bash = nodeGypBuild(path.dirname(require.resolve('tree-sitter-bash/package.json'))) as {
    name: string;
    language: unknown;
  };
  const parser = new Parser();
  parser.setLanguage({ name: bash.name, language: bash.language });
  const wrapped = wrappedParse(parser);
  grammar = {
    parser,
    // (both or neither: the root getter's fallback below needs the language the wrapper sets)
    parse:
      nativeParse === undefined || nativeRoot === undefined ? wrapped : bindingParse(parser, nativeParse),
    wrappedParse: wrapped,
    nodes: tested ? nativeNodes(runtime, nativeRoot) : undefined,
    typeNames: [],
    namedById: [],
  };
  return grammar;
}

/** tree-sitter versions whose binding syntax.ts's bulk walk and the binding's parse were checked on. */
const TESTED_BINDINGS: readonly string[] = ['0.25.1'];

function versionOf(packageDir: string): string {
  try {
    const text = readFileSync(path.join(packageDir, 'package.json'), 'utf8');
    const version = (JSON.parse(text) as { version?: unknown }).version;
    return typeof version === 'string' ? version : '';
  } catch {
    return '';
  }
}

type NativeFunction = (this: unknown, ...args: unknown[]) => unknown;

/** A method of the binding's class as the binding made it; undefined once tree-sitter's JavaScript replaced it. */
function nativeMethodOf(
  runtime: unknown,
  klass: 'Tree' | 'Parser',
  name: string,
): NativeFunction | undefined {
  const prototype = (runtime as Record<string, { prototype?: object } | undefined> | undefined)?.[klass]
    ?.prototype;
  const own = prototype === undefined ? undefined : Object.getOwnPropertyDescriptor(prototype, name);
  // A getter, or a function of tree-sitter's JavaScript, means it ran first (another user of it
  // in this process): then its API is the only one to use.
  return typeof own?.value === 'function' &&
    /\[native code\]/.test(Function.prototype.toString.call(own.value))
    ? (own.value as NativeFunction)
    : undefined;
}

/**
 * The input buffer is the size of the line: without it the binding allocates and zero-fills a
 * 32K-unit (64 KB) buffer on every parse, as much memory traffic as the parse of a short line.
 * One unit more than the line: the binding's string copy keeps the last unit for a zero.
 */
function bindingParse(parser: NativeParser, nativeParse: NativeFunction): (source: string) => NativeTree {
  let current = '';
  // The binding reads the text through this, from an offset (all of it at once, here).
  const input = (offset: number) => current.slice(offset);
  return (source) => {
    current = source;
    try {
      return nativeParse.call(parser, input, undefined, source.length + 1) as NativeTree;
    } finally {
      current = '';
    }
  };
}

function wrappedParse(parser: NativeParser): (source: string) => NativeTree {
  const sized = parser as unknown as {
    parse(source: string, oldTree: undefined, options: { bufferSize: number }): NativeTree;
  };
  return (source) => sized.parse(source, undefined, { bufferSize: source.length + 1 });
}

/** tree-sitter's node objects (a tree's rootNode getter) need the tree's language. */
export function withLanguage(g: Grammar, tree: NativeTree): NativeTree {
  const t = tree as NativeTree & { language?: unknown };
  t.language ??= (g.parser as unknown as { getLanguage(): unknown }).getLanguage();
  return tree;
}

function nativeNodes(runtime: unknown, nativeRoot: NativeFunction | undefined): NativeNodes | undefined {
  const binding = runtime as { NodeMethods?: Record<string, unknown>; nodeTransferArray?: unknown };
  const m = binding.NodeMethods;
  const names = ['children', 'endIndex', 'hasError', 'descendantCount', 'type', 'isNamed'] as const;
  if (m === undefined || names.some((n) => typeof m[n] !== 'function')) return undefined;
  if (!(binding.nodeTransferArray instanceof Uint32Array)) return undefined;
  const f = m as Record<(typeof names)[number], (tree: NativeTree) => never>;
  const transfer = () => binding.nodeTransferArray as Uint32Array;
  return {
    root:
      nativeRoot === undefined
        ? // tree-sitter's getter: its node object holds the six words the buffer takes
          (tree) => {
            const node = tree.rootNode as unknown as ArrayLike<number>;
            const buffer = transfer();
            for (let i = 0; i < 6; i++) buffer[i] = node[i]!;
            return undefined;
          }
        : (tree) => nativeRoot.call(tree) as number,
    children: f.children,
    endIndex: f.endIndex,
    hasError: f.hasError,
    descendantCount: f.descendantCount,
    type: f.type,
    isNamed: f.isNamed,
    transfer,
  };
}
