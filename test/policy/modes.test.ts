import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODES } from '../../src/policy/mode.js';
import {
  ALL_MODES,
  bash,
  type Call,
  compile,
  decideIn,
  decideWith,
  edit,
  fetch,
  makeWorld,
  read,
  type World,
  write,
} from './helpers/world.js';

/**
 * What each mode changes (research doc §2; ARCHITECTURE §2 steps 5 and 8).
 */
let w: World;
beforeAll(() => {
  w = makeWorld();
  w.file('src/a.ts');
  w.file('README.md');
  w.dir('build');
  w.file(path.join(w.base, 'outside', 'notes.txt'));
});
afterAll(() => w.cleanup());

describe('deny rules hold in every mode, bypass and its alias included', () => {
  const cases: [string, string, Call][] = [
    ['Bash(rm *)', 'Bash', bash('rm -rf build')],
    ['Bash(cat *)', 'Bash', bash('cat README.md')],
    ['Read(./README.md)', 'Read', read('README.md')],
    ['Edit(./src/**)', 'Edit', edit('src/a.ts')],
    ['Edit(./src/**)', 'Write', write('src/new.ts')],
    ['WebFetch(domain:example.com)', 'WebFetch', fetch('https://example.com/')],
    ['mcp__github', 'mcp', { tool: 'mcp__github__create_issue', input: {} }],
    ['Agent(Explore)', 'Agent', { tool: 'Agent', input: { subagent_type: 'Explore', prompt: 'p' } }],
  ];
  it.each(cases)('%s (%s)', async (rule, _tool, call) => {
    const policy = await compile(w, {
      deny: [rule],
      allow: ['Bash', 'Read', 'Edit(**)', 'WebFetch', 'mcp__github'],
    });
    for (const mode of ALL_MODES) {
      const d = decideIn(w, policy, { ...call, mode });
      expect(d.behavior, `${mode}: ${d.reason}`).toBe('deny');
      expect(d.decidedBy).toBe('rule');
      expect(d.rule?.text).toBe(rule);
    }
  });
});

describe('default mode', () => {
  it('read-only work inside the workspace is allowed without a rule', async () => {
    for (const call of [
      read('src/a.ts'),
      bash('ls -la'),
      bash('cat README.md | wc -l'),
      bash('git status'),
    ]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior, d.reason).toBe('allow');
      expect(d.decidedBy).toBe('default');
    }
  });

  it('read-only work outside the workspace asks', async () => {
    const outside = path.join(w.base, 'outside', 'notes.txt');
    for (const call of [read(outside), bash(`cat ${outside}`), read('/etc/hosts')]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior, d.reason).toBe('ask');
    }
  });

  it('edits, writes, network and other commands ask', async () => {
    for (const call of [
      edit('src/a.ts'),
      write('src/b.ts'),
      fetch('https://example.com/'),
      bash('touch x'),
      bash('npm install'),
    ]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior, d.reason).toBe('ask');
    }
  });

  it('an ask carries the limits the call runs under once approved, network included when the call shows it', async () => {
    const curl = await decideWith(w, {}, bash('curl -o page.html https://example.com/'));
    expect(curl.behavior).toBe('ask');
    expect(curl.sandbox?.network).toBe(true);
    expect(curl.sandbox?.writableRoots).toContain(w.ws);
    const touch = await decideWith(w, {}, bash('touch x'));
    expect(touch.sandbox?.network).toBe(false);
  });

  it('an allow rule allows', async () => {
    const d = await decideWith(w, { allow: ['Edit(./src/**)'] }, edit('src/a.ts'));
    expect(d).toMatchObject({ behavior: 'allow', decidedBy: 'rule' });
  });
});

