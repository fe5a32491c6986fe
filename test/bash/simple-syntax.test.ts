import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';
import { simpleSyntax } from '../../src/bash/simple-syntax.js';
import { LIMITS, parseSyntax, type SyntaxResult } from '../../src/bash/syntax.js';
import { loadCorpus } from '../helpers/corpus.js';

/**
 * A simple line's tree is built without the parser; whenever that happens, it must be the tree
 * tree-sitter gives (read by the cursor walk), node for node and offset for offset. The
 * generated lines are made of the pieces the builder accepts and of their near misses: words
 * that are keywords, numbers or start with `=`, quotes run into words, redirects of every
 * kind, operators that are not accepted (`&`, `|&`, `;;`), blanks in odd places.
 */
const withoutWalk = (r: SyntaxResult) => (r.ok ? { ...r, tree: { ...r.tree, walk: undefined } } : r);

const WORD_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:@%+=-'.split('');
const TRICKY_WORDS = [
  ...'case do done elif else esac fi for function if in select then time until while'.split(' '),
  ...'declare typeset export readonly local unset unsetenv'.split(' '),
  ...', = ++ -- += -= == + - / % : .. @ := :- %% // ,, U u a k _ -o -a -eq -f -z -n'.split(' '),
  ...'0 1 2 5 -5 10 -0 0x1F 5x 1e3 007 a=b A_1=x =x x= 1=2 %1 a@b x%y'.split(' '),
  ...'ls git cat grep echo head tail sort wc find xargs bash sh -c env test'.split(' '),
  ...'read mapfile readarray printf -v getopts cd pushd popd alias source . eval exec'.split(' '),
];
const QUOTED = [
  ...["''", "'a b'", "'*.ts'", "'$HOME'", "'a|b'", "'x;y'", "'\"'", "'\\'", "'a  b'", "'#c'"],
  ...['""', '" "', '"  "', '" x "', '"a b"', '"*.ts"', '"$HOME"', '"a|b"', '"x;y"', '"\'"', '"\\"', '"#c"'],
  ...['"!x"', '"`id`"', '"-"', '"a=b"', '"~"', '"{a,b}"', '"1"', '"if"', '"a\tb"', '"é"', '"\\n"'],
];
const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789_./-+'.split('');

const plainWord = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY_WORDS) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...WORD_CHARS), minLength: 1, maxLength: 6 }) },
);
const argument = fc.oneof(
  { weight: 4, arbitrary: plainWord },
  { weight: 2, arbitrary: fc.constantFrom(...QUOTED) },
  // near misses: a quote run into a word, a word run into a redirect or a quote
  {
    weight: 1,
    arbitrary: fc.tuple(plainWord, fc.constantFrom(...QUOTED)).map(([w, q]) => w + q),
  },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...QUOTED), plainWord).map(([q, w]) => q + w) },
);
const name = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: fc.constantFrom(...NAME_CHARS), minLength: 1, maxLength: 6 }) },
  { weight: 1, arbitrary: plainWord },
  { weight: 1, arbitrary: fc.constantFrom(...QUOTED) },
);
const redirection = fc
  .tuple(
    fc.constantFrom('', '', '1', '2', '0', '9', '12'),
    fc.constantFrom('>', '>', '>>', '<', '>&', '>|', '<<', '<&', '&>', '>>>', '<>'),
    fc.constantFrom('', ' ', '  '),
    fc.oneof(plainWord, fc.constantFrom('1', '2', '-', '/dev/null', 'out.txt', "'f'")),
  )
  .map(([fd, op, gap, target]) => fd + op + gap + target);
const space = fc.constantFrom(' ', ' ', '  ', '');
const command = fc
  .tuple(
    name,
    fc.array(fc.tuple(space, argument), { maxLength: 4 }),
    fc.array(fc.tuple(space, redirection), { maxLength: 2 }),
  )
  .map(
    ([n, args, redirects]) =>
      n + args.map(([s, a]) => s + a).join('') + redirects.map(([s, r]) => s + r).join(''),
  );
const operator = fc.constantFrom(
  '|',
  '|',
  '&&',
  '||',
  ';',
  ' | ',
  ' && ',
  ' || ',
  '; ',
  '&',
  '|&',
  ';;',
  ' ; ',
);
const line = fc
  .tuple(
    fc.constantFrom('', ' ', '  '),
    command,
    fc.array(fc.tuple(operator, command), { maxLength: 4 }),
    fc.constantFrom('', ' ', ';', ' &'),
  )
  .map(([lead, first, rest, trail]) => lead + first + rest.map(([o, c]) => o + c).join('') + trail);

