import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import type { Mode } from '../../src/policy/mode.js';
import { policyFromText } from '../../src/policy/policy.js';
import { DEFAULT_TARGETS, RULED_TARGETS, STUBBED, type Target } from './helpers/denied-commands.js';
import { hasBwrap, type StubbedBash, stubbedBash } from './helpers/stubbed-bash.js';

/**
 * A deny rule's command stays denied under any disguise (#16 item 2): a command a deny rule
 * names (the default policy's force pushes, and generated rules over other commands) is dressed
 * up in generated layers of what bash reads as the same command: quoting (`g'i't`, `\git`,
 * `$'\x67it'`, a backslash-newline inside a word), an absolute path, git's global options and
 * aliases (`-C .`, `-c k=v`, `--no-pager`, `-c alias.x=push x`, GIT_CONFIG_* and
 * GIT_CONFIG_PARAMETERS, `--config-env`), harmless environment prefixes, wrappers (`command`,
 * `exec`, `env`, `nice`, `timeout`, `sudo`, `xargs`, ...), code run by another command (`eval`,
 * `bash -c`), and around it `{ ...; }`, subshells, pipelines, `&&` chains, `$(...)`, bodies of
 * `if`, `for`, functions. Every such line must be denied, in every mode: not merely asked.
 *
 * The disguises are real: a second property runs a sample of the lines whose layers bash alone
 * resolves in bubblewrap, with the named program replaced by a stub that records its argv, and
 * requires the argv the undisguised command passes. (git's own aliases and configuration are
 * checked against real git in test/bash/git-environment.test.ts.)
 */

/** Spellings of a word bash reads as itself; `w` holds no quote, backslash or newline. */
const QUOTED: readonly ((w: string) => string)[] = [
  (x) => `'${x}'`,
  (x) => `"${x}"`,
  (x) => `$'${x}'`,
  (x) => (x.length > 1 && x[0] !== ' ' ? `${x[0]}'${x.slice(1)}'` : `'${x}'`),
  (x) => `$'\\x${x.charCodeAt(0).toString(16).padStart(2, '0')}'${x.length > 1 ? `'${x.slice(1)}'` : ''}`,
];
/** More, for words without blanks or shell syntax. */
const BARE: readonly ((w: string) => string)[] = [
  (x) => x,
  (x) => (x.length > 1 ? `${x[0]}""${x.slice(1)}` : x),
  (x) => (/^[A-Za-z0-9-]/.test(x) ? `\\${x}` : x),
  (x) => (x.length > 1 ? `${x[0]}\\\n${x.slice(1)}` : x),
];
const spelling = (w: string) =>
  fc.constantFrom(...QUOTED, ...(/^[\w.:/=+~-]+$/.test(w) ? BARE : [])).map((f) => f(w));

/** A simple command as layers are added to it. */
interface Dressed {
  /** The command's words, as written. */
  readonly words: readonly string[];
  /** The argv the program gets, as bash passes it. */
  readonly argv: readonly string[];
  /** Whether bash alone resolves every layer (no git alias or configuration, no sudo). */
  readonly real: boolean;
}

const spelled = (words: readonly string[]) => fc.tuple(...words.map(spelling));

/** git's global options that change nothing a rule is about. */
const GIT_GLOBALS: readonly (readonly string[])[] = [
  ['-C', '.'],
  ['-c', 'color.ui=never'],
  ['-ccore.quotepath=off'],
  ['--no-pager'],
  ['-P'],
  ['--literal-pathspecs'],
  ['--no-optional-locks'],
  ['--git-dir=.git'],
  ['--work-tree', '.'],
];

