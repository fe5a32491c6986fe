import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decideWithClassifier } from '../../src/policy/auto.js';
import { MODES } from '../../src/policy/mode.js';
import { loadPolicy, policyFromText } from '../../src/policy/policy.js';
import {
  ALL_MODES,
  bash,
  type Call,
  compile,
  decideIn,
  decideWith,
  edit,
  makeWorld,
  managedRoot,
  type Permissions,
  read,
  type World,
} from './helpers/world.js';

/**
 * decide(): the decision order (ARCHITECTURE §2), the guards no mode or allow rule lifts, layers
 * and the managed lock (§4), and what a Decision says about itself.
 */
let w: World;
beforeAll(() => {
  w = makeWorld();
  w.file('src/a.ts');
  w.dir('build');
});
afterAll(() => w.cleanup());

// ------------------------------------------------------------------------------ order

describe('decision order: deny > ask > allow, whatever the specificity or order of rules (§1.1)', () => {
  it('a broad deny beats a specific allow ("Bash(aws *)" deny blocks "aws s3 ls")', async () => {
    for (const perms of [
      { deny: ['Bash(aws *)'], allow: ['Bash(aws s3 ls)'] },
      { allow: ['Bash(aws s3 ls)'], deny: ['Bash(aws *)'] },
    ]) {
      const d = await decideWith(w, perms, bash('aws s3 ls'));
      expect(d.behavior).toBe('deny');
      expect(d.rule?.text).toBe('Bash(aws *)');
    }
  });

  it('a matching ask prompts even when a more specific allow matches', async () => {
    const d = await decideWith(
      w,
      { allow: ['Bash(git push origin main)'], ask: ['Bash(git push *)'] },
      bash('git push origin main'),
    );
    expect(d.behavior).toBe('ask');
    expect(d.rule?.text).toBe('Bash(git push *)');
  });

  it('deny beats ask', async () => {
    const d = await decideWith(
      w,
      { ask: ['Bash(git push origin main)'], deny: ['Bash(git push *)'] },
      bash('git push origin main'),
    );
    expect(d.behavior).toBe('deny');
  });

  it('the order of rule entries in a file does not matter', async () => {
    const texts = [
      'version: 1\nrules:\n  - allow: "Edit(./src/**)"\n  - deny: "Edit(./src/a.ts)"\n',
      'version: 1\nrules:\n  - deny: "Edit(./src/a.ts)"\n  - allow: "Edit(./src/**)"\n',
    ];
    for (const text of texts) {
      const policy = await policyFromText(text, { root: w.ws });
      const d = decideIn(w, policy, edit('src/a.ts'));
      expect(d.behavior).toBe('deny');
      expect(d.rule?.text).toBe('Edit(./src/a.ts)');
    }
  });

  it('a path deny beats a Bash allow for the same command', async () => {
    const d = await decideWith(w, { allow: ['Bash(cat *)'], deny: ['Read(./src/**)'] }, bash('cat src/a.ts'));
    expect(d.behavior).toBe('deny');
    expect(d.rule?.text).toBe('Read(./src/**)');
  });
});

describe('step 1: input that fails the tool schema is denied (decidedBy error)', () => {
  it.each([
    ['Bash without a command', { tool: 'Bash', input: {} }],
    ['Bash with a number', { tool: 'Bash', input: { command: 5 } }],
    ['Read without file_path', { tool: 'Read', input: {} }],
    ['Edit with an empty path', { tool: 'Edit', input: { file_path: '', old_string: 'a', new_string: 'b' } }],
    ['input that is not an object', { tool: 'Bash', input: 'ls' }],
  ])('%s', async (_label, call) => {
    for (const mode of ['default', 'bypassPermissions'] as const) {
      const d = await decideWith(w, { allow: ['Bash', 'Read', 'Edit(**)'] }, { ...(call as Call), mode });
      expect(d.behavior).toBe('deny');
      expect(d.decidedBy).toBe('error');
    }
  });

  it('a relative cwd is refused', async () => {
    const d = await decideWith(w, { allow: ['Bash'] }, { ...bash('ls'), cwd: 'relative/dir' });
    expect(d.behavior).toBe('deny');
    expect(d.decidedBy).toBe('error');
  });
});

// ------------------------------------------------------------------------------ guards