/** Lines of the accepted forms only, with a near miss now and then: most of them get built. */
const wellFormedCommand = fc
  .tuple(
    fc.string({ unit: fc.constantFrom(...NAME_CHARS), minLength: 1, maxLength: 6 }),
    fc.array(
      fc.tuple(
        fc.constantFrom(' ', '  '),
        fc.oneof(
          {
            weight: 4,
            arbitrary: fc.string({ unit: fc.constantFrom(...WORD_CHARS), minLength: 1, maxLength: 6 }),
          },
          { weight: 2, arbitrary: fc.constantFrom(...QUOTED) },
          { weight: 1, arbitrary: fc.constantFrom(...TRICKY_WORDS) },
        ),
      ),
      { maxLength: 4 },
    ),
    fc.array(
      fc.tuple(
        fc.constantFrom(' ', '  '),
        fc.constantFrom('> out', '>> log.txt', '< in', '2>&1', '>&2', '2>/dev/null', '1> f', '2> err', '> -'),
      ),
      { maxLength: 2 },
    ),
  )
  .map(
    ([n, args, redirects]) =>
      n + args.map(([s, a]) => s + a).join('') + redirects.map(([s, r]) => s + r).join(''),
  );
const wellFormedLine = fc
  .tuple(
    fc.constantFrom('', ' '),
    wellFormedCommand,
    fc.array(fc.tuple(fc.constantFrom(' | ', '|', ' && ', ' || ', '; ', ' ; '), wellFormedCommand), {
      maxLength: 3,
    }),
    fc.constantFrom('', ' '),
  )
  .map(([lead, first, rest, trail]) => lead + first + rest.map(([o, c]) => o + c).join('') + trail);

function sameTreeWhenBuilt(source: string): boolean {
  const tree = simpleSyntax(source);
  if (tree === undefined) return false;
  expect(withoutWalk({ ok: true, tree }), source).toEqual(withoutWalk(parseSyntax(source, 'cursor')));
  return true;
}

describe('the tree of a simple line, built without the parser', () => {
  const runs = Number(process.env.SIMPLE_RUNS ?? 3000);

  it('is the tree tree-sitter gives, on generated lines of the forms it builds', () => {
    let built = 0;
    fc.assert(
      fc.property(wellFormedLine, (source) => {
        if (sameTreeWhenBuilt(source)) built++;
      }),
      { numRuns: runs },
    );
    // The generator must reach the builder often enough for the comparison to mean something.
    expect(built / runs).toBeGreaterThan(0.15);
  });

  it('is the tree tree-sitter gives, on generated lines full of near misses', () => {
    fc.assert(
      fc.property(line, (source) => {
        sameTreeWhenBuilt(source);
      }),
      { numRuns: runs },
    );
  });

  it('is the tree tree-sitter gives on every corpus line it builds, and builds most of them', () => {
    let built = 0;
    const corpus = loadCorpus('bash-labelled.jsonl');
    for (const { command: source } of corpus) {
      const tree = simpleSyntax(source);
      if (tree === undefined) continue;
      built++;
      expect(withoutWalk({ ok: true, tree }), source).toEqual(withoutWalk(parseSyntax(source, 'cursor')));
    }
    expect(built / corpus.length).toBeGreaterThan(0.4);
  });

  it('builds the lines agents run most, and parseSyntax uses it for them', () => {
    for (const source of [
      'git status',
      'git log --oneline | head -20',
      'npm test 2>&1 | tail -n 50',
      'cd src && ls -la > files.txt',
      "grep -rn 'TODO' src",
      'git commit -m "Fix the typo in README"',
      'make > /dev/null 2>&1 || echo failed; echo finished',
    ]) {
      const r = parseSyntax(source);
      expect(r.ok && r.tree.walk, source).toBe('lexed');
    }
  });

  it("keeps the parser's size limit: a huge simple line is too complex, not read-only", () => {
    const huge = `echo ${'a '.repeat(LIMITS.maxSourceChars)}`;
    expect(simpleSyntax(huge)).toBeUndefined();
    expect(simpleSyntax(`a ${'b'.repeat(LIMITS.maxSourceChars - 1)}`)).toBeUndefined();
    const r = parseSyntax(huge);
    expect(r.ok).toBe(false);
    const facts = classifyBash(huge);
    expect(facts.readOnly).toBe(false);
    expect(facts.reasons.join('\n')).toMatch(/too complex/);
  });

  it('leaves to the parser what it does not model', () => {
    for (const source of [
      '',
      '   ',
      'a=b ls',
      'ls &',
      'ls |& cat',
      'echo $HOME',
      'ls *.ts',
      "echo 'a'b",
      'echo "a"b',
      'echo "$HOME"',
      'echo "`id`"',
      'echo "a\\"b"',
      'echo a>f',
      'cat <<EOF',
      'cat < f 2< g',
      'a | b > f | c',
      'echo 0x1F',
      'ls\tx',
      'ls\nrm x',
      'ls # note',
      'ls;',
      '; ls',
      'ls ;; x',
      'time ls',
      'if true; then ls; fi',
      `${'a && '.repeat(200)}a`,
    ]) {
      expect(simpleSyntax(source), JSON.stringify(source)).toBeUndefined();
    }
  });
});
