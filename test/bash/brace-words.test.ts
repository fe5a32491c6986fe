import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';
import { parseCommandLine } from '../../src/bash/parse.js';

/**
 * A `{` joined to the word after it is that word's first character for bash, never the group
 * keyword (bash reserves `{` only as a word of its own), even where tree-sitter reads the
 * keyword. Each line's reading was checked with real bash in bubblewrap: `{git,push} origin`
 * ran `git push origin`, `{}` and `{x}` "command not found", `f(){echo;}` a syntax error.
 */
const names = (line: string) => {
  const parsed = parseCommandLine(line);
  return { problems: parsed.problems, names: parsed.commands.map((c) => c.argv[0]?.raw) };
};

describe('a brace joined to a word at a command start', () => {
  it.each([
    ['{git,push} origin main', ['{git,push}']],
    ['{git,push,origin,main}', ['{git,push,origin,main}']],
    ['{,git} push', ['{,git}']],
    ['echo hi; {rm,x}', ['echo', '{rm,x}']],
    ['echo | {rm,-rf,x} && {a..c}', ['echo', '{rm,-rf,x}', '{a..c}']],
    ['echo "$({git,push} o)"', ['{git,push}', 'echo']],
    ['{}', ['{}']],
  ])('%j is a command whose name is the brace word', (line, want) => {
    expect(names(line)).toEqual({ problems: [], names: want });
  });

  it.each(['{git,push} origin +main', '{rm,-rf,x}', '{}', '{x}', 'true && {ls,-la}'])(
    '%j is not read-only (its program is only known once expanded, or unknown)',
    (line) => {
      expect(classifyBash(line).readOnly).toBe(false);
    },
  );

  it.each([
    ['{ ls; }', ['ls']],
    ['{ ls;}', ['ls']],
    ['{(echo a)}', ['echo']],
    ['echo ${x}', ['echo']],
    ['f() { ls; }; f', ['ls', 'f']],
  ])('%j keeps the keyword: a blank or a metacharacter follows the brace', (line, want) => {
    expect(names(line).names).toEqual(want);
  });

  it('a function body joined to its brace is a syntax error for bash: not analyzed', () => {
    expect(parseCommandLine('f(){echo;}').problems).not.toEqual([]);
  });
});