describe('plan mode: anything not read-only is denied', () => {
  it('reads and read-only commands run', async () => {
    for (const call of [
      read('src/a.ts', 'plan'),
      bash('git log --oneline | head -5', 'plan'),
      bash('ls', 'plan'),
    ]) {
      expect((await decideWith(w, {}, call)).behavior).toBe('allow');
    }
  });

  it('edits, writes, fetches and writing commands are denied, even with allow rules', async () => {
    const perms = { allow: ['Edit(**)', 'Bash(npm install *)', 'Bash(touch *)', 'WebFetch', 'Bash(echo *)'] };
    for (const call of [
      edit('src/a.ts', 'plan'),
      write('src/b.ts', 'plan'),
      fetch('https://example.com/', 'plan'),
      bash('npm install x', 'plan'),
      bash('touch x', 'plan'),
      bash('echo x > out.txt', 'plan'),
      bash('ls && touch x', 'plan'),
    ]) {
      const d = await decideWith(w, perms, call);
      expect(d.behavior, `${JSON.stringify(call.input)}: ${d.reason}`).toBe('deny');
      expect(d.decidedBy).toBe('mode');
      expect(d.mode).toBe('plan');
    }
  });
});

describe('acceptEdits mode', () => {
  it('allows Edit and Write inside the workspace', async () => {
    for (const call of [edit('src/a.ts', 'acceptEdits'), write('src/new.ts', 'acceptEdits')]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior, d.reason).toBe('allow');
      expect(d.decidedBy).toBe('mode');
    }
  });

  it.each([
    'mkdir -p build/out',
    'touch src/new.ts',
    'rm src/a.ts',
    'rm -rf build',
    'rmdir build',
    'mv src/a.ts src/b.ts',
    'cp src/a.ts src/c.ts',
    'sed -i s/a/b/ src/a.ts',
    'NODE_ENV=test touch src/x.ts',
    'timeout 5 touch src/x.ts',
  ])('allows "%s" on workspace paths', async (command) => {
    const d = await decideWith(w, {}, bash(command, 'acceptEdits'));
    expect(d.behavior, d.reason).toBe('allow');
  });

  it('does not allow edits outside the workspace', async () => {
    const outside = path.join(w.base, 'outside', 'notes.txt');
    for (const call of [
      edit(outside, 'acceptEdits'),
      write('/tmp/elsewhere.txt', 'acceptEdits'),
      bash(`touch ${outside}`, 'acceptEdits'),
      bash(`cp src/a.ts ${outside}`, 'acceptEdits'),
      bash(`rm ${outside}`, 'acceptEdits'),
      bash(`echo x > ${outside}`, 'acceptEdits'),
    ]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior, `${JSON.stringify(call.input)}: ${d.reason}`).not.toBe('allow');
    }
  });

  it('does not allow writes to protected paths (.git/hooks, .bashrc, .claude/, .toolgate/)', async () => {
    for (const call of [
      edit('.git/hooks/pre-commit', 'acceptEdits'),
      write('.bashrc', 'acceptEdits'),
      write('.claude/settings.json', 'acceptEdits'),
      write('.toolgate/policy.yaml', 'acceptEdits'),
      write('~/.bashrc', 'acceptEdits'),
      bash('touch .git/hooks/pre-commit', 'acceptEdits'),
      bash('echo x >> ~/.bashrc', 'acceptEdits'),
      bash('cp src/a.ts .toolgate/policy.yaml', 'acceptEdits'),
      bash('mkdir -p .claude/commands', 'acceptEdits'),
    ]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior, `${JSON.stringify(call.input)}: ${d.reason}`).not.toBe('allow');
    }
  });

  it('allow rules do not pre-approve protected-path writes', async () => {
    const d = await decideWith(w, { allow: ['Edit(**)'] }, write('.git/hooks/pre-commit', 'acceptEdits'));
    expect(d.behavior).not.toBe('allow');
  });

  it('other Bash still asks', async () => {
    for (const command of ['npm install', 'curl https://example.com', 'git push origin main']) {
      expect((await decideWith(w, {}, bash(command, 'acceptEdits'))).behavior).toBe('ask');
    }
  });
});

