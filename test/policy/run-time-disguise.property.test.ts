import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import type { Mode } from '../../src/policy/mode.js';
import { policyFromText } from '../../src/policy/policy.js';
import { DEFAULT_TARGETS, RULED_TARGETS, STUBBED, type Target } from './helpers/denied-commands.js';
import { hasBwrap, type StubbedBash, stubbedBash } from './helpers/stubbed-bash.js';

/**
 * A denied command hidden behind words only known at run time is denied, not asked (#16,
 * policy slips): a word of it (the name, the subcommand, an option) comes from a variable set
 * earlier, `read`, `printf -v`, `set --`, `for`, a substitution or a parameter default, or is
 * glued on with `$IFS`; or the whole command is a string run by `eval`, `bash -c`, `sh -c` or
 * piped into a shell. The policy cannot see the word, but the word may be the denied one, so
 * no mode may allow the line and none may leave it to a person: deny, naming the rule.
 *
 * The disguises are real: a sample runs with real bash in bubblewrap against argv-recording
 * stubs (test/policy/helpers/stubbed-bash.ts) and must run the denied command.
 */

/** A line, and the argv bash must run (it may add words after: `pu{sh,}` is `push pu`). */
interface Line {
  readonly target: Target;
  readonly line: string;
  readonly argv: readonly string[];
}

const sq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Ways one word `w` reaches the command only at run time, through the variable `v`: what goes
 * before the command, and what stands in the word's place. `positional` ones set `$1`, so only
 * one word a line may use them.
 */
interface HideWord {
  (w: string, v: string): { before: string; word: string };
  positional?: boolean;
}
const positional = (f: HideWord): HideWord => Object.assign(f, { positional: true });
const HIDE_WORD: readonly HideWord[] = [
  (w, v) => ({ before: `${v}=${sq(w)}; `, word: `$${v}` }),
  (w, v) => ({ before: `${v}=${sq(w)}; `, word: `"$${v}"` }),
  (w, v) => ({ before: `${v}=${sq(w)}; `, word: `\${${v}}` }),
  (w, v) => ({ before: `export ${v}=${sq(w)}; `, word: `"\${${v}}"` }),
  (w, v) => ({ before: `read -r ${v} <<< ${sq(w)}; `, word: `"$${v}"` }),
  (w, v) => ({ before: `printf -v ${v} %s ${sq(w)}; `, word: `$${v}` }),
  (w, v) => ({ before: `: \${${v}:=${sq(w)}}; `, word: `$${v}` }),
  positional((w) => ({ before: `set -- ${sq(w)}; `, word: '"$1"' })),
  (w) => ({ before: '', word: `$(echo ${sq(w)})` }),
  (w) => ({ before: '', word: `"$(printf %s ${sq(w)})"` }),
  (w) => ({ before: '', word: `\`echo ${sq(w)}\`` }),
  (w, v) => ({ before: '', word: `\${${v}:-${sq(w)}}` }),
  (w, v) => ({ before: '', word: `"\${${v}-${w}}"` }),
];

/** Ways the whole command (`c`, plain words) reaches a shell only at run time. */
const HIDE_LINE: readonly ((c: string) => string)[] = [
  (c) => `C=${sq(c)}; eval "$C"`,
  (c) => `eval "$(printf %s ${sq(c)})"`,
  (c) => `C=${sq(c)}; bash -c "$C"`,
  (c) => `export C=${sq(c)}; sh -c "$C"`,
  (c) => `bash -c "$(echo ${sq(c)})"`,
  (c) => `echo ${sq(c)} | bash`,
  (c) => `printf '%s\\n' ${sq(c)} | sh`,
  (c) => `echo ${sq(c)} > cmds; cat cmds | bash`,
  (c) => `set -- ${c}; "$@"`,
  (c) => `a=(${c}); "\${a[@]}"`,
];

/** Places the line can stand in. */
const AROUND: readonly ((s: string) => string)[] = [
  (s) => s,
  (s) => `{ ${s}; }`,
  (s) => `( ${s} )`,
  (s) => `true && ${s}`,
  (s) => `echo "$( ${s} )"`,
  (s) => `if true; then ${s}; fi`,
  (s) => `f() { ${s}; }; f`,
];

/**
 * How the words are hidden: one or two behind run-time words, or glued by `$IFS`, or split by
 * braces inside a word, or braces around the command name (a `{` joined to a word starts that
 * word for bash, never the group keyword).
 */
type How = 'hide' | 'ifs' | 'brace' | 'brace-name' | 'empty-brace';

