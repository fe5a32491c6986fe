import { createRequire } from 'node:module';

/**
 * The tree-sitter-bash version, read from its package.json without loading the parser: a
 * grammar change can flip a Bash decision, so every record says which grammar classified it.
 */
export function installedGrammarVersion(): string {
  const require = createRequire(import.meta.filename);
  return (require('tree-sitter-bash/package.json') as { version: string }).version;
}
