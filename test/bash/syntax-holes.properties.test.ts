import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classifyBash } from '../../src/bash/classify.js';

/**
 * The structural classes of false read-only of issue #16 (2-6), as properties over every
 * combination of the ways each hole can be made: no form of a class may come out read-only,
 * while the harmless forms next to them keep their read-only answer.
 */
const readOnly = (line: string) => classifyBash(line).readOnly;

/** Code that leaves a file behind when bash runs it. */
const code = fc.constantFrom('$(touch pwned)', '`touch pwned`', '$(: > pwned)', '"$(touch pwned)"');
/** A harmless name for a variable: nothing in bash or a program reads it. */
const plainName = fc.stringMatching(/^v_[a-z]{1,6}$/);

describe('class 2: expansions whose patterns or arithmetic run code', () => {
  it('a substitution in any pattern operator of ${v...} runs', () => {
    const op = fc.constantFrom('#', '##', '%', '%%', '^', '^^', ',', ',,', '/', '//', ':-', ':=', ':+');
    fc.assert(
      fc.property(op, code, fc.constantFrom('', 'a', '*'), (o, c, pad) => {
        expect(readOnly(`v=abc; echo \${v${o}${pad}${c}${pad}}`)).toBe(false);
      }),
    );
  });

  it('positional parameters or function arguments evaluated as arithmetic run their subscripts', () => {
    const setter = fc.constantFrom(
      (use: string) => `set -- "$V"; ${use}`,
      (use: string) => `set x "$V"; shift; ${use}`,
      (use: string) => `set - "$V"; ${use}`,
      (use: string) => `set -e -- "$V"; ${use}`,
      (use: string) => `f() { ${use}; }; f "$V"`,
    );
    const use = fc.constantFrom(
      'echo $(( $1 ))',
      '(( $1 > 0 ))',
      'let "x=$1"',
      'echo ${x:$1}',
      '[[ $1 -eq 0 ]]',
      'declare -i n=$1',
      'echo $(( ${1} + 1 ))',
    );
    fc.assert(
      fc.property(setter, use, (s, u) => {
        expect(readOnly(`V='a[$(touch pwned)]'; ${s(u)}`)).toBe(false);
      }),
    );
  });

  it('a counter assigned from arithmetic stays read-only', () => {
    fc.assert(
      fc.property(plainName, fc.integer({ min: 0, max: 9 }), (n, k) => {
        expect(readOnly(`${n}=0; ${n}=$((${n}+${k})); echo $${n}`)).toBe(true);
      }),
    );
  });
});

describe('class 3: here-document delimiters quoted in the middle', () => {
  /** A delimiter with one quoted run somewhere inside: bash's delimiter is the word unquoted. */
  const delimiter = fc
    .tuple(
      fc.stringMatching(/^[A-Z]{1,3}$/),
      fc.stringMatching(/^[A-Z]{1,3}$/),
      fc.stringMatching(/^[A-Z]{0,3}$/),
      fc.constantFrom('"', "'", '\\'),
    )
    .map(([a, b, c, q]) => ({
      written: q === '\\' ? `${a}\\${b}${c}` : `${a}${q}${b}${q}${c}`,
      bash: `${a}${b}${c}`,
    }));

  it('a body line equal to the unquoted word ends the document: what follows runs', () => {
    fc.assert(
      fc.property(delimiter, fc.boolean(), (d, dash) => {
        const line = `cat <<${dash ? '-' : ''}${d.written}\n${d.bash}\ntouch pwned\n${d.written}`;
        expect(readOnly(line)).toBe(false);
      }),
    );
  });

  const bwrap = spawnSync('sh', ['-c', 'command -v bwrap']).status === 0;
  it.skipIf(!bwrap)('real bash agrees: it ends the body at the unquoted word', () => {
    fc.assert(
      fc.property(delimiter, (d) => {
        // Only echo and cat run, in a jail without network or capabilities all the same.
        const line = `cat <<${d.written}\nbody\n${d.bash}\necho after\n${d.written}`;
        const run = spawnSync(
          'bwrap',
          [
            '--unshare-all',
            '--cap-drop',
            'ALL',
            '--ro-bind',
            '/',
            '/',
            '--tmpfs',
            '/tmp',
            '--chdir',
            '/tmp',
            '/bin/bash',
            '-c',
            line,
          ],
          { encoding: 'utf8', timeout: 10_000 },
        );
        expect(run.stdout.split('\n').slice(0, 2)).toEqual(['body', 'after']);
        expect(readOnly(line)).toBe(false);
      }),
      { numRuns: 12 },
    );
  });
});

