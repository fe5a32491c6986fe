import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { decide } from '../../src/policy/decide.js';
import { compile, makeWorld, type World } from './helpers/world.js';

/**
 * Read(**\/.env) holds for what rg prints (#16 item 4): rg leaves hidden files out, unless an
 * ignore file whitelists them (`!.env` in .rgignore, .ignore, .gitignore, above the searched
 * directory or inside it, or a file named by --ignore-file). Each case is first run with real
 * ripgrep in bubblewrap (read-only, no network) to show that it prints .env, then decided.
 */

const hasTools = ['rg', 'bwrap'].every((t) => spawnSync('sh', ['-c', `command -v ${t}`]).status === 0);

let w: World | undefined;
afterEach(() => {
  w?.cleanup();
  w = undefined;
});

/** What real rg prints for `args`, run in `dir` of the world. */
function rgPrints(world: World, dir: string, args: readonly string[]): string {
  const r = spawnSync(
    'bwrap',
    [
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--unshare-all',
      '--cap-drop',
      'ALL',
      '--die-with-parent',
      '--chdir',
      world.at(dir),
      'rg',
      ...args,
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  return r.stdout;
}

async function decision(world: World, command: string, cwd = world.ws) {
  const policy = await compile(world, { deny: ['Read(**/.env)'] });
  return decide({ tool: 'Bash', input: { command }, cwd, mode: 'default' }, policy, { fs: world.fs });
}

describe.skipIf(!hasTools)('rg and ignore-file whitelists', () => {
  const cases: readonly { name: string; files: Record<string, string>; dir?: string; args: string[] }[] = [
    { name: '.rgignore with !.env', files: { '.rgignore': '!.env\n' }, args: ['TOKEN', '.'] },
    { name: '.ignore with !.env', files: { '.ignore': '!.env\n' }, args: ['TOKEN', '.'] },
    {
      name: 'a whitelist in a directory below',
      files: { 'sub/.ignore': '!.env\n', 'sub/.env': 'TOKEN=2\n' },
      args: ['TOKEN', '.'],
    },
    {
      name: 'a whitelist above the searched directory',
      files: { '.rgignore': '!.env\n', 'sub/.env': 'TOKEN=2\n' },
      dir: 'sub',
      args: ['TOKEN', '.'],
    },
    {
      name: '--ignore-file naming a whitelist',
      files: { wl: '!.env\n' },
      args: ['--ignore-file', 'wl', 'TOKEN', '.'],
    },
    { name: '--ignore-file=FILE', files: { wl: '!.env\n' }, args: ['--ignore-file=wl', 'TOKEN', '.'] },
  ];
  for (const c of cases) {
    it(`${c.name}: rg prints .env, and the deny holds`, async () => {
      w = makeWorld('toolgate-rg-wl-');
      w.file('.env', 'TOKEN=1\n');
      w.file('notes.txt', 'nothing\n');
      for (const [f, text] of Object.entries(c.files)) w.file(f, text);
      expect(rgPrints(w, c.dir ?? '.', c.args)).toMatch(/\.env:TOKEN/);
      const d = await decision(w, ['rg', ...c.args].join(' '), w.at(c.dir ?? '.'));
      expect(d.behavior, d.reason).toBe('deny');
    });
  }

  it('control: without a whitelist rg leaves .env out, and the search is allowed', async () => {
    w = makeWorld('toolgate-rg-wl-');
    w.file('.env', 'TOKEN=1\n');
    w.file('notes.txt', 'TOKEN here\n');
    w.file('.rgignore', 'build/\n');
    expect(rgPrints(w, '.', ['TOKEN', '.'])).not.toMatch(/\.env/);
    const d = await decision(w, 'rg TOKEN .');
    expect(d.behavior, d.reason).toBe('allow');
  });
});