/** One or two words hidden, or one glued to the word before by `$IFS`, or braced. */
function byWords(t: Target): fc.Arbitrary<{ line: string; argv: readonly string[] }> {
  const words = [t.name, ...t.args];
  const indexes = fc.uniqueArray(fc.integer({ min: 0, max: words.length - 1 }), {
    minLength: 1,
    maxLength: 2,
  });
  return fc
    .tuple(
      indexes,
      fc.array(fc.constantFrom(...HIDE_WORD), { minLength: 2, maxLength: 2 }),
      fc.integer({ min: 1, max: Math.max(1, words.length - 1) }),
      fc.constantFrom<How>('hide', 'hide', 'ifs', 'brace', 'brace-name', 'empty-brace'),
    )
    .map(([at, hides, glue, how]) => {
      if (how === 'brace-name' && words.length > 1) {
        // `{git,push} origin`: the first words as one brace word, which bash expands in place.
        const k = Math.min(words.length, glue + 1);
        return { line: [`{${words.slice(0, k).join(',')}}`, ...words.slice(k)].join(' '), argv: words };
      }
      if (how === 'empty-brace') {
        // `{,git} push`: the empty alternative is a null word, which bash removes.
        return { line: [`{,${words[0]}}`, ...words.slice(1)].join(' '), argv: words };
      }
      if (how === 'ifs' && words.length > 1) {
        // `git${IFS}push`: one word as written, two once split (default IFS).
        const w = [...words];
        w.splice(glue - 1, 2, `${w[glue - 1]}\${IFS}${sq(w[glue]!)}`);
        return { line: w.join(' '), argv: words };
      }
      if (how === 'brace') {
        // `pu{sh,}` is two words, `push pu`: the command, and one more argument after it.
        const last = words[words.length - 1]!;
        const w = [...words.slice(0, -1), `${last[0]}{${last.slice(1)},}`];
        return { line: w.join(' '), argv: [...words, last[0]!] };
      }
      const w = [...words];
      let before = '';
      let positionalUsed = false;
      at.forEach((i, n) => {
        const hide = hides[n]!.positional && positionalUsed ? HIDE_WORD[0]! : hides[n]!;
        positionalUsed ||= hide.positional === true;
        const h = hide(words[i]!, `V${n}`);
        before += h.before;
        w[i] = h.word;
      });
      return { line: before + w.join(' '), argv: words };
    });
}

function disguised(targets: readonly Target[]): fc.Arbitrary<Line> {
  return fc.constantFrom(...targets).chain((target) =>
    fc
      .tuple(
        fc.oneof(
          byWords(target),
          fc.constantFrom(...HIDE_LINE).map((f) => ({
            line: f([target.name, ...target.args].join(' ')),
            argv: [target.name, ...target.args],
          })),
        ),
        fc.constantFrom(...AROUND),
      )
      .map(([{ line, argv }, around]) => ({ target, line: around(line), argv })),
  );
}

const policies = new Map<string, CompiledPolicy>();
beforeAll(async () => {
  policies.set('default', await policyFromText(JSON.stringify({ version: 1, extends: 'builtin:default' })));
  for (const t of RULED_TARGETS)
    policies.set(
      t.rules![0]!,
      await policyFromText(JSON.stringify({ version: 1, permissions: { deny: t.rules } })),
    );
});

const MODES: readonly Mode[] = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions'];

describe('a denied command behind words only known at run time is denied (property)', () => {
  for (const [label, targets] of [
    ['the default policy: force pushes', DEFAULT_TARGETS],
    ['generated rules: Bash(NAME ARG *)', RULED_TARGETS],
  ] as const) {
    it(label, () => {
      fc.assert(
        fc.property(disguised(targets), (l) => {
          const policy = policies.get(l.target.rules?.[0] ?? 'default')!;
          for (const mode of MODES) {
            const d = decide({ tool: 'Bash', input: { command: l.line }, cwd: '/tmp', mode }, policy);
            expect(d.behavior, `${mode}: ${JSON.stringify(l.line)}: ${d.reason}`).toBe('deny');
            expect(d.rule, `${mode}: ${JSON.stringify(l.line)}: names no rule`).toBeDefined();
          }
        }),
        { numRuns: 300, seed: 16_6 },
      );
    });
  }
});

describe.skipIf(!hasBwrap)('the run-time disguises are what bash runs (stubs in bubblewrap)', () => {
  let bash: StubbedBash;
  beforeAll(() => {
    bash = stubbedBash(STUBBED);
  });
  afterAll(() => bash.dispose());

  it('a sample runs the denied command', () => {
    const sample = fc.sample(disguised([...DEFAULT_TARGETS, ...RULED_TARGETS]), { numRuns: 60, seed: 1666 });
    const failures: string[] = [];
    for (const l of sample) {
      const { runs, stderr } = bash.runs(l.line);
      const want = JSON.stringify(l.argv);
      if (!runs.some((run) => JSON.stringify(run) === want))
        failures.push(`${JSON.stringify(l.line)}: ran ${JSON.stringify(runs)}, wanted ${want} (${stderr})`);
    }
    expect(failures.slice(0, 5), `${failures.length} failed:\n${failures.slice(0, 5).join('\n')}`).toEqual(
      [],
    );
  }, 120_000);
});
