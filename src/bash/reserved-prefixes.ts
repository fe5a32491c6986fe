import type { SyntaxNode } from './syntax.js';

/**
 * tree-sitter-bash reads `!` and `time` before a compound command as if a simple command
 * followed: `! if true; then git push; fi` becomes the commands `if true`, `then git push` and
 * `fi`; `! { git push; }` the commands `{ git push` and `}`; `time for ...` alike; `! case ...`
 * does not parse at all; `time LANG=C x` runs a program called LANG=C. bash reads reserved words
 * there: the prefix negates the status or times the pipeline, and never changes what runs. So the prefix is blanked out (same length:
 * every offset stays) and the line parsed again, which gives the compound command its shape.
 */

/** Words bash reads as reserved at a command's start, when they are whole and unquoted. */
const RESERVED = /^(if|while|until|for|case|select|function|coproc|\{|!|\[\[|time)(?=[\s;&|()<>]|$)/;

/** The source with each misread `!`, and every `time [-p] [--]`, blanked; undefined when there is none. */
export function withoutMisreadPrefixes(source: string, root: SyntaxNode): string | undefined {
  if (!source.includes('!') && !source.includes('time')) return undefined;
  const spans: [number, number][] = [];
  const visit = (n: SyntaxNode) => {
    if (n.type === 'negated_command' && source[n.start] === '!') {
      if (RESERVED.test(source.slice(n.start + 1).trimStart())) spans.push([n.start, n.start + 1]);
    } else if (n.type === 'command') {
      const time = timePrefix(source, n);
      if (time !== undefined) spans.push(time);
    }
    for (const c of n.children) visit(c);
  };
  visit(root);
  if (spans.length === 0) return undefined;
  let out = source;
  for (const [a, b] of spans) out = out.slice(0, a) + ' '.repeat(b - a) + out.slice(b);
  return out;
}

/**
 * `time [-p] [--]` read as a command's name and words: its span. Unquoted and before any
 * assignment it is always bash's keyword, which times the pipeline after it (`time LANG=C x`
 * sets LANG for x; `time { ...; }` is a group).
 */
function timePrefix(source: string, command: SyntaxNode): [number, number] | undefined {
  const [name, ...words] = command.children;
  if (name?.type !== 'command_name' || source.slice(name.start, name.end) !== 'time') return undefined;
  let end = name.end;
  for (const w of words) {
    if (w.start < 0 || !/^(-p|--)$/.test(source.slice(w.start, w.end))) break;
    end = w.end;
  }
  return [name.start, end];
}
