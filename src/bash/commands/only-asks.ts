import type { Word } from '../word.js';

/**
 * The line only asks a program for its help or version: there is an argument, and every one is
 * one of `asks`, as written (a word with an expansion may become anything at run time). Such a
 * program prints and exits before it reads a script, a URL or a file (each claim is proven by
 * the oracle: test/fixtures/bash-oracle-labelled.jsonl, family recall).
 */
export function onlyAsks(args: readonly Word[], asks: ReadonlySet<string> | readonly string[]): boolean {
  const has = (v: string) => (asks instanceof Set ? asks.has(v) : (asks as readonly string[]).includes(v));
  return args.length > 0 && args.every((w) => w.expansions.length === 0 && has(w.value));
}

/** GNU's spellings of help and version (find, sed, curl...). */
export const HELP_OR_VERSION: ReadonlySet<string> = new Set(['--help', '--version']);
