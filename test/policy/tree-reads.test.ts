import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import { bash, compile, decideIn, makeWorld, type World } from './helpers/world.js';

/**
 * A command that reads a directory all the way down (grep -r, rg, ag, tar -c, zip -r) reads
 * every file below it: a deny on one of them denies the command, as `cat` of that file would.
 */
let w: World;
let policy: CompiledPolicy;
beforeEach(async () => {
  w = makeWorld('toolgate-tree-');
  w.file('src/app.ts', 'TOKEN = read_from_env()\n');
  w.file('docs/guide.md');
  policy = await compile(w, { deny: ['Read(**/.env)'] });
});
afterEach(() => w.cleanup());

const behavior = (command: string) => decideIn(w, policy, bash(command)).behavior;

describe('recursive reads meet the rules on the files below', () => {
  it('with no denied file below, recursive searches run as the read-only commands they are', () => {
    w.file('deep/a/b/c/notes.txt');
    for (const command of ['grep -r TOKEN .', 'grep -rn TOKEN src', 'rg TOKEN', 'ag TOKEN', 'tar cf - .'])
      expect(behavior(command), command).toBe('allow');
  });

  it('a denied file anywhere below denies grep -r, grep -R, grep with no operand, tar and zip', () => {
    w.file('config/deep/.env', 'TOKEN=secret\n');
    for (const command of [
      'grep -r TOKEN .',
      'grep -R TOKEN',
      'grep -rl TOKEN config',
      'grep --directories=recurse TOKEN config',
      'egrep -r TOKEN .',
      'tar cf - .',
      'tar -czf - config',
      'zip -r out.zip .',
    ]) {
      const d = decideIn(w, policy, bash(command));
      expect(d.behavior, command).toBe('deny');
      expect(d.reason).toContain(`reads ${w.at('config/deep/.env')}`);
    }
    // Below another directory it does not matter.
    expect(behavior('grep -r TOKEN src docs')).toBe('allow');
    expect(behavior('grep TOKEN src/app.ts')).toBe('allow');
  });

  it('rg and ag leave out hidden files unless told, and are judged on what they read', () => {
    w.file('.env', 'TOKEN=secret\n');
    expect(behavior('rg TOKEN')).toBe('allow');
    expect(behavior('ag TOKEN')).toBe('allow');
    for (const command of [
      'rg --hidden TOKEN',
      'rg -. TOKEN',
      'rg -uu TOKEN',
      'ag --hidden TOKEN',
      'ack TOKEN',
    ])
      expect(behavior(command), command).toBe('deny');
    // A hidden directory is left out with everything in it.
    w.file('sub/.cache/x.txt');
    expect(behavior('rg TOKEN sub')).toBe('allow');
  });

  it('a symlink below that leads to a denied file counts, whatever its name', () => {
    const secret = w.file(`${w.base}/elsewhere/.env`, 'TOKEN=secret\n');
    w.link('docs/notes.txt', secret);
    const d = decideIn(w, policy, bash('grep -r TOKEN docs'));
    expect(d.behavior).toBe('deny');
    expect(d.reason).toContain(w.at('docs/notes.txt'));
  });

  it('ask rules ask the same way', async () => {
    w.file('config/.env');
    const asking = await compile(w, { ask: ['Read(**/.env)'] });
    expect(decideIn(w, asking, bash('grep -r TOKEN .')).behavior).toBe('ask');
  });

  it('a tree that cannot be listed is an ask, never an allow, when rules on reads exist', () => {
    const unlistable = { ...w.fs, walk: () => undefined };
    const d = decide({ tool: 'Bash', input: { command: 'grep -r TOKEN .' }, cwd: w.ws }, policy, {
      fs: unlistable,
    });
    expect(d.behavior).toBe('ask');
    expect(d.decidedBy).toBe('guard');
    expect(d.reason).toMatch(/reads every file below .*too many to check/);
    // In bypass mode too: the guard is not a mode's to lift.
    const bypass = decide(
      { tool: 'Bash', input: { command: 'grep -r TOKEN .' }, cwd: w.ws, mode: 'bypassPermissions' },
      policy,
      { fs: unlistable },
    );
    expect(bypass.behavior).toBe('ask');
  });

  it('a policy without rules on reads does not walk at all', async () => {
    const none = await compile(w, { deny: ['Bash(curl *)'] });
    let walked = 0;
    const counting = {
      ...w.fs,
      walk: () => {
        walked++;
        return undefined;
      },
    };
    const d = decide({ tool: 'Bash', input: { command: 'grep -r TOKEN .' }, cwd: w.ws }, none, {
      fs: counting,
    });
    expect(d.behavior).toBe('allow');
    expect(walked).toBe(0);
  });
});