describe('critical-path rm: no allow rule and no mode lifts it (§2 critical paths)', () => {
  const criticalCommands = (ws: string, home: string) => [
    'rm -rf /',
    'rm -rf /*',
    'rm -r -f -- /',
    'rm -rf ~',
    'rm -rf ~/',
    `rm -rf ${home}`,
    'rm -rf $HOME',
    `rm -rf ${ws}`,
    'rm -rf .',
    'rm -rf ..',
    `rm -rf ${path.dirname(ws)}`,
    'rm -rf /usr',
    'rmdir /usr',
    'rm -rf "$X"/',
    'rm -rf "$X"/*',
    'timeout 5 rm -rf /',
    'sudo rm -rf /',
    'echo $(rm -rf /)',
    "bash -c 'rm -rf ~'",
    'cd .. && rm -rf ws',
  ];

  it('is not allowed by "Bash(rm *)", "Bash(*)" or "Bash", in any mode', async () => {
    for (const allow of [['Bash(rm *)'], ['Bash(*)'], ['Bash']]) {
      const policy = await compile(w, { allow });
      for (const command of criticalCommands(w.ws, w.home)) {
        for (const mode of ALL_MODES) {
          const d = decideIn(w, policy, bash(command, mode));
          expect(d.behavior, `${command} [${mode}] ${allow}: ${d.reason}`).not.toBe('allow');
        }
      }
    }
  });

  it('asks in bypass mode with no rules (decidedBy guard), and dontAsk turns that into deny', async () => {
    const policy = await compile(w, {});
    for (const command of criticalCommands(w.ws, w.home)) {
      const d = decideIn(w, policy, bash(command, 'bypassPermissions'));
      expect(d.behavior, `${command}: ${d.reason}`).toBe('ask');
      expect(d.decidedBy).toBe('guard');
      expect(decideIn(w, policy, bash(command, 'dontAsk')).behavior).toBe('deny');
    }
  });

  it('the guard is specific: deleting a build directory in the workspace is not critical', async () => {
    const d = await decideWith(w, {}, bash('rm -rf build', 'bypassPermissions'));
    expect(d.behavior).toBe('allow');
    expect((await decideWith(w, { allow: ['Bash(rm *)'] }, bash('rm -rf build'))).behavior).toBe('allow');
  });

  it('"guards: { criticalDelete: deny }" makes it a deny', async () => {
    const policy = await compile(w, { allow: ['Bash'] }, { guards: { criticalDelete: 'deny' } });
    const d = decideIn(w, policy, bash('rm -rf /', 'bypassPermissions'));
    expect(d.behavior).toBe('deny');
    expect(d.decidedBy).toBe('guard');
  });

  it('deleting the real directory of a symlinked workspace root is critical too', async () => {
    const linkRoot = path.join(w.base, 'ws-link');
    if (!fs.existsSync(linkRoot)) fs.symlinkSync(w.ws, linkRoot);
    const policy = await compile(w, {});
    for (const command of [`rm -rf ${w.ws}`, `rm -rf ${linkRoot}`]) {
      const d = decideIn(w, policy, bash(command, 'bypassPermissions', linkRoot));
      expect(d.behavior, `${command} (cwd ${linkRoot}): ${d.reason}`).not.toBe('allow');
    }
  });
});

// ------------------------------------------------------------------------------ layers