/** The subcommand (and maybe the words after it) as an alias git learns from the line. */
const gitAlias = (sub: readonly string[]) =>
  fc
    .tuple(
      fc.integer({ min: 1, max: sub.length }),
      fc.constantFrom<'c' | 'count' | 'env' | 'export' | 'params' | 'config-env'>(
        'c',
        'count',
        'env',
        'export',
        'params',
        'config-env',
      ),
    )
    .map(([n, how]) => {
      const value = sub.slice(0, n).join(' ');
      const rest = ['zz', ...sub.slice(n)];
      const q = `'${value}'`;
      switch (how) {
        case 'c':
          return { before: '', globals: ['-c', `alias.zz=${value}`], rest };
        case 'count':
          return {
            before: `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zz GIT_CONFIG_VALUE_0=${q} `,
            globals: [],
            rest,
          };
        case 'env':
          return {
            before: `env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zz GIT_CONFIG_VALUE_0=${q} `,
            globals: [],
            rest,
          };
        case 'export':
          return {
            before: `export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.zz GIT_CONFIG_VALUE_0=${q}; `,
            globals: [],
            rest,
          };
        case 'params':
          return { before: `GIT_CONFIG_PARAMETERS="'alias.zz'='${value}'" `, globals: [], rest };
        default:
          return { before: `V=${q} `, globals: ['--config-env=alias.zz=V'], rest };
      }
    });

/** The target with its words spelled, git options and aliases, an absolute path. */
function command(t: Target): fc.Arbitrary<Dressed & { before: string }> {
  const isGit = t.name === 'git';
  const globals = isGit
    ? fc.array(fc.constantFrom(...GIT_GLOBALS), { maxLength: 2 }).map((g) => g.flat())
    : fc.constant<string[]>([]);
  const alias = isGit ? fc.option(gitAlias(t.args), { freq: 3 }) : fc.constant(null);
  return fc.tuple(globals, alias, fc.boolean()).chain(([g, a, absolute]) => {
    const args = a === null ? t.args : a.rest;
    const opts = [...g, ...(a?.globals ?? [])];
    return fc
      .tuple(spelled([...opts, ...args]), absolute ? fc.constant(`/usr/bin/${t.name}`) : spelling(t.name))
      .map(([ws, name]) => ({
        before: a?.before ?? '',
        words: [name, ...ws],
        argv: [...opts, ...args],
        real: a === null,
      }));
  });
}

/** Harmless environment prefixes. */
const ENV = fc.array(fc.constantFrom('LANG=C', 'LC_ALL=C', 'TZ=UTC', 'NO_COLOR=1', 'FOO=bar'), {
  maxLength: 2,
});

/**
 * Wrappers put in front of a command, and whether the stub check can run them (sudo is not
 * installed where the check runs). The shell's own (command, exec, builtin) only come first: a
 * program such as nice runs programs, not builtins.
 */
const BUILTIN_WRAPPER = /^(command|exec|builtin)\b/;
const WRAPPERS: readonly (readonly [string, boolean])[] = [
  ['command', true],
  ['command --', true],
  ['exec', true],
  ['env', true],
  ['env FOO=1', true],
  ['env -u FOO', true],
  ['nice', true],
  ['nice -n 5', true],
  ['timeout 30', true],
  ['timeout -s KILL 30s', true],
  ['nohup', true],
  ['stdbuf -oL', true],
  ['builtin command', true],
  ['sudo', false],
  ['sudo -u root', false],
  ['sudo FOO=1', false],
];

/**
 * Code run as a string by another command, and whether the stub check runs it as written: sh is
 * dash here, which has no `$'...'` (toolgate reads its code as bash's, so it only denies more).
 */
const quoteForSingle = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
const STRINGS: readonly (readonly [(s: string) => string, boolean])[] = [
  [(s) => `eval ${quoteForSingle(s)}`, true],
  [(s) => `bash -c ${quoteForSingle(s)}`, true],
  [(s) => `sh -c ${quoteForSingle(s)}`, false],
];

