import type { CompiledRule } from './compile.js';
import { optionPatternParts } from './match/bash.js';

/**
 * Bash rules of one kind indexed by their leading words, so a command is tested only against
 * the rules that could match it: a trie over each rule's *key*, the words every command it
 * matches must start with (`git push remote3 *` -> git, push, remote3). A rule whose pattern
 * starts with `*`, a bare `Bash`, a patterned tool name: key [], tested for every command. A
 * call walks the command's words (no copy, no sort); the lists it hands out are in the policy's
 * rule order (the first hit is the one reported, so it must not depend on the index) and built
 * once per trie node, within a budget: memory stays bounded whatever the policy.
 *
 * Soundness is by construction of the key (bashRuleKey) and checked against a linear scan by a
 * property (test/policy/bash-index.test.ts).
 */
export interface BashRuleIndex {
  /**
   * Rules that may match this command (its words joined by single spaces): by their pattern,
   * by the options they name, or every command. Undefined: only rules with no leading word
   * (for a command whose name is only known at run time, which only a bare `Bash` can match).
   */
  matching(text: string | undefined): readonly CompiledRule[];
  /** Rules that a command starting with these words (joined by spaces) may match once the rest is known. */
  startingWith(prefix: string): readonly CompiledRule[];
}

/** Rules held in memoised lists at most, over all nodes (references: a few MB). */
const MEMO_BUDGET = 1_000_000;

interface Node {
  /** Rules whose key ends here, in rule order. */
  readonly own: CompiledRule[];
  readonly children: Map<string, Node>;
  readonly parent: Node | undefined;
  /** Rules of this node and every ancestor (memo). */
  upTo?: readonly CompiledRule[];
  /** Rules of every ancestor, this node and every node below (memo). */
  around?: readonly CompiledRule[];
}

/** `rules` in the policy's order; those no command text can meet are left out. */
export function bashRuleIndex(rules: readonly CompiledRule[]): BashRuleIndex {
  const rank = new Map<CompiledRule, number>();
  const root: Node = { own: [], children: new Map(), parent: undefined };
  for (const r of rules) {
    const words = bashRuleKey(r);
    if (words === undefined) continue;
    rank.set(r, rank.size);
    let node = root;
    for (const w of words) {
      let next = node.children.get(w);
      if (next === undefined) {
        next = { own: [], children: new Map(), parent: node };
        node.children.set(w, next);
      }
      node = next;
    }
    node.own.push(r);
  }
  // Lists a node hands out are built once and kept while the budget lasts; past it they are
  // built per call (as costly as testing the rules in them, which the call does anyway).
  let budget = MEMO_BUDGET;
  const fits = (list: readonly CompiledRule[]): boolean => {
    if (list.length > budget) return false;
    budget -= list.length;
    return true;
  };
  const upTo = (node: Node): readonly CompiledRule[] => {
    if (node.upTo !== undefined) return node.upTo;
    if (node.parent === undefined) return node.own;
    const above = upTo(node.parent);
    // Most nodes add nothing to their parent's list, or have no parent list: share, don't copy.
    const shared = node.own.length === 0 ? above : above.length === 0 ? node.own : undefined;
    const list = shared ?? merge(above, node.own, rank);
    if (shared !== undefined || fits(list)) node.upTo = list;
    return list;
  };
  const below = (node: Node, out: CompiledRule[]): CompiledRule[] => {
    for (const r of node.own) out.push(r);
    for (const child of node.children.values()) below(child, out);
    return out;
  };
  const around = (node: Node): readonly CompiledRule[] => {
    if (node.around !== undefined) return node.around;
    const under = below(node, []).sort((a, b) => rank.get(a)! - rank.get(b)!);
    const list = node.parent === undefined ? under : merge(upTo(node.parent), under, rank);
    if (fits(list)) node.around = list;
    return list;
  };

  /** The deepest node along the words of `text`, and whether every word was walked. */
  const walk = (text: string): { node: Node; whole: boolean } => {
    let node = root;
    let start = 0;
    for (;;) {
      const end = text.indexOf(' ', start);
      const next = node.children.get(end < 0 ? text.slice(start) : text.slice(start, end));
      if (next === undefined) return { node, whole: false };
      node = next;
      if (end < 0) return { node, whole: true };
      start = end + 1;
    }
  };
  return {
    matching: (text) => (text === undefined ? root.own : upTo(walk(text).node)),
    startingWith: (prefix) => {
      // No words yet (a command whose name is only known at run time): it may be any rule's.
      if (prefix === '') return around(root);
      const { node, whole } = walk(prefix);
      return whole ? around(node) : upTo(node);
    },
  };
}

/** Two lists in rule order -> one, each rule once. */
function merge(
  a: readonly CompiledRule[],
  b: readonly CompiledRule[],
  rank: ReadonlyMap<CompiledRule, number>,
): CompiledRule[] {
  const out: CompiledRule[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ra = rank.get(a[i]!)!;
    const rb = rank.get(b[j]!)!;
    if (ra <= rb) {
      out.push(a[i++]!);
      if (ra === rb) j++;
    } else out.push(b[j++]!);
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

/**
 * The words every command a Bash rule matches starts with, as a command's text splits on
 * spaces. The pattern's text before its first `*`, word by word (the last only when no `*`
 * follows it: `git pu*` is [git]); for a deny or ask rule naming options, which meet a command
 * by its leading words and then options anywhere (`rm -rf *` meets `rm x -fr`), no more than
 * those leading words. Rules no command text can meet (parameter rules): undefined.
 */
export function bashRuleKey(r: Pick<CompiledRule, 'rule' | 'bashOptions'>): readonly string[] | undefined {
  const s = r.rule.specifier;
  if (s.type === 'any') return [];
  if (s.type !== 'bash') return undefined;
  let p = s.pattern.trim();
  if (p.endsWith(':*')) p = `${p.slice(0, -2)} *`;
  if (p.endsWith(' *')) p = p.slice(0, -2);
  const star = p.indexOf('*');
  const words = (star < 0 ? p : p.slice(0, star)).split(' ');
  // Text before a `*` ends inside a word (or at a space, the start of one): not a whole word.
  if (star >= 0) words.pop();
  if (r.bashOptions === undefined) return words;
  const optionLead = optionPatternParts(s.pattern)?.lead ?? [];
  let n = 0;
  while (n < words.length && n < optionLead.length && words[n] === optionLead[n]) n++;
  return words.slice(0, n);
}