describe('layers: lists merge, deny from any layer wins (§3 layering)', () => {
  let layerFiles = 0;
  const layered = async (layers: { layer: 'managed' | 'cli' | 'project' | 'user'; perms: Permissions }[]) => {
    const files = layers.map(({ layer, perms }, i) => {
      const file = path.join(w.base, `layer-${layer}-${++layerFiles}-${i}.json`);
      fs.writeFileSync(file, JSON.stringify({ version: 1, permissions: perms }));
      return { file, layer };
    });
    const { loadPolicyFiles } = await import('../../src/policy/layers.js');
    // layering, not trust (test/cli/trust.test.ts): the workspace files here are trusted
    return loadPolicyFiles(files, { trust: () => 'trusted' });
  };

  it('a deny in the lowest layer beats an allow in the managed layer', async () => {
    const policy = await layered([
      { layer: 'managed', perms: { allow: ['Bash(npm install *)'] } },
      { layer: 'user', perms: { deny: ['Bash(npm install *)'] } },
    ]);
    const d = decideIn(w, policy, bash('npm install x'));
    expect(d.behavior).toBe('deny');
    expect(d.rule?.source).toMatch(/layer-user-/);
  });

  it('rules of every layer apply together', async () => {
    const policy = await layered([
      { layer: 'project', perms: { allow: ['Bash(npm install *)'] } },
      { layer: 'user', perms: { ask: ['Bash(git push *)'] } },
      { layer: 'cli', perms: { deny: ['Bash(curl *)'] } },
    ]);
    expect(decideIn(w, policy, bash('npm install x')).behavior).toBe('allow');
    expect(decideIn(w, policy, bash('git push origin', 'bypassPermissions')).behavior).toBe('ask');
    expect(decideIn(w, policy, bash('curl https://x.test', 'bypassPermissions')).behavior).toBe('deny');
  });

  it('discovery: project and user files both apply, and the user file is found under XDG_CONFIG_HOME', async () => {
    const project = path.join(w.base, 'discover');
    const xdg = path.join(w.base, 'xdg');
    fs.mkdirSync(path.join(project, '.toolgate'), { recursive: true });
    fs.mkdirSync(path.join(xdg, 'toolgate'), { recursive: true });
    fs.writeFileSync(
      path.join(project, '.toolgate', 'policy.yaml'),
      'version: 1\nrules:\n  - allow: "Bash(npm install *)"\n',
    );
    fs.writeFileSync(
      path.join(xdg, 'toolgate', 'policy.yaml'),
      'version: 1\nrules:\n  - deny: "Bash(npm install evil)"\n',
    );
    const policy = await loadPolicy({
      cwd: project,
      home: w.home,
      managedRoot: null,
      env: { XDG_CONFIG_HOME: xdg },
      trust: () => 'trusted',
    });
    expect(policy.files.map((f) => f.layer)).toEqual(['project', 'user', 'builtin']);
    expect(decideIn(w, policy, bash('npm install ok', undefined, project)).behavior).toBe('allow');
    expect(decideIn(w, policy, bash('npm install evil', undefined, project)).behavior).toBe('deny');
  });
});

describe('managed lock (§3 managed settings)', () => {
  let managed: ReturnType<typeof managedRoot>;
  let project: string;
  beforeAll(() => {
    project = path.join(w.base, 'locked-project');
    fs.mkdirSync(path.join(project, '.toolgate'), { recursive: true });
    fs.writeFileSync(
      path.join(project, '.toolgate', 'policy.yaml'),
      'version: 1\nmode: bypassPermissions\nrules:\n  - allow: "Bash(npm install *)"\n  - allow: "Edit(**)"\n',
    );
    managed = managedRoot(path.join(w.base, 'managed-root'), {
      'policy.yaml':
        'version: 1\nlock: { rulesOnly: true, disableBypass: true }\nrules:\n  - deny: "Bash(curl *)"\n  - allow: "Bash(make *)"\n',
    });
  });

  const load = () => loadPolicy({ cwd: project, home: w.home, ...managed, env: {} });

  it('rulesOnly: allow rules from other layers do not apply', async () => {
    const policy = await load();
    const d = decideIn(w, policy, bash('npm install x', 'default', project));
    expect(d.behavior, d.reason).not.toBe('allow');
    expect(decideIn(w, policy, bash('make all', 'default', project)).behavior).toBe('allow');
  });

  it('disableBypass: bypass requested is not bypass', async () => {
    const policy = await load();
    for (const mode of ['bypassPermissions', 'bypass'] as const) {
      const d = decideIn(w, policy, bash('npm install x', mode, project));
      expect(d.mode).not.toBe('bypassPermissions');
      expect(d.behavior, d.reason).not.toBe('allow');
      expect(decideIn(w, policy, edit('src/a.ts', mode, project)).behavior).not.toBe('allow');
    }
  });

  it('disableBypass: a bypass mode set by a lower layer is not bypass either', async () => {
    const policy = await load();
    const d = decideIn(w, policy, edit('src/a.ts', undefined, project));
    expect(d.mode).not.toBe('bypassPermissions');
    expect(d.behavior).not.toBe('allow');
  });

  it('managed denies hold', async () => {
    const policy = await load();
    expect(decideIn(w, policy, bash('curl https://x.test', 'bypassPermissions', project)).behavior).toBe(
      'deny',
    );
  });

  it('a lock outside the managed layer has no effect', async () => {
    const other = path.join(w.base, 'not-managed.yaml');
    fs.writeFileSync(
      other,
      'version: 1\nlock: { rulesOnly: true, disableBypass: true }\nrules:\n  - deny: "Bash(curl *)"\n',
    );
    const policy = await loadPolicy({
      files: [other, path.join(project, '.toolgate', 'policy.yaml')],
      cwd: project,
      home: w.home,
      managedRoot: null,
      env: {},
    });
    expect(decideIn(w, policy, bash('npm install x', 'default', project)).behavior).toBe('allow');
    expect(decideIn(w, policy, edit('src/a.ts', 'bypassPermissions', project)).mode).toBe(
      'bypassPermissions',
    );
  });
});

