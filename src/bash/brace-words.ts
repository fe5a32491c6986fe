import type { SyntaxNode } from './syntax.js';

/**
 * tree-sitter-bash reads a `{` at a command's start as the group keyword even when a word
 * follows it without a blank: `{git,push} origin` becomes an ERROR around `{` and a command
 * `git,push} origin`, and `{}` an empty group. bash reserves `{` only as a word of its own, so
 * there it is the first character of a word, brace-expanded like any other: `{git,push} origin`
 * runs `git push origin`, `{}` runs a program called `{}`.
 */

/** What ends a word in bash: after a `{`, one of these leaves the `{` a word of its own, the keyword. */
const WORD_END = /[\s;&|()<>]/;

/**
 * The offsets of each `{` tree-sitter read as the keyword where bash reads a word's first
 * character. Anonymous tokens carry no offset (syntax.ts), so a `{` is found at its node's start
 * when it comes first, else just before the node that follows it.
 */
export function misreadBraces(source: string, root: SyntaxNode): number[] {
  const out: number[] = [];
  const visit = (n: SyntaxNode) => {
    const kids = n.children;
    for (let i = 0; i < kids.length; i++) {
      if (kids[i]!.type !== '{' || kids[i]!.named) continue;
      const next = kids[i + 1];
      const at = i === 0 ? n.start : next?.named ? next.start - 1 : -1;
      if (at < 0 || source[at] !== '{' || source[at - 1] === '$') continue;
      const after = source[at + 1];
      if (after !== undefined && !WORD_END.test(after)) out.push(at);
    }
    for (const c of kids) visit(c);
  };
  visit(root);
  return out;
}

/**
 * The source tree-sitter should parse: each misread `{` replaced by a letter, which it reads as
 * the start of a word (same length: every offset stays, so the tree's words are cut from the
 * real source, `{` included). Undefined when there is none.
 */
export function withBraceWords(source: string, root: SyntaxNode): string | undefined {
  const at = misreadBraces(source, root);
  if (at.length === 0) return undefined;
  let out = source;
  for (const p of at) out = `${out.slice(0, p)}x${out.slice(p + 1)}`;
  return out;
}
