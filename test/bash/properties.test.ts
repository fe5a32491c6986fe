import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';
import { loadCorpus } from '../helpers/corpus.js';
import { shellish } from '../helpers/shellish.js';

/**
 * Properties that must hold for any input: the classifier never throws, and no amount of
 * read-only company makes a non-read-only command read-only.
 */
const corpus = loadCorpus('bash-labelled.jsonl');
const notReadOnly = corpus.filter((l) => !l.readOnly).map((l) => l.command);
const readOnly = corpus
  .filter((l) => l.readOnly && !l.command.includes('\n') && !l.command.includes('#'))
  .map((l) => l.command);

const writers = fc.constantFrom(...notReadOnly);
const readers = fc.constantFrom(...readOnly, 'ls', 'cat README.md', 'git status', 'pwd', 'echo ok', 'true');

describe('classifyBash properties', () => {
  it('never throws and always explains a non-read-only answer', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), shellish()),
        (s) => {
          const facts = classifyBash(s);
          expect(typeof facts.readOnly).toBe('boolean');
          if (!facts.readOnly) expect(facts.reasons.length).toBeGreaterThan(0);
          if (facts.readOnly) expect(facts.destructive).toBe(false);
        },
      ),
      { numRuns: 600 },
    );
  });

  it('a non-read-only line stays non-read-only beside read-only commands', () => {
    const combine = fc.tuple(
      readers,
      writers,
      readers,
      fc.constantFrom(
        'prefix;',
        'prefix&&',
        'prefix||',
        'prefix\n',
        'suffix|',
        'suffix;',
        'subst',
        'backtick',
        'procsub',
        'both',
      ),
    );
    fc.assert(
      fc.property(combine, ([before, x, after, how]) => {
        let line: string;
        switch (how) {
          case 'prefix;':
            line = `${before}; ${x}`;
            break;
          case 'prefix&&':
            line = `${before} && ${x}`;
            break;
          case 'prefix||':
            line = `${before} || ${x}`;
            break;
          case 'prefix\n':
            line = `${before}\n${x}`;
            break;
          case 'suffix|':
            line = `${x} | ${after}`;
            break;
          case 'suffix;':
            line = `${x}; ${after}`;
            break;
          case 'subst':
            line = `echo $(${x})`;
            break;
          case 'backtick':
            line = `echo "\`${x.replace(/`/g, '\\`')}\`"`;
            break;
          case 'procsub':
            line = `diff <(${x}) <(${after})`;
            break;
          default:
            line = `${before} && ${x} | ${after}`;
        }
        expect(classifyBash(line).readOnly, line).toBe(false);
      }),
      { numRuns: 800 },
    );
  });

  it('wrapping a non-read-only line in any wrapper never makes it read-only', () => {
    const wrappers = fc.constantFrom(
      (x: string) => `timeout 10 ${x}`,
      (x: string) => `nice -n 5 ${x}`,
      (x: string) => `nohup ${x}`,
      (x: string) => `env FOO=1 ${x}`,
      (x: string) => `env ${x}`,
      (x: string) => `command ${x}`,
      (x: string) => `builtin ${x}`,
      (x: string) => `exec ${x}`,
      (x: string) => `sudo ${x}`,
      (x: string) => `stdbuf -o0 ${x}`,
      (x: string) => `time ${x}`,
      (x: string) => `bash -c ${quote(x)}`,
      (x: string) => `sh -c ${quote(x)}`,
      (x: string) => `bash -lc ${quote(x)}`,
      (x: string) => `eval ${quote(x)}`,
      (x: string) => `echo . | xargs ${x}`,
      (x: string) => `find . -maxdepth 0 -exec ${x} \\;`,
      (x: string) => `watch -n 1 ${quote(x)}`,
      // Spaced: `((x))` would be bash's arithmetic command, where `make` is a variable name.
      (x: string) => `( ${x} )`,
      (x: string) => `{ ${x}; }`,
      (x: string) => `if true; then ${x}; fi`,
      (x: string) => `for i in 1; do ${x}; done`,
      (x: string) => `f() { ${x}; }; f`,
    );
    const simple = writers.filter((x) => !x.includes('\n'));
    fc.assert(
      fc.property(simple, fc.array(wrappers, { minLength: 1, maxLength: 3 }), (x, wraps) => {
        const line = wraps.reduce((acc, w) => w(acc), x);
        expect(classifyBash(line).readOnly, line).toBe(false);
      }),
      { numRuns: 800 },
    );
  });
});

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