// ------------------------------------------------------------------------------ the Decision

describe('the Decision names the rule, its source and line, the mode, the facts and the digest (§2)', () => {
  let file: string;
  beforeAll(() => {
    file = path.join(w.base, 'named.yaml');
    fs.writeFileSync(
      file,
      [
        'version: 1',
        'rules:',
        '  - id: no-force-push',
        '    deny: ["Bash(git push --force *)"]',
        '    reason: Force pushes rewrite shared history',
        '  - allow:',
        '      - "Bash(npm install *)"',
        '      - "Edit(./src/**)"',
        'permissions:',
        '  ask:',
        '    - "Bash(git push *)"',
        '',
      ].join('\n'),
    );
  });

  const load = () => loadPolicy({ files: [file], cwd: w.ws, home: w.home, managedRoot: null, env: {} });

  it("a deny names the rule text, id, file and line; the reason carries the rule's reason", async () => {
    const d = decideIn(w, await load(), bash('git push --force origin main'));
    expect(d).toMatchObject({
      behavior: 'deny',
      decidedBy: 'rule',
      rule: { id: 'no-force-push', text: 'Bash(git push --force *)', source: file, line: 4 },
      mode: 'default',
    });
    expect(d.reason).toContain('Force pushes rewrite shared history');
  });

  it('list items carry their own line', async () => {
    const policy = await load();
    expect(decideIn(w, policy, edit('src/a.ts')).rule).toMatchObject({ text: 'Edit(./src/**)', line: 8 });
    expect(decideIn(w, policy, bash('npm install x')).rule).toMatchObject({ line: 7 });
    expect(decideIn(w, policy, bash('git push origin main')).rule).toMatchObject({
      text: 'Bash(git push *)',
      line: 11,
    });
  });

  it('the mode is the mode that decided; "bypass" reads as bypassPermissions', async () => {
    const policy = await load();
    for (const mode of MODES) expect(decideIn(w, policy, read('src/a.ts', mode)).mode).toBe(mode);
    expect(decideIn(w, policy, read('src/a.ts', 'bypass')).mode).toBe('bypassPermissions');
    expect(decideIn(w, policy, read('src/a.ts')).mode).toBe('default');
  });

  it("facts are the tool's view of this input", async () => {
    const policy = await load();
    const ls = decideIn(w, policy, bash('ls -la'));
    expect(ls.facts).toMatchObject({ readOnly: true, destructive: false });
    const rm = decideIn(w, policy, bash('rm -rf build'));
    expect(rm.facts.readOnly).toBe(false);
    expect(rm.facts.destructive).toBe(true);
    expect(rm.facts.reasons.length).toBeGreaterThan(0);
    expect(decideIn(w, policy, edit('src/a.ts')).facts.readOnly).toBe(false);
    expect(decideIn(w, policy, read('src/a.ts')).facts.readOnly).toBe(true);
  });

  it('every decision carries a human reason and a sha256 policy digest', async () => {
    const policy = await load();
    for (const call of [bash('ls'), bash('rm -rf /'), edit('src/a.ts'), read('/etc/hosts')]) {
      const d = decideIn(w, policy, call);
      expect(d.reason.length).toBeGreaterThan(0);
      expect(d.policyDigest).toMatch(/^[0-9a-f]{64}$/);
      expect(d.policyDigest).toBe(policy.digest);
    }
  });

  it('the digest depends on the content, not on the order of rules', async () => {
    const a = await compile(w, { allow: ['Bash(a *)', 'Bash(b *)'], deny: ['Read(.env)'] });
    const b = await compile(w, { deny: ['Read(.env)'], allow: ['Bash(b *)', 'Bash(a *)'] });
    const c = await compile(w, { allow: ['Bash(a *)', 'Bash(b *)'], deny: ['Read(.envx)'] });
    expect(decideIn(w, a, bash('ls')).policyDigest).toBe(decideIn(w, b, bash('ls')).policyDigest);
    expect(decideIn(w, a, bash('ls')).policyDigest).not.toBe(decideIn(w, c, bash('ls')).policyDigest);
  });

  it('decide() is deterministic: the same request gets the same decision', async () => {
    const policy = await load();
    for (const call of [bash('git push origin main'), bash('cat src/a.ts | wc -l'), edit('src/a.ts')]) {
      expect(decideIn(w, policy, call)).toEqual(decideIn(w, policy, call));
    }
  });
});

