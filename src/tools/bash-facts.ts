import { classifyBash } from '../bash/classify.js';
import type { BashFacts } from '../bash/facts.js';

/**
 * The Bash tool's flags are the classifier's facts about the command line. Scheduling asks
 * for them per call and the pipeline asks again later, so the facts of recent lines are kept.
 */
const cache = new Map<string, BashFacts>();
const MAX_CACHED = 512;

export function bashFacts(command: string): BashFacts {
  const hit = cache.get(command);
  if (hit) return hit;
  const facts = classifyBash(command);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(command, facts);
  return facts;
}

/**
 * Claude Code's exit-code rule: for commands whose exit code 1 means "nothing found" or
 * "different", 1 is a result, not a failure. The last simple command of the line decides,
 * since it sets the line's exit status.
 */
const NOT_FOUND_IS_ONE = new Set(['grep', 'egrep', 'fgrep', 'rg', 'find', 'diff', 'test', '[']);

export function exitOneIsSuccess(facts: BashFacts): boolean {
  const last = facts.commands[facts.commands.length - 1];
  if (last === undefined) return false;
  const argv = last.split(/\s+/);
  const name = argv[0]?.split('/').pop() ?? '';
  if (NOT_FOUND_IS_ONE.has(name)) return true;
  return name === 'git' && (argv[1] === 'diff' || argv[1] === 'grep');
}
