import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideWithClassifier } from '../../src/policy/auto.js';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import type { Decision } from '../../src/policy/decision.js';
import { compileAbsolutePathGlob } from '../../src/policy/match/path.js';
import type { Mode } from '../../src/policy/mode.js';
import { type Call, compile, makeWorld, type Permissions, type World } from './helpers/world.js';

/**
 * A policy-level bypass sweep: given the deny and ask rules a security team writes, can an
 * agent get the denied effect through anyway, in any mode? Each case of
 * test/fixtures/policy-bypasses.jsonl names a technique and where it comes from (the section of
 * shared/research/bash_bypasses.md, or "brief" for the task's own list), and is decided in
 * every mode on a real world on disk (files, symlinks, a home), auto mode through the offline
 * classifier.
 *
 * What a case expects (`expect`, default "deny"):
 *   deny     deny in every mode: the line visibly does what the rule names.
 *   block    never allow (deny or ask): the line cannot be proven to match (a name or path only
 *            known at run time, a parse failure); failing closed means "not allowed".
 *   effect   another program with the same effect: the rule does not name it. It is not
 *            read-only, so no mode may allow it but bypassPermissions, which runs whatever no
 *            rule denies (Claude Code's semantics; a team that wants it blocked names it too).
 *            With `edit`, it is also an ordinary in-workspace edit acceptEdits allows.
 *   outside  not what the rule names (another tool name, an address for a domain): default,
 *            acceptEdits, plan and dontAsk must not allow it; auto and bypass decide as usual.
 *   protect  a write into a protected path or outside the workspace: no mode but
 *            bypassPermissions may allow it (acceptEdits included).
 *   allow    a negative control: the call really does not do what the rule names.
 *   fs-same / fs-protect: deny / protect when the file system treats the spelling as the
 *            denied file (case- or normalization-insensitive); else the spelling must name
 *            another path, which does not exist.
 * `gap` lists modes where the case is still allowed because src/bash does not report what the
 * policy would need; those run as `it.fails` naming the gap, so a fix there turns them red
 * until the marker is removed.
 */

interface Case {
  family: string;
  name: string;
  src: string;
  policy?: string;
  command?: string;
  tool?: string;
  input?: unknown;
  expect?: 'deny' | 'block' | 'effect' | 'outside' | 'protect' | 'allow' | 'fs-same' | 'fs-protect';
  edit?: boolean;
  gap?: { modes: Mode[]; why: string };
  note?: string;
}