// ------------------------------------------------------------------------------ when: conditions

describe('when: conditions fail closed (issue 3, item 5)', () => {
  it('a deny whose condition throws still denies; an allow whose condition throws does not allow', async () => {
    const text = [
      'version: 1',
      'rules:',
      '  - deny: "Bash(npm publish *)"',
      '    when: "input.nothing.here === 1"',
      '  - allow: "Bash(npm install *)"',
      '    when: "input.nothing.here === 1"',
      '',
    ].join('\n');
    const policy = await policyFromText(text, { root: w.ws });
    expect(decideIn(w, policy, bash('npm publish x', 'bypassPermissions')).behavior).toBe('deny');
    expect(decideIn(w, policy, bash('npm install x')).behavior).not.toBe('allow');
  });
});

// ------------------------------------------------------------------------------ domains from Bash

describe('WebFetch(domain:...) deny and ask rules reach Bash commands (a toolgate extension)', () => {
  const perms = { deny: ['WebFetch(domain:evil.com)'], allow: ['WebFetch(domain:good.com)'] };

  it.each([
    'curl https://evil.com/x',
    'curl -s EVIL.COM.',
    'wget https://evil.com/',
    'git clone git@evil.com:r.git',
    'ssh -o HostName=evil.com good',
    'cat < /dev/tcp/evil.com/80',
    'timeout 5 curl https://evil.com/',
  ])('%j is denied in every mode', async (line) => {
    const policy = await compile(w, perms);
    for (const mode of ALL_MODES) {
      const d = decideIn(w, policy, bash(line, mode));
      expect(d.behavior, mode).toBe('deny');
      expect(d.rule?.text).toBe('WebFetch(domain:evil.com)');
      expect(d.reason).toMatch(/connects to evil\.com/);
    }
  });

  it('an ask rule asks, even in bypassPermissions mode', async () => {
    const d = await decideWith(
      w,
      { ask: ['WebFetch(domain:*.example.com)'] },
      bash('curl https://api.example.com/', 'bypassPermissions'),
    );
    expect(d.behavior).toBe('ask');
    expect(d.rule?.text).toBe('WebFetch(domain:*.example.com)');
  });

  it('a host only known at run time may be the denied one: a guard denies, naming the rule', async () => {
    const policy = await compile(w, perms);
    for (const line of ['curl "$URL"', 'echo https://evil.com | xargs curl', 'wget -i urls.txt']) {
      const d = decideIn(w, policy, bash(line, 'bypassPermissions'));
      expect(d.behavior, line).toBe('deny');
      expect(d.decidedBy).toBe('guard');
      expect(d.reason).toMatch(/Deny rule "WebFetch\(domain:evil\.com\)" may match/);
      const auto = await decideWithClassifier(
        { tool: 'Bash', input: { command: line }, cwd: w.ws, mode: 'auto' },
        policy,
        { fs: w.fs },
      );
      expect(auto.behavior, line).toBe('deny');
    }
  });

  it('other hosts, and commands whose host the line does not name, are decided as before', async () => {
    const policy = await compile(w, perms);
    expect(decideIn(w, policy, bash('curl https://good.com/', 'bypassPermissions')).behavior).toBe('allow');
    expect(decideIn(w, policy, bash('git fetch origin', 'bypassPermissions')).behavior).toBe('allow');
    // A WebFetch allow rule does not allow Bash: curl still asks in default mode.
    expect(decideIn(w, policy, bash('curl https://good.com/')).behavior).toBe('ask');
    // Without domain rules, a run-time host is an ordinary network command.
    expect((await decideWith(w, {}, bash('curl "$URL"', 'bypassPermissions'))).behavior).toBe('allow');
  });
});