describe('dontAsk mode: what would ask is denied', () => {
  it('an ask rule denies', async () => {
    const d = await decideWith(w, { ask: ['Bash(git push *)'] }, bash('git push origin main', 'dontAsk'));
    expect(d.behavior).toBe('deny');
    expect(d.rule?.text).toBe('Bash(git push *)');
    // Marked, so that a caller can tell "approval would have run it" from a deny rule.
    expect(d.dontAskDenied).toBe(true);
    expect(d.sandbox).toBeUndefined();
  });

  it('a deny rule is not marked as a dontAsk denial', async () => {
    const d = await decideWith(w, { deny: ['Bash(git push *)'] }, bash('git push origin main', 'dontAsk'));
    expect(d.behavior).toBe('deny');
    expect(d.dontAskDenied).toBeUndefined();
  });

  it('the default ask denies', async () => {
    for (const call of [
      edit('src/a.ts', 'dontAsk'),
      bash('npm install', 'dontAsk'),
      read('/etc/hosts', 'dontAsk'),
    ]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior).toBe('deny');
      expect(d.dontAskDenied).toBe(true);
    }
  });

  it('allow rules and read-only work still run', async () => {
    expect(
      (await decideWith(w, { allow: ['Bash(npm install *)'] }, bash('npm install x', 'dontAsk'))).behavior,
    ).toBe('allow');
    expect((await decideWith(w, {}, bash('ls', 'dontAsk'))).behavior).toBe('allow');
  });
});

describe('bypassPermissions mode (and its alias bypass)', () => {
  it.each(['bypassPermissions', 'bypass'])('%s allows what no deny or ask rule covers', async (mode) => {
    for (const call of [
      edit('src/a.ts', mode),
      bash('npm install', mode),
      fetch('https://example.com/', mode),
    ]) {
      const d = await decideWith(w, {}, call);
      expect(d.behavior, d.reason).toBe('allow');
      expect(d.mode).toBe('bypassPermissions');
    }
  });

  it('explicit ask rules still ask', async () => {
    const d = await decideWith(
      w,
      { ask: ['Bash(git push *)'] },
      bash('git push origin', 'bypassPermissions'),
    );
    expect(d.behavior).toBe('ask');
  });

  it('an ask rule on one part of a compound command still asks', async () => {
    const d = await decideWith(w, { ask: ['Bash(git push *)'] }, bash('ls && git push origin', 'bypass'));
    expect(d.behavior).toBe('ask');
  });

  it('protected-path writes ask, as in every mode (a deliberate difference from Claude Code)', async () => {
    for (const file of ['.git/hooks/pre-commit', '.claude/settings.json', '.toolgate/policy.yaml']) {
      expect(await decideWith(w, {}, write(file, 'bypassPermissions')), file).toMatchObject({
        behavior: 'ask',
        decidedBy: 'guard',
      });
      expect((await decideWith(w, {}, bash(`echo x > ${file}`, 'bypassPermissions'))).behavior, file).toBe(
        'ask',
      );
    }
  });
});

describe('the mode comes from the request, else the policy', () => {
  it('a policy mode applies when the request names none', async () => {
    const policy = await compile(w, {}, { mode: 'plan' });
    const d = decideIn(w, policy, edit('src/a.ts'));
    expect(d).toMatchObject({ behavior: 'deny', mode: 'plan' });
  });

  it('the request mode wins over the policy mode', async () => {
    const policy = await compile(w, {}, { mode: 'plan' });
    expect(decideIn(w, policy, edit('src/a.ts', 'default'))).toMatchObject({
      behavior: 'ask',
      mode: 'default',
    });
  });

  it('"bypass" in a policy file reads as bypassPermissions', async () => {
    const policy = await compile(w, {}, { mode: 'bypass' });
    expect(decideIn(w, policy, edit('src/a.ts')).mode).toBe('bypassPermissions');
  });
});

describe('an unknown mode in a request', () => {
  it.each(['yolo', 'Plan'])(
    '"%s" lets no allow rule or mode allow anything (fail-closed reading of "unknown modes ... nothing allowed")',
    async (mode) => {
      const policy = await compile(w, { allow: ['Bash(npm install *)', 'Edit(**)'] });
      for (const call of [bash('npm install x', mode), edit('src/a.ts', mode)]) {
        const d = decideIn(w, policy, call);
        expect(d.behavior, `${mode}: ${d.reason}`).not.toBe('allow');
      }
    },
  );

  it('a mode spelled like an Object.prototype key ("toString", "constructor") still yields one of the six modes', async () => {
    const policy = await compile(w, {});
    for (const mode of ['toString', 'constructor', 'hasOwnProperty']) {
      const d = decideIn(w, policy, bash('ls', mode));
      expect((MODES as readonly string[]).includes(d.mode), `${mode} -> ${String(d.mode)}`).toBe(true);
    }
  });
});