const CASES: Case[] = fs
  .readFileSync(new URL('../fixtures/policy-bypasses.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Case);

const MODES: readonly Mode[] = ['default', 'acceptEdits', 'plan', 'auto', 'dontAsk', 'bypassPermissions'];

/** The rules of each family (`{BASE}` is the world's base directory). */
const POLICIES: Record<string, Permissions> = {
  rm: { deny: ['Bash(rm *)'] },
  'rm-effect': { deny: ['Bash(rm *)'] },
  env: { deny: ['Read(**/.env)'] },
  'env*': { deny: ['Read(**/.env*)'] },
  push: { deny: ['Bash(git push *)'] },
  'push-effect': { deny: ['Bash(git push *)'] },
  // Rules naming an option, under a broad allow (another layer's `git *`): the option in any spelling.
  force: {
    deny: [
      'Bash(git push --force *)',
      'Bash(git reset --hard *)',
      'Bash(git branch -D *)',
      'Bash(git branch --delete *)',
      'Bash(git clean -f *)',
      'Bash(rm -rf *)',
    ],
    allow: ['Bash(git *)', 'Bash(rm *)'],
  },
  // The default policy's no-force-push rules (`--force*`: a glued star), under the same broad allow.
  'force-glob': {
    deny: [
      'Bash(git push --force*)',
      'Bash(git push * --force*)',
      'Bash(git push -f*)',
      'Bash(git push * -f*)',
      'Bash(git push * +*)',
      'Bash(git push --mirror*)',
      'Bash(git push * --mirror*)',
    ],
    allow: ['Bash(git *)'],
  },
  net: { deny: ['WebFetch(domain:evil.com)'], allow: ['WebFetch(domain:good.com)'] },
  'net-bash': { deny: ['WebFetch(domain:evil.com)'], allow: ['WebFetch(domain:good.com)'] },
  mcp: { deny: ['mcp__github__delete_*'] },
  'mcp-glob': { deny: ['mcp__*github*__delete*'] },
  paths: {
    deny: ['Read(~/.ssh/**)', 'Read(./secrets/**)', 'Read(/{BASE}/outside/secret)', 'Read(./caf\u00e9/**)'],
  },
  protect: {},
};

/** The same sweep with ask rules: an ask must hold wherever a deny would. */
const ASK_FAMILIES = ['rm', 'push', 'env'];

let w: World;
const compiled = new Map<string, CompiledPolicy>();

beforeAll(async () => {
  w = makeWorld('toolgate-bypass-');
  w.file('x');
  w.file('list', 'x\n');
  w.file('script.sh', 'rm x\n');
  w.file('.env', 'TOKEN=1\n');
  w.file('sub/.env.local', 'TOKEN=1\n');
  w.link('envlink', '.env');
  w.link('sub/innocent.txt', '.env');
  w.dir('empty');
  // A tree with a dot file and no link to it: what reaches hid/.env reads it by name.
  w.file('hid/.env', 'TOKEN=1\n');
  w.file('hid/notes.txt', 'x\n');
  w.file('evil/settings.json', '{}');
  w.file('evil/hooks/pre-commit', 'touch M\n');
  w.file('.git/hooks/pre-commit', '#!/bin/sh\n');
  w.file('.git/config', '');
  w.file('.claude/settings.json', '{}');
  w.file('secrets/key', 'k');
  w.file('caf\u00e9/key', 'k');
  w.link('seclink', 'secrets');
  w.link('hookslink', '.git/hooks');
  w.link('gitlink', '.git');
  w.link('claudelink', '.claude');
  w.file(path.join(w.home, '.bashrc'), '');
  w.file(path.join(w.home, '.ssh', 'id_rsa'), 'key');
  w.link('sshlink', path.join(w.home, '.ssh'));
  w.link('homelink', w.home);
  const outside = path.join(w.base, 'outside');
  w.file(path.join(outside, 'secret'), 'k');
  w.link(path.join(outside, 'wslink'), 'secrets');
  w.link(path.join(outside, 'keylink'), 'secrets/key');
  w.link('outlink', outside);
  w.link('outsecret', path.join(outside, 'secret'));
  const all = { ...POLICIES, ...askPolicies() };
  for (const [key, perms] of Object.entries(all)) compiled.set(key, await compile(w, fill(perms)));
});
afterAll(() => w.cleanup());

/** `ask:<key>`: the deny rules of a policy as ask rules. */
function askPolicies(): Record<string, Permissions> {
  return Object.fromEntries(
    Object.entries(POLICIES)
      .filter(([, perms]) => perms.deny !== undefined && perms.allow === undefined)
      .map(([key, perms]) => [`ask:${key}`, { ask: perms.deny! }]),
  );
}

/** Placeholders in cases and rules: the world's paths. */
function sub(text: string): string {
  return text.replaceAll('{BASE}', w.base).replaceAll('{WS}', w.ws).replaceAll('{HOME}', w.home);
}

function fill<T>(value: T): T {
  return JSON.parse(sub(JSON.stringify(value))) as T;
}

function callOf(c: Case): Call {
  if (c.command !== undefined) return { tool: 'Bash', input: { command: sub(c.command) } };
  return { tool: c.tool!, input: fill(c.input) };
}

async function decideIn(policy: CompiledPolicy, call: Call, mode: Mode, cwd = w.ws): Promise<Decision> {
  return decideWithClassifier({ tool: call.tool, input: call.input, cwd, mode }, policy, { fs: w.fs });
}

type Want = 'deny' | 'block' | 'allow';

/** What each mode must answer; a mode left out is not asserted (see the header). */
function wanted(c: Case): Partial<Record<Mode, Want>> {
  const every = (want: Want, except: Mode[] = []) =>
    Object.fromEntries(MODES.filter((m) => !except.includes(m)).map((m) => [m, want]));
  switch (c.expect ?? 'deny') {
    case 'deny':
      return every('deny');
    case 'block':
      return every('block');
    case 'effect':
      return every('block', c.edit ? ['bypassPermissions', 'acceptEdits'] : ['bypassPermissions']);
    case 'outside':
      return every('block', ['auto', 'bypassPermissions']);
    case 'protect':
      return every('block', ['bypassPermissions']);
    case 'allow':
      return { default: 'allow' };
    case 'fs-same':
      return every('deny');
    case 'fs-protect':
      return every('block', ['bypassPermissions']);
  }
}

function satisfies(d: Decision, want: Want): boolean {
  return want === 'block' ? d.behavior !== 'allow' : d.behavior === want;
}

function title(c: Case): string {
  const what = c.command !== undefined ? JSON.stringify(c.command) : `${c.tool} ${JSON.stringify(c.input)}`;
  return `${c.name} [${c.src}]: ${what}`;
}

/**
 * fs-same and fs-protect: whether this file system makes the spelling the same file as the
 * canonical one. When it does not, the case checks that the spelling names nothing at all.
 */
function sameFileAsCanonical(c: Case): { same: boolean; literal: string } {
  const input = fill(c.input) as { file_path: string };
  const literal = path.resolve(w.ws, input.file_path);
  const canonical = c.expect === 'fs-protect' ? w.at('.git/hooks') : w.at('secrets/key');
  const probe = c.expect === 'fs-protect' ? path.dirname(literal) : literal;
  const a = fs.statSync(probe, { throwIfNoEntry: false });
  const b = fs.statSync(canonical);
  return { same: a !== undefined && a.ino === b.ino && a.dev === b.dev, literal };
}

function sweep(family: string, policyKey: (c: Case) => string, label: string, transform?: (w: Want) => Want) {
  const cases = CASES.filter((c) => c.family === family);
  describe(`${label} (${cases.length} cases)`, () => {
    for (const c of cases) {
      const want = wanted(c);
      const gapModes = new Set(c.gap?.modes ?? []);
      const asserted = MODES.filter((m) => want[m] !== undefined && !gapModes.has(m));
      const check = async (modes: readonly Mode[]) => {
        const policy = compiled.get(policyKey(c))!;
        if (c.expect === 'fs-same' || c.expect === 'fs-protect') {
          const { same, literal } = sameFileAsCanonical(c);
          if (!same) {
            // Another name on this file system: it must not lead to the protected file.
            expect(fs.existsSync(literal)).toBe(false);
            return;
          }
        }
        const failures: string[] = [];
        for (const mode of modes) {
          const goal = transform ? transform(want[mode]!) : want[mode]!;
          const d = await decideIn(policy, callOf(c), mode);
          if (!satisfies(d, goal)) failures.push(`${mode}: wanted ${goal}, got ${d.behavior} (${d.reason})`);
        }
        expect(failures, failures.join('\n')).toEqual([]);
      };
      if (asserted.length > 0) it(title(c), () => check(asserted));
      for (const mode of gapModes) {
        // Known gap (see `why`): still allowed in this mode. Fixing it in src/bash turns this red.
        it.fails(`${title(c)} — KNOWN GAP in ${mode}: ${c.gap!.why}`, () => check([mode]));
      }
    }
  });
}

describe('policy-level bypass sweep (test/fixtures/policy-bypasses.jsonl)', () => {
  sweep('rm', () => 'rm', 'deny Bash(rm *): the same program, disguised');
  sweep('rm-effect', () => 'rm', 'deny Bash(rm *): other programs with the same effect');
  sweep('env', (c) => c.policy ?? 'env', 'deny Read(**/.env): reading the file by any other way');
  sweep('push', () => 'push', 'deny Bash(git push *): global options, quoting, run-time words');
  sweep('push-effect', () => 'push', 'deny Bash(git push *): other programs that push');
  sweep(
    'force',
    () => 'force',
    'deny rules naming an option: clusters, order, other names, abbreviations, refspecs',
  );
  sweep('force-glob', () => 'force-glob', "the default policy's --force* rules: any spelling of the options");
  sweep('net', () => 'net', 'deny WebFetch(domain:evil.com): URL spellings');
  sweep('net-bash', () => 'net', 'deny WebFetch(domain:evil.com): the network from Bash');
  sweep('mcp', () => 'mcp', 'deny mcp__github__delete_*: name variants');
  sweep('mcp-glob', () => 'mcp-glob', 'deny mcp__*github*__delete*: a glob names the variants');
  sweep('paths', () => 'paths', 'path anchors //, ~/, ./ through symlinks, .., //, case, unicode');
  sweep('protect', () => 'protect', 'protected paths and the workspace boundary (acceptEdits above all)');
  // Ask rules: wherever a deny denies, the ask must hold (ask or deny: never allow).
  const toBlock = (x: Want): Want => (x === 'deny' ? 'block' : x);
  for (const family of ASK_FAMILIES) {
    sweep(family, (c) => `ask:${c.policy ?? family}`, `the same ${family} cases under an ask rule`, toBlock);
  }
});

// ------------------------------------------------------------------------------ obligations

describe('allowed, but the call runs without the denied file', () => {
  // The Grep and Glob tools are allowed over a directory that holds .env: the profile the call
  // runs under carries the deny, and the tools skip every file it covers (src/tools/grep.ts).
  // Bash `grep -r` has no such check: see the KNOWN GAP cases of the .env family.
  for (const input of [
    { pattern: 'TOKEN' },
    { pattern: 'TOKEN', path: '.' },
    { pattern: 'TOKEN', glob: '.env' },
  ]) {
    it(`Grep ${JSON.stringify(input)} carries Read(**/.env) into its sandbox profile`, async () => {
      const d = await decideIn(compiled.get('env')!, { tool: 'Grep', input }, 'default');
      expect(d.behavior).toBe('allow');
      const masks = (d.sandbox?.readDeny ?? []).map(compileAbsolutePathGlob);
      expect(masks.some((m) => m.matches(w.at('.env')))).toBe(true);
      expect(masks.some((m) => m.matches(w.at('sub/innocent.txt')))).toBe(false);
    });
  }
  it('Glob **/.env lists names only, and its profile masks the file', async () => {
    const d = await decideIn(
      compiled.get('env')!,
      { tool: 'Glob', input: { pattern: '**/.env' } },
      'default',
    );
    expect(d.behavior).toBe('allow');
    expect(
      (d.sandbox?.readDeny ?? []).map(compileAbsolutePathGlob).some((m) => m.matches(w.at('.env'))),
    ).toBe(true);
  });
});

// ------------------------------------------------------------------------------ properties

const shq = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Things that run the command they are given, as bash runs them. A prefix wrapper takes a
 * simple command: a group, subshell or assignment under it goes through `bash -c` first, as a
 * person would write it. `watch` joins its arguments for `sh -c`, so it gets one quoted word.
 */
const PREFIXES: ((cmd: string) => string)[] = [
  ...[
    'timeout 5',
    'timeout -s KILL 5',
    'nice',
    'nice -n 5',
    'nohup',
    'env',
    'env -i',
    'env FOO=1',
    'command',
    'stdbuf -o0',
    'sudo',
    'sudo -u root',
    'doas',
    'setsid',
    'ionice -c3',
    'flock /tmp/l',
    'strace',
    'busybox',
    'xargs',
  ].map((prefix) => (cmd: string) => `${prefix} ${simple(cmd)}`),
  (cmd) => `watch ${shq(cmd)}`,
];

const COMPOSITIONS: ((cmd: string) => string)[] = [
  (cmd) => `bash -c ${shq(cmd)}`,
  (cmd) => `sh -c ${shq(cmd)}`,
  (cmd) => `bash -lc ${shq(cmd)}`,
  (cmd) => `eval ${shq(cmd)}`,
  (cmd) => `busybox sh -c ${shq(cmd)}`,
  (cmd) => `true && ${cmd}`,
  (cmd) => `ls; ${cmd}`,
  (cmd) => `( ${cmd} )`, // spaced: `((` would start arithmetic
  (cmd) => `{ ${cmd}; }`,
  (cmd) => `echo x | ${cmd}`,
  (cmd) => `FOO=1 ${simple(cmd)}`,
];

const WRAPPERS = [...PREFIXES, ...COMPOSITIONS];

/** A line that is not a simple command, made one (`(rm x)` -> `bash -c '(rm x)'`). */
const simple = (cmd: string) => (/^[({]|^[A-Z]+=|[;&|]/.test(cmd) ? `bash -c ${shq(cmd)}` : cmd);

const wrapperChain = (max: number) =>
  fc.array(fc.integer({ min: 0, max: WRAPPERS.length - 1 }), { minLength: 1, maxLength: max });

const wrap = (inner: string, chain: readonly number[]) => chain.reduce((cmd, i) => WRAPPERS[i]!(cmd), inner);

const anyMode = fc.constantFrom(...MODES);

/** Every way bash spells one character of a command name. */
function spellChar(c: string): fc.Arbitrary<string> {
  const hex = c.charCodeAt(0).toString(16).padStart(2, '0');
  return fc.constantFrom(c, `\\${c}`, `'${c}'`, `"${c}"`, `$'${c}'`, `$'\\x${hex}'`, `''${c}`, `${c}""`);
}

/** Every spelling of a word, one character at a time (a quote then an escape included: `'r'\\m`). */
function spellWord(word: string): fc.Arbitrary<string> {
  return fc.tuple(...[...word].map(spellChar)).map((parts) => parts.join(''));
}

describe('properties: open-ended spellings never get through', () => {
  it('any chain of up to 4 wrappers around `rm x` is denied by Bash(rm *), in every mode', async () => {
    await fc.assert(
      fc.asyncProperty(wrapperChain(4), anyMode, async (chain, mode) => {
        const command = wrap('rm x', chain);
        const d = await decideIn(compiled.get('rm')!, { tool: 'Bash', input: { command } }, mode);
        expect(d.behavior, `${mode}: ${command} -> ${d.reason}`).toBe('deny');
      }),
      { numRuns: 300 },
    );
  });

  it('deeper chains (up to 12) are never allowed, whatever the mode', async () => {
    await fc.assert(
      fc.asyncProperty(wrapperChain(12), anyMode, async (chain, mode) => {
        const command = wrap('rm x', chain);
        const d = await decideIn(compiled.get('rm')!, { tool: 'Bash', input: { command } }, mode);
        expect(d.behavior, `${mode}: ${command} -> ${d.reason}`).not.toBe('allow');
      }),
      { numRuns: 200 },
    );
  });

  it('any quoting of the command name, with or without its path, is denied', async () => {
    const name = fc
      .tuple(fc.constantFrom('', '/bin/', '/usr/bin/'), spellWord('rm'))
      .map(([dir, n]) => dir + n);
    await fc.assert(
      fc.asyncProperty(name, fc.constantFrom('x', '-rf x', '-- x'), anyMode, async (n, args, mode) => {
        const command = `${n} ${args}`;
        const d = await decideIn(compiled.get('rm')!, { tool: 'Bash', input: { command } }, mode);
        expect(d.behavior, `${mode}: ${command} -> ${d.reason}`).toBe('deny');
      }),
      { numRuns: 300 },
    );
  });

  it('any quoting of a subcommand, and any git global options before it, are denied by Bash(git push *)', async () => {
    const globals = fc.array(
      fc.constantFrom(
        '-C .',
        '-C sub',
        '-c x=y',
        '-cx=y',
        '--git-dir=.git',
        '--git-dir .git',
        '--work-tree=.',
        '--work-tree .',
        '--no-pager',
        '-P',
        '--bare',
        '--namespace=n',
        '--literal-pathspecs',
        '--no-optional-locks',
        '--config-env=a=B',
      ),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        globals,
        spellWord('push'),
        fc.constantFrom('', ' origin', ' origin main', ' --force'),
        anyMode,
        async (g, sub, rest, mode) => {
          const command = ['git', ...g, sub].join(' ') + rest;
          const d = await decideIn(compiled.get('push')!, { tool: 'Bash', input: { command } }, mode);
          expect(d.behavior, `${mode}: ${command} -> ${d.reason}`).toBe('deny');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a run-time word anywhere after `git` is never allowed under Bash(git push *) (deny or ask)', async () => {
    const dynamic = fc.constantFrom(
      '$X',
      '${X}',
      '"$X"',
      '$(echo push)',
      '`echo push`',
      '${X:-push}',
      '$@',
      '$1',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        dynamic,
        fc.constantFrom('replace', 'before', 'after'),
        anyMode,
        async (at, dyn, how, mode) => {
          const words = ['git', 'push', 'origin', 'main'];
          const word = words[at]!;
          words[at] = how === 'replace' ? dyn : how === 'before' ? `${dyn}${word}` : `${word}${dyn}`;
          const command = words.join(' ');
          const d = await decideIn(compiled.get('push')!, { tool: 'Bash', input: { command } }, mode);
          expect(d.behavior, `${mode}: ${command} -> ${d.reason}`).not.toBe('allow');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('any spelling of the path to .env is denied, by the Read tool and by cat', async () => {
    // Segments that lead back to where they started: ./, sub/.., //, sub/./.., the absolute root.
    const detour = fc.array(fc.constantFrom('./', 'sub/../', 'sub/./../', 'evil/hooks/../../', './/'), {
      maxLength: 4,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        detour,
        fc.constantFrom('.env', 'envlink', 'sub/innocent.txt'),
        fc.boolean(),
        anyMode,
        async (absolute, hops, file, viaBash, mode) => {
          const p = (absolute ? `${w.ws}/` : '') + hops.join('') + file;
          const call: Call = viaBash
            ? { tool: 'Bash', input: { command: `cat ${p}` } }
            : { tool: 'Read', input: { file_path: p } };
          const d = await decideIn(compiled.get('env')!, call, mode);
          expect(d.behavior, `${mode}: ${JSON.stringify(call.input)} -> ${d.reason}`).toBe('deny');
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a chain of symlinks, made for the run, ending at .env is denied at every link', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('ws', 'outside', 'home'), { minLength: 1, maxLength: 4 }),
        anyMode,
        async (places, mode) => {
          const run = `chain${n++}`;
          const dirs: Record<string, string> = {
            ws: w.ws,
            outside: path.join(w.base, 'outside'),
            home: w.home,
          };
          // Each link points at the previous one; the first points at .env.
          let target = w.at('.env');
          const links: string[] = [];
          for (const [i, place] of places.entries()) {
            const link = path.join(dirs[place]!, `${run}-${i}`);
            fs.symlinkSync(target, link);
            links.push(link);
            target = link;
          }
          for (const link of links) {
            for (const call of [
              { tool: 'Read', input: { file_path: link } },
              { tool: 'Bash', input: { command: `cat ${link}` } },
            ]) {
              const d = await decideIn(compiled.get('env')!, call, mode);
              expect(d.behavior, `${mode}: ${JSON.stringify(call.input)} -> ${d.reason}`).toBe('deny');
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('any spelling of the evil.com URL is denied by WebFetch(domain:evil.com)', async () => {
    const host = fc
      .tuple(...[...'evil.com'].map((c) => fc.constantFrom(c, c.toUpperCase())))
      .map((cs) => cs.join(''));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('https://', 'http://', 'HTTPS://', 'https:', 'https:/', 'https:\\\\'),
        fc.constantFrom('', 'user@', 'good.com@', 'a:b@'),
        host,
        fc.constantFrom('', '.'),
        fc.constantFrom('', ':443', ':8080'),
        fc.constantFrom('', '/', '/x?y=1', '#frag'),
        anyMode,
        async (scheme, userinfo, h, dot, port, rest, mode) => {
          const url = `${scheme}${userinfo}${h}${dot}${port}${rest}`;
          const d = await decideIn(
            compiled.get('net')!,
            { tool: 'WebFetch', input: { url, prompt: 'p' } },
            mode,
          );
          expect(d.behavior, `${mode}: ${url} -> ${d.reason}`).toBe('deny');
        },
      ),
      { numRuns: 300 },
    );
  });
});