/** Places a command can stand in a line. */
const AROUND: readonly ((s: string) => string)[] = [
  (s) => `{ ${s}; }`,
  (s) => `( ${s} )`,
  (s) => `true && ${s}`,
  (s) => `false || ${s}`,
  (s) => `${s} || true`,
  (s) => `echo | ${s}`,
  (s) => `${s} | cat`,
  (s) => `echo "$( ${s} )"`,
  (s) => `: $( ${s} )`,
  (s) => `if true; then ${s}; fi`,
  (s) => `for i in 1; do ${s}; done`,
  (s) => `f() { ${s}; }; f`,
  (s) => `! ${s}`,
  (s) => `case a in a) ${s};; esac`,
  (s) => `true\n${s}`,
  (s) => `${s} > /dev/null 2>&1`,
  (s) => `time ${s}`,
];

interface Line {
  readonly target: Target;
  readonly line: string;
  readonly argv: readonly string[];
  readonly real: boolean;
}

function disguised(targets: readonly Target[]): fc.Arbitrary<Line> {
  return fc.constantFrom(...targets).chain((target) =>
    fc
      .record({
        cmd: command(target),
        env: ENV,
        wrappers: fc.array(fc.constantFrom(...WRAPPERS), { maxLength: 2 }),
        string: fc.option(fc.constantFrom(...STRINGS), { freq: 4 }),
        around: fc.array(fc.constantFrom(...AROUND), { maxLength: 2 }),
      })
      .map(({ cmd, env, wrappers, string, around }) => {
        const ws = wrappers.filter(([w], i) => !BUILTIN_WRAPPER.test(w) || i === 0);
        // What the alias needs (an export, a prefix, env) goes first: it reaches the command through the wrappers.
        const simple = cmd.before + [...env, ...ws.map(([w]) => w), ...cmd.words].join(' ');
        let line = string === null ? simple : string[0](simple);
        for (const a of around) line = a(line);
        return {
          target,
          line,
          argv: cmd.argv,
          real: cmd.real && ws.every(([, real]) => real) && !cmd.before && (string?.[1] ?? true),
        };
      }),
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

const MODES: readonly Mode[] = ['default', 'bypassPermissions', 'acceptEdits'];

function decisionOf(l: Line, mode: Mode) {
  const policy = policies.get(l.target.rules?.[0] ?? 'default')!;
  return decide({ tool: 'Bash', input: { command: l.line }, cwd: '/tmp', mode }, policy);
}

describe("a deny rule's command under any disguise stays denied (property)", () => {
  for (const [label, targets] of [
    ['the default policy: force pushes', DEFAULT_TARGETS],
    ['generated rules: Bash(NAME ARG *)', RULED_TARGETS],
  ] as const) {
    it(label, () => {
      fc.assert(
        fc.property(disguised(targets), (l) => {
          for (const mode of MODES) {
            const d = decisionOf(l, mode);
            expect(d.behavior, `${mode}: ${JSON.stringify(l.line)}: ${d.reason}`).toBe('deny');
          }
        }),
        { numRuns: 400, seed: 16_2 },
      );
    });
  }
});

describe.skipIf(!hasBwrap)('the disguises are what bash runs (stubs in bubblewrap)', () => {
  let bash: StubbedBash;
  beforeAll(() => {
    bash = stubbedBash(STUBBED);
  });
  afterAll(() => bash.dispose());

  it('a sample of lines bash alone resolves runs the target with its argv', () => {
    const sample = fc
      .sample(disguised([...DEFAULT_TARGETS, ...RULED_TARGETS]), { numRuns: 400, seed: 1616 })
      .filter((l) => l.real)
      .slice(0, 60);
    expect(sample.length).toBeGreaterThan(30);
    const failures: string[] = [];
    for (const l of sample) {
      const { runs, stderr } = bash.runs(l.line);
      const want = [l.target.name, ...l.argv];
      if (!runs.some((run) => JSON.stringify(run) === JSON.stringify(want)))
        failures.push(
          `${JSON.stringify(l.line)}: ran ${JSON.stringify(runs)}, wanted ${JSON.stringify(want)} (${stderr})`,
        );
    }
    expect(failures.slice(0, 5), `${failures.length} failed:\n${failures.slice(0, 5).join('\n')}`).toEqual(
      [],
    );
  }, 120_000);
});
