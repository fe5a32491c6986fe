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
interface NativeTree {
  rootNode: { hasError: boolean; walk(): NativeCursor };
}
interface NativeParser {
  parse(source: string): NativeTree;
  setLanguage(language: unknown): void;
}

export interface Grammar {
  parser: NativeParser;
  /** Type names and whether they are named, by type id, learnt as the cursor meets them. */
  typeNames: string[];
  namedById: boolean[];
}

let grammar: Grammar | undefined;

export function loadGrammar(): Grammar {
  if (grammar) return grammar;
  // The hook's bundle drops this line (scripts/bundle-cli.mjs): its own require() then bundles
  // tree-sitter's JavaScript, code-cached, and still runs it only here, on first use.
  const require = createRequire(import.meta.filename);
  const Parser = require('tree-sitter') as new () => NativeParser;
  const nodeGypBuild = require('node-gyp-build') as (dir: string) => { name: string; language: unknown };
  const bash = nodeGypBuild(path.dirname(require.resolve('tree-sitter-bash/package.json')));
  const parser = new Parser();
  parser.setLanguage({ name: bash.name, language: bash.language });
  grammar = { parser, typeNames: [], namedById: [] };
  return grammar;
}
