import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, decideWith, makeWorld, type World } from './helpers/world.js';

/**
 * The policy decides on what the command knowledge reports (effects and traits), not on
 * command names: acceptEdits approves the writes of commands the catalogue calls edits, and an
 * allow rule's prefix never approves a command whose knowledge says it runs what the rule does
 * not name.
 */
let w: World;
beforeAll(() => {
  w = makeWorld('toolgate-traits-');
  w.file('src/a.ts', 'a');
  w.file('in.txt', 'b\na\n');
});
afterAll(() => w.cleanup());

describe('acceptEdits approves the commands whose knowledge calls them edits', () => {
  for (const command of [
    'mkdir newdir',
    'touch new.txt',
    'echo x | tee out.txt',
    "sed -i 's/a/b/' src/a.ts",
    'cp in.txt copy.txt',
    'mv in.txt moved.txt',
    'rm in.txt',
    'echo x > out.txt',
  ]) {
    it(`allows ${command}`, async () => {
      expect((await decideWith(w, {}, bash(command, 'acceptEdits'))).behavior).toBe('allow');
    });
  }
  for (const command of [
    'sort -o out.txt in.txt',
    'chmod +x src/a.ts',
    'uniq in.txt out.txt',
    'shuf -o o in.txt',
  ]) {
    it(`does not allow ${command}: a write, by a command that is not an edit`, async () => {
      expect((await decideWith(w, {}, bash(command, 'acceptEdits'))).behavior).not.toBe('allow');
    });
  }
  it('does not allow an edit beside another kind of effect', async () => {
    expect(
      (await decideWith(w, {}, bash('mkdir x && curl https://example.com', 'acceptEdits'))).behavior,
    ).not.toBe('allow');
  });
});

describe('an allow rule never approves what the knowledge marks not prefix-allowable', () => {
  for (const [rule, command] of [
    ['Bash(watch *)', 'watch ls'],
    ['Bash(setsid *)', 'setsid ls'],
    ['Bash(ionice *)', 'ionice -c3 ls'],
    ['Bash(flock *)', 'flock /tmp/l ls'],
    ['Bash(find *)', 'find . -name x -delete'],
    ['Bash(find *)', 'find . -exec cat {} +'],
    ['Bash(xargs *)', 'xargs find . -delete'],
  ] as const) {
    it(`${rule} does not allow ${command}`, async () => {
      const d = await decideWith(w, { allow: [rule] }, bash(command));
      expect(d.behavior === 'allow' && d.rule?.text === rule).toBe(false);
    });
  }
  it('the same rule allows the command without the action', async () => {
    expect((await decideWith(w, { allow: ['Bash(find *)'] }, bash('find . -name x'))).behavior).toBe('allow');
    expect((await decideWith(w, { allow: ['Bash(nice *)'] }, bash('nice -n5 sort in.txt'))).behavior).toBe(
      'allow',
    );
  });
});
