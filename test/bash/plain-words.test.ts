import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';
import { parseCommandLineTree } from '../../src/bash/parse.js';
import { plainCommandLine } from '../../src/bash/plain-words.js';
import { LIMITS } from '../../src/bash/syntax.js';
import { loadCorpus } from '../helpers/corpus.js';

/**
 * A line of plain words is read without the parser; whenever that reading answers, it must be
 * the parser's answer exactly. The generated lines are made of the characters it accepts and,
 * heavily, of the words where a parser could see syntax: bash's reserved words, the grammar's
 * literal tokens, test operators, assignments, numbers.
 */
const WORD_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./,:@%+=-'.split('');
const TRICKY_WORDS = [
  // bash reserved words and the grammar's keywords
  ...'case coproc do done elif else esac fi for function if in select then time until while'.split(' '),
  ...'declare typeset export readonly local unset unsetenv'.split(' '),
  // the grammar's other literal tokens made of word characters
  ...', = ++ -- += -= /= %= -o -a == + - / % : .. @ := :- :+ %% // /% ,, U u L Q E P A K a k _'.split(' '),
  // test operators, numbers in the grammar's number syntax, assignments, wrappers
  ...'-eq -ne -lt -le -gt -ge -nt -ot -ef -f -d -e -z -n -v -R =~ 0x1F -5 10 2 .'.split(' '),
  ...'a=b A_1=x a+=b =x x= a==b 1=2 %1 test echo env xargs find bash sh -c -exec git rm ls'.split(' '),
  // builtins the parser's walk gives effects beyond argv: they assign names, change directory
  ...'read mapfile readarray printf -v getopts cd pushd popd alias source . eval exec'.split(' '),
];

const word = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY_WORDS) },
  { weight: 2, arbitrary: fc.string({ unit: fc.constantFrom(...WORD_CHARS), minLength: 1, maxLength: 8 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...TRICKY_WORDS), fc.constantFrom(...TRICKY_WORDS))
      .map(([a, b]) => a + b),
  },
);
/** First words are mostly command names, or a tricky word is rarely first and the reading rarely runs. */
const NAME_CHARS = 'abcdefghijklmnopqrstuvwxyz0123456789_./-+'.split('');
const firstWord = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...NAME_CHARS), minLength: 1, maxLength: 8 }) },
  { weight: 2, arbitrary: word },
);
const gap = fc.constantFrom(' ', '  ', '   ');
const plainLine = fc
  .tuple(
    fc.constantFrom('', ' ', '  '),
    firstWord,
    fc.array(fc.tuple(gap, word), { maxLength: 6 }),
    fc.constantFrom('', ' ', '  '),
  )
  .map(([lead, first, rest, trail]) => lead + first + rest.map(([g, w]) => g + w).join('') + trail);

describe('reading a line of plain words', () => {
  it('answers exactly what the parser answers, on generated lines of word characters', () => {
    let read = 0;
    let runs = 0;
    fc.assert(
      fc.property(plainLine, (line) => {
        runs++;
        const plain = plainCommandLine(line);
        if (plain === undefined) return;
        read++;
        expect(plain).toEqual(parseCommandLineTree(line));
      }),
      { numRuns: Number(process.env.PLAIN_RUNS ?? 3000) },
    );
    // The generator must reach the reading often enough for the comparison to mean something.
    expect(read / runs).toBeGreaterThan(0.3);
  });

  it('answers exactly what the parser answers on every corpus line it reads, and reads the plain ones', () => {
    let read = 0;
    for (const { command } of loadCorpus('bash-labelled.jsonl')) {
      const plain = plainCommandLine(command);
      if (plain === undefined) continue;
      read++;
      expect(plain).toEqual(parseCommandLineTree(command));
    }
    expect(read).toBeGreaterThan(50);
  });

  it('reads what an agent runs most', () => {
    for (const line of ['git status', 'ls -la src', 'npm test', '  git log --oneline -5  ', 'dd if=a of=b']) {
      expect(plainCommandLine(line)?.commands[0]?.argv.map((w) => w.value)).toEqual(line.trim().split(/ +/));
    }
  });

  it('leaves to the parser anything that is not plain words', () => {
    for (const line of [
      '',
      '   ',
      'a=b ls',
      'FOO=1',
      'export A=1',
      'ls in',
      'time ls',
      'echo $HOME',
      'ls *.ts',
      'ls ~',
      "echo 'a b'",
      'echo "a"',
      'ls\tx',
      'ls\nrm x',
      'ls # comment',
      'ls > out',
      'ls | cat',
      'ls; rm x',
      'ls && rm x',
      'echo {a,b}',
      'echo a\\ b',
      'echo é',
      '! ls',
      'ls &',
    ]) {
      expect(plainCommandLine(line), line).toBeUndefined();
    }
  });

  it('keeps the parser’s size limit: a huge line of words is too complex, not read-only', () => {
    const huge = `echo ${'a '.repeat(LIMITS.maxSourceChars)}`;
    expect(plainCommandLine(huge)).toBeUndefined();
    const facts = classifyBash(huge);
    expect(facts.readOnly).toBe(false);
    expect(facts.reasons.join('\n')).toMatch(/too complex/);
  });
});