describe('class 4: redirections that re-open another descriptor', () => {
  const device = fc.constantFrom('/dev/stdin', '/dev/fd/0', '/dev/fd/3', '/dev/fd/9', '/proc/self/fd/0');
  it('writing to stdin or a numbered descriptor writes whatever file is there', () => {
    expect(readOnly('exec 3<f 9<f; : <f')).toBe(true);
    fc.assert(
      fc.property(device, fc.constantFrom('>', '>>', '2>', '&>'), (dev, op) => {
        expect(readOnly(`exec 3<f 9<f; : <f ${op}${dev}`)).toBe(false);
      }),
    );
  });

  it('once fd 1 or 2 holds a file, writing to /dev/stdout or /dev/stderr writes it', () => {
    expect(readOnly(': <f 1<f')).toBe(true);
    const move = fc.constantFrom('1<f', '2<f', '1>&0', '2>&0', '>&3', '2<&0');
    const target = fc.constantFrom('/dev/stdout', '/dev/stderr', '/dev/fd/1', '/dev/fd/2');
    fc.assert(
      fc.property(move, target, fc.boolean(), (m, t, grouped) => {
        const line = grouped ? `{ : >${t}; } ${m}` : `: <f ${m} >${t}`;
        expect(readOnly(line)).toBe(false);
      }),
    );
  });

  it('a writer given /dev/stdout or /dev/stderr writes the file fd 1 or 2 holds', () => {
    expect(readOnly('echo hi | tee /dev/stdout /dev/stderr')).toBe(true);
    const move = fc.constantFrom('1<f', '2<f', '1>&0', '2<&0', '>&3');
    fc.assert(
      fc.property(
        move,
        fc.constantFrom('/dev/stdout', '/dev/stderr'),
        fc.constantFrom('tee', 'tee -a'),
        (m, t, w) => {
          expect(readOnly(`echo hi | ${w} ${t} ${m}`)).toBe(false);
        },
      ),
    );
  });

  it("the caller's own outputs stay harmless", () => {
    const tail = fc.constantFrom('>/dev/null', '2>&1', '>/dev/stderr', '2>/dev/stdout', '>&2', '2>/dev/null');
    fc.assert(
      fc.property(fc.constantFrom('ls', 'git status', 'cat notes.txt'), tail, (c, t) => {
        expect(readOnly(`${c} ${t}`)).toBe(true);
      }),
    );
  });
});

describe('class 5: words only known at run time that become options', () => {
  const option = fc.constantFrom('--output=pwned', '-opwned', '--output pwned');
  const makes = fc.constantFrom(
    (v: string) => ({ set: `OLDPWD='${v}';`, word: '~-' }),
    (v: string) => ({ set: `PWD='${v}';`, word: '~+' }),
    (v: string) => ({ set: `set x '${v}'; shift;`, word: '$1' }),
    (v: string) => ({ set: `set - '${v}';`, word: '"$1"' }),
    (v: string) => ({ set: `set -e -- '${v}';`, word: '"$@"' }),
    (v: string) => ({ set: `x='${v}';`, word: '$x' }),
    (v: string) => ({ set: `echo '${v}' | xargs -I{}`, word: '{}' }),
    (v: string) => ({ set: `echo '${v}' | xargs -I%`, word: '%' }),
    (v: string) => ({ set: `x='HEAD ${v}';`, word: '$x' }),
    (v: string) => ({ set: '', word: `$(mktemp -u -- '${v}XXX')` }),
    (v: string) => ({ set: '', word: `$(find . -maxdepth 0 -printf '${v}')` }),
    (v: string) => ({ set: '', word: `$(git rev-parse --flags -- '${v}')` }),
  );
  it('an unquoted expansion inside a word splits into words of its own, options included', () => {
    const piece = fc.constantFrom('$x', '${x}', '$(echo "$x")', '`echo "$x"`');
    const head = fc.constantFrom('HEAD', 'a', 'notes.txt', 'HEAD~', 'x/');
    fc.assert(
      fc.property(option, piece, head, fc.constantFrom('git diff', 'git log -1', 'sort'), (v, p, h, cmd) => {
        expect(readOnly(`x=' ${v}'; ${cmd} ${h}${p}`)).toBe(false);
        // Quoted, the same value stays inside one word that is no option.
        expect(readOnly(`x=' ${v}'; ${cmd} "${h}${p}"`)).toBe(true);
      }),
    );
  });

  it('reaches a writing option of the command it is given to', () => {
    fc.assert(
      fc.property(option, makes, fc.constantFrom('git diff', 'sort notes.txt'), (v, m, cmd) => {
        const { set, word } = m(v);
        expect(readOnly(`${set} ${cmd} ${word}`)).toBe(false);
      }),
    );
  });
});

describe('class 6: variables set without NAME=value', () => {
  const sensitive = fc.constantFrom(
    'PATH',
    'BASH_ENV',
    'LD_PRELOAD',
    'GIT_DIR',
    'GIT_CONFIG_PARAMETERS',
    'LESSOPEN',
    'PAGER',
    'BASH_CMDS',
  );
  const bind = fc.constantFrom(
    (n: string) => `read ${n} <<< tools`,
    (n: string) => `read -r -a ${n} <<< tools`,
    (n: string) => `printf -v ${n} %s tools`,
    (n: string) => `printf -v${n} %s tools`,
    (n: string) => `for ${n} in tools; do :; done`,
    (n: string) => `: \${${n}:=tools}`,
    (n: string) => `mapfile -t ${n} <<< tools`,
    (n: string) => `readarray ${n} <<< tools`,
    (n: string) => `wait -p ${n}`,
    (n: string) => `getopts a ${n}`,
    (n: string) => `declare ${n}=tools`,
    (n: string) => `export ${n}=tools`,
    (n: string) => `typeset -x ${n}=tools`,
    (n: string) => `let ${n}=0`,
    (n: string) => `let "${n} += 1"`,
    (n: string) => `(( ${n} = 0 ))`,
    (n: string) => `(( ${n}++ ))`,
    (n: string) => `(( --${n} ))`,
    (n: string) => `echo $(( ${n} |= 1 ))`,
  );
  const then = fc.constantFrom('ls', 'git status', 'bash -c :', 'less README.md', 'cat f');
  it('one that changes what runs makes the rest of the line not read-only', () => {
    fc.assert(
      fc.property(sensitive, bind, then, (n, b, t) => {
        expect(readOnly(`${b(n)}; ${t}`)).toBe(false);
      }),
    );
  });

  it('a harmless name bound the same ways stays read-only', () => {
    fc.assert(
      fc.property(plainName, bind, (n, b) => {
        expect(readOnly(`${b(n)}; echo "$${n}"`)).toBe(true);
      }),
    );
  });
});
