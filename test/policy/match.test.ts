import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/policy/decision.js';
import { loadPolicy } from '../../src/policy/policy.js';
import {
  bash,
  type Call,
  compile,
  decideIn,
  decideWith,
  edit,
  fetch,
  makeWorld,
  type Permissions,
  read,
  type World,
  write,
} from './helpers/world.js';

/**
 * Matching semantics, through decide() (research doc §1.2–§1.4; ARCHITECTURE §2–§3).
 *
 * To see whether a deny or ask rule matches, the call runs in bypassPermissions mode: a
 * matching deny denies, a non-matching one leaves bypass to allow. To see whether an allow rule
 * matches, the call is one that would ask without it (not read-only, or outside the workspace).
 */
let w: World;
beforeAll(() => {
  w = makeWorld();
  w.file('src/a.ts');
  w.file('src/x/b.ts');
  w.file('lib/src/a.ts');
  w.file('docs/readme.md');
  w.file('secret/key', 'k');
  w.file('data/cert.txt');
  w.file('.env', 'A=1');
  w.file('config/.env.local', 'A=1');
  w.dir('build');
});
afterAll(() => w.cleanup());

const denies = async (perms: Permissions, call: Call): Promise<Decision> => {
  const d = await decideWith(w, perms, { mode: 'bypassPermissions', ...call });
  return d;
};

async function expectDenied(perms: Permissions, call: Call, ruleText?: string): Promise<void> {
  const d = await denies(perms, call);
  expect(d.behavior, d.reason).toBe('deny');
  expect(d.decidedBy).toBe('rule');
  if (ruleText) expect(d.rule?.text).toBe(ruleText);
}

async function expectNotDenied(perms: Permissions, call: Call): Promise<void> {
  const d = await denies(perms, call);
  expect(d.behavior, d.reason).not.toBe('deny');
}

async function expectAllowedByRule(perms: Permissions, call: Call, ruleText?: string): Promise<void> {
  const d = await decideWith(w, perms, call);
  expect(d.behavior, d.reason).toBe('allow');
  expect(d.decidedBy).toBe('rule');
  if (ruleText) expect(d.rule?.text).toBe(ruleText);
}

async function expectNotAllowed(perms: Permissions, call: Call): Promise<void> {
  const d = await decideWith(w, perms, call);
  expect(d.behavior, d.reason).not.toBe('allow');
}

// ------------------------------------------------------------------------------ Bash patterns

describe('Bash patterns (§1.2)', () => {
  it('"Bash(ls *)" matches "ls -la" and "ls" but not "lsof" (space before * is a word boundary)', async () => {
    const perms = { deny: ['Bash(ls *)'] };
    await expectDenied(perms, bash('ls -la'), 'Bash(ls *)');
    await expectDenied(perms, bash('ls'), 'Bash(ls *)');
    await expectNotDenied(perms, bash('lsof'));
    await expectNotDenied(perms, bash('lsof -i'));
  });

  it('"Bash(ls*)" matches "lsof" and "ls" alike', async () => {
    const perms = { deny: ['Bash(ls*)'] };
    await expectDenied(perms, bash('lsof -i'), 'Bash(ls*)');
    await expectDenied(perms, bash('ls -la'), 'Bash(ls*)');
  });

  it('"*" in the middle matches any characters, spaces included', async () => {
    const perms = { deny: ['Bash(git * main)'] };
    await expectDenied(perms, bash('git push origin main'));
    await expectDenied(perms, bash('git push --set-upstream origin main'));
    await expectNotDenied(perms, bash('git push origin main2'));
  });

  it('"*" at the front: "Bash(* install)"', async () => {
    const perms = { deny: ['Bash(* install)'] };
    await expectDenied(perms, bash('yarn install'));
    await expectDenied(perms, bash('npm install'));
    await expectNotDenied(perms, bash('npm install left-pad'));
  });

  it('a pattern without "*" matches that command exactly', async () => {
    const perms = { deny: ['Bash(npm run build)'] };
    await expectDenied(perms, bash('npm run build'));
    await expectNotDenied(perms, bash('npm run build --prod'));
    await expectNotDenied(perms, bash('npm run buildx'));
  });

  it('legacy "Bash(npm run test:*)" equals a trailing " *"', async () => {
    const perms = { deny: ['Bash(npm run test:*)'] };
    await expectDenied(perms, bash('npm run test'));
    await expectDenied(perms, bash('npm run test -- --watch'));
    await expectNotDenied(perms, bash('npm run testx'));
  });

  it('"Bash(git:* push)": the colon is literal when ":*" is not at the end', async () => {
    const perms = { deny: ['Bash(git:* push)'] };
    await expectDenied(perms, bash('git:x push'));
    await expectNotDenied(perms, bash('git x push'));
  });

  it('patterns match the normalized argv, not the raw string (quotes, spacing, escapes)', async () => {
    const perms = { deny: ['Bash(rm -rf *)'] };
    await expectDenied(perms, bash("rm  '-rf'   build"));
    await expectDenied(perms, bash('"rm" -rf build'));
    await expectDenied(perms, bash('\\rm -rf build'));
    await expectDenied(perms, bash('/bin/rm -rf build'));
  });

  it('an allow pattern allows a matching non-read-only command', async () => {
    await expectAllowedByRule({ allow: ['Bash(npm install *)'] }, bash('npm install left-pad'));
    await expectNotAllowed({}, bash('npm install left-pad'));
  });

  it('"Bash" and "Bash(*)" deny every command', async () => {
    await expectDenied({ deny: ['Bash'] }, bash('ls'));
    await expectDenied({ deny: ['Bash(*)'] }, bash('pwd'));
  });

  it('"*" and "B*" as deny tool names cover Bash; "mcp__*" does not', async () => {
    await expectDenied({ deny: ['*'] }, bash('ls'));
    await expectDenied({ deny: ['B*'] }, bash('ls'));
    await expectNotDenied({ deny: ['mcp__*'] }, bash('ls'));
  });
});

// ------------------------------------------------------------------------------ compound commands

describe('compound commands: a rule must match each part independently (§1.2)', () => {
  const separators = [' && ', ' || ', '; ', ' | ', ' |& ', ' & ', '\n'];

  it.each(separators.map((s) => [JSON.stringify(s), s]))(
    '"Bash(echo *)" does not allow "echo x%srm -rf y"',
    async (_label, sep) => {
      await expectNotAllowed({ allow: ['Bash(echo *)'] }, bash(`echo x${sep}rm -rf y`));
      await expectNotAllowed({ allow: ['Bash(echo *)'] }, bash(`echo x${sep}touch y`));
    },
  );

  it.each(separators.map((s) => [JSON.stringify(s), s]))(
    '"Bash(rm *)" deny meets rm after %s',
    async (_label, sep) => {
      await expectDenied({ deny: ['Bash(rm *)'] }, bash(`ls${sep}rm -rf build`), 'Bash(rm *)');
    },
  );

  it('allow only when every part is allowed', async () => {
    const perms = { allow: ['Bash(npm install *)', 'Bash(touch *)'] };
    await expectAllowedByRule(perms, bash('npm install left-pad && touch done'));
    await expectNotAllowed(perms, bash('npm install left-pad && npm publish'));
  });

  it('substitutions inside an allowed command are parts of their own', async () => {
    await expectNotAllowed({ allow: ['Bash(echo *)'] }, bash('echo $(touch x)'));
    await expectNotAllowed({ allow: ['Bash(echo *)'] }, bash('echo `touch x`'));
    await expectNotAllowed({ allow: ['Bash(npm test *)'] }, bash('npm test $(curl https://evil.example)'));
  });
});

describe('deny rules meet the commands a line runs inside others (ARCHITECTURE §2)', () => {
  it.each([
    ['$(...)', 'echo $(rm -rf build)'],
    ['backticks', 'echo `rm -rf build`'],
    ['<(...)', 'diff <(rm -rf build) docs/readme.md'],
    ['bash -c', "bash -c 'rm -rf build'"],
    ['sh -c', 'sh -c "rm -rf build"'],
    ['xargs', 'echo build | xargs rm -rf'],
    ['find -exec', 'find . -name build -exec rm -rf {} +'],
    ['eval', "eval 'rm -rf build'"],
  ])('%s: "%s" meets Bash(rm *)', async (_label, command) => {
    await expectDenied({ deny: ['Bash(rm *)'] }, bash(command), 'Bash(rm *)');
  });
});

describe('wrappers are looked through (§1.2)', () => {
  it.each([
    'timeout 5 rm -rf x',
    'time rm -rf x',
    'nice -n 5 rm -rf x',
    'nohup rm -rf x',
    'stdbuf -oL rm -rf x',
    'command rm -rf x',
    'builtin rm -rf x',
    'env rm -rf x',
    'FOO=bar rm -rf x',
    'FOO=bar BAZ=1 timeout 5 rm -rf x',
  ])('"%s" meets a Bash(rm *) deny', async (command) => {
    await expectDenied({ deny: ['Bash(rm *)'] }, bash(command), 'Bash(rm *)');
  });

  it('"timeout 5 rm -rf x" meets a Bash(rm *) ask too', async () => {
    const d = await decideWith(w, { ask: ['Bash(rm *)'] }, bash('timeout 5 rm -rf x', 'bypassPermissions'));
    expect(d.behavior).toBe('ask');
    expect(d.rule?.text).toBe('Bash(rm *)');
  });

  it('allow rules look past known-safe variables (NODE_ENV=test npm test)', async () => {
    await expectAllowedByRule({ allow: ['Bash(npm install *)'] }, bash('NODE_ENV=test npm install x'));
    await expectAllowedByRule({ allow: ['Bash(npm install *)'] }, bash('timeout 60 npm install x'));
  });

  it('allow rules do not look past variables that change what runs', async () => {
    await expectNotAllowed({ allow: ['Bash(npm install *)'] }, bash('LD_PRELOAD=/tmp/x.so npm install x'));
    await expectNotAllowed({ allow: ['Bash(npm install *)'] }, bash('PATH=/tmp/evil npm install x'));
  });

  it.each([
    ['watch', 'watch touch x'],
    ['setsid', 'setsid touch x'],
    ['ionice', 'ionice -c3 touch x'],
    ['flock', 'flock /tmp/lock touch x'],
  ])('exec wrapper %s is never auto-approved by its prefix rule: "%s"', async (wrapper, command) => {
    await expectNotAllowed({ allow: [`Bash(${wrapper} *)`] }, bash(command));
  });

  it('exec wrappers are never auto-approved by their prefix rule, even around a harmless command ("watch ls", "setsid sleep 100")', async () => {
    for (const [wrapper, command] of [
      ['watch', 'watch ls'],
      ['setsid', 'setsid sleep 100'],
    ] as const) {
      const d = await decideWith(w, { allow: [`Bash(${wrapper} *)`] }, bash(command));
      expect(d.rule?.text, `${command}: ${d.reason}`).not.toBe(`Bash(${wrapper} *)`);
    }
  });

  it('find with -exec or -delete is never auto-approved by "Bash(find *)"', async () => {
    for (const command of [
      'find . -delete',
      'find . -name "*.tmp" -delete',
      'find . -exec cat {} +',
      'find . -execdir cat {} +',
    ]) {
      const d = await decideWith(w, { allow: ['Bash(find *)'] }, bash(command));
      expect(d.behavior, `${command}: ${d.reason}`).not.toBe('allow');
    }
  });
});

// ------------------------------------------------------------------------------ files in Bash

describe('redirections are writes, checked as Edit (§1.2)', () => {
  it('"echo x > .env" meets an Edit(.env) deny', async () => {
    await expectDenied({ deny: ['Edit(.env)'] }, bash('echo x > .env'), 'Edit(.env)');
  });

  it('"echo x > .env" meets a Read(.env) deny (a path one may not read may not be written)', async () => {
    await expectDenied({ deny: ['Read(.env)'] }, bash('echo x > .env'), 'Read(.env)');
  });

  it('">>" and "2>" are writes too', async () => {
    await expectDenied({ deny: ['Edit(.env)'] }, bash('echo x >> .env'));
    await expectDenied({ deny: ['Edit(.env)'] }, bash('ls 2> .env'));
  });

  it('"> /dev/null" is exempt', async () => {
    await expectNotDenied({ deny: ['Edit(//dev/**)'] }, bash('ls > /dev/null'));
    const d = await decideWith(w, {}, bash('ls > /dev/null 2>&1'));
    expect(d.behavior, d.reason).toBe('allow');
  });

  it('a redirect needs an Edit allow: "Bash(echo *)" alone does not allow "echo x > out.txt"', async () => {
    await expectNotAllowed({ allow: ['Bash(echo *)'] }, bash('echo x > out.txt'));
    await expectAllowedByRule({ allow: ['Bash(echo *)', 'Edit(./out.txt)'] }, bash('echo x > out.txt'));
  });
});

describe('reading commands are checked as Read (ARCHITECTURE §2)', () => {
  it.each([
    'cat .env',
    'cat .env | head',
    'head -n 3 .env',
    'tail .env',
    'less .env',
    'grep KEY .env',
    'sed -n 1p .env',
    'cp .env /tmp/copy',
    'cat config/.env.local',
    'cat ./config/../.env',
    'cat .e""nv',
  ])('"%s" meets Read(**/.env*)', async (command) => {
    await expectDenied({ deny: ['Read(**/.env*)'] }, bash(command), 'Read(**/.env*)');
  });

  it('a glob that names .env meets the deny', async () => {
    await expectDenied({ deny: ['Read(**/.env*)'] }, bash('cat .en?'));
  });

  it('input redirection reads the file: "wc -l < .env"', async () => {
    await expectDenied({ deny: ['Read(**/.env*)'] }, bash('wc -l < .env'));
  });

  it('the Read tool meets the same rule', async () => {
    await expectDenied({ deny: ['Read(**/.env*)'] }, read('.env'));
    await expectDenied({ deny: ['Read(**/.env*)'] }, read('config/.env.local'));
    await expectNotDenied({ deny: ['Read(**/.env*)'] }, read('docs/readme.md'));
  });

  it('a Read deny also blocks Edit and Write of that path (§1.3)', async () => {
    await expectDenied({ deny: ['Read(.env)'] }, edit('.env'));
    await expectDenied({ deny: ['Read(.env)'] }, write('config/.env'));
  });

  it('an Edit allow also grants reads of the same path (§1.3)', async () => {
    const outside = path.join(w.base, 'outside');
    fs.mkdirSync(outside, { recursive: true });
    fs.writeFileSync(path.join(outside, 'notes.txt'), 'x');
    await expectNotAllowed({}, read(path.join(outside, 'notes.txt')));
    await expectAllowedByRule({ allow: [`Edit(/${outside}/**)`] }, read(path.join(outside, 'notes.txt')));
  });
});

// ------------------------------------------------------------------------------ path anchors and depth

describe('path anchors (§1.3)', () => {
  it('"//path" is absolute from the filesystem root', async () => {
    await expectDenied({ deny: ['Edit(//etc/**)'] }, edit('/etc/hosts'));
    await expectNotDenied({ deny: ['Edit(//etc/**)'] }, edit('etc/hosts'));
  });

  it('"~/path" is relative to home', async () => {
    await expectDenied({ deny: ['Read(~/.ssh/**)'] }, read('~/.ssh/id_rsa'));
    await expectDenied({ deny: ['Read(~/.ssh/**)'] }, read(path.join(w.home, '.ssh/id_rsa')));
    await expectDenied({ deny: ['Read(~/.ssh/**)'] }, bash('cat ~/.ssh/id_rsa'));
    await expectNotDenied({ deny: ['Read(~/.ssh/**)'] }, read('.ssh/id_rsa'));
  });

  it('"./path" is relative to the workspace root, at that depth only', async () => {
    await expectDenied({ deny: ['Read(./src/**)'] }, read('src/a.ts'));
    await expectNotDenied({ deny: ['Read(./src/**)'] }, read('lib/src/a.ts'));
  });

  it('"/path" in an inline policy is relative to the root it was given', async () => {
    const policy = await compile(w, { deny: ['Read(/secret/**)'] }, {}, { root: w.ws });
    expect(decideIn(w, policy, read('secret/key', 'bypassPermissions')).behavior).toBe('deny');
    const elsewhere = await compile(w, { deny: ['Read(/secret/**)'] }, {}, { root: w.base });
    expect(decideIn(w, elsewhere, read('secret/key', 'bypassPermissions')).behavior).toBe('allow');
  });

  it('"/path" in a --policy file is relative to that file\'s directory, not the filesystem root', async () => {
    const dir = path.join(w.base, 'team-policies');
    fs.mkdirSync(path.join(dir, 'data'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'data', 'x'), 'x');
    const file = path.join(dir, 'policy.yaml');
    fs.writeFileSync(file, 'version: 1\nrules:\n  - deny: "Read(/data/**)"\n');
    const policy = await loadPolicy({ files: [file], cwd: w.ws, home: w.home, managedRoot: null, env: {} });
    expect(decideIn(w, policy, read(path.join(dir, 'data/x'), 'bypassPermissions')).behavior).toBe('deny');
    expect(decideIn(w, policy, read('/data/x', 'bypassPermissions')).behavior).toBe('allow');
  });

  it('"/path" in the project\'s .toolgate/policy.yaml is relative to the project', async () => {
    const project = path.join(w.base, 'project-anchor');
    fs.mkdirSync(path.join(project, '.toolgate'), { recursive: true });
    fs.mkdirSync(path.join(project, 'secrets'), { recursive: true });
    fs.writeFileSync(path.join(project, 'secrets', 'k'), 'k');
    fs.writeFileSync(
      path.join(project, '.toolgate', 'policy.yaml'),
      'version: 1\nrules:\n  - deny: "Read(/secrets/**)"\n',
    );
    const policy = await loadPolicy({ cwd: project, home: w.home, managedRoot: null, env: {} });
    const d = decideIn(w, policy, read('secrets/k', 'bypassPermissions', project));
    expect(d.behavior, d.reason).toBe('deny');
    expect(d.rule?.source).toBe(path.join(project, '.toolgate', 'policy.yaml'));
    const notInside = decideIn(w, policy, read('.toolgate/secrets/k', 'bypassPermissions', project));
    expect(notInside.behavior).toBe('allow');
  });

  it('"/path" in a project .claude/settings.json is relative to the project root', async () => {
    const project = path.join(w.base, 'project-claude');
    fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
    fs.mkdirSync(path.join(project, 'secrets'), { recursive: true });
    const file = path.join(project, '.claude', 'settings.json');
    fs.writeFileSync(file, JSON.stringify({ permissions: { deny: ['Read(/secrets/**)'] } }));
    const policy = await loadPolicy({
      files: [file],
      cwd: project,
      home: w.home,
      managedRoot: null,
      env: {},
    });
    expect(decideIn(w, policy, read('secrets/k', 'bypassPermissions', project)).behavior).toBe('deny');
  });
});

describe('depth rules (§1.3)', () => {
  it('a bare filename matches at any depth: Read(.env) ≡ Read(**/.env)', async () => {
    await expectDenied({ deny: ['Read(.env)'] }, read('.env'));
    await expectDenied({ deny: ['Read(.env)'] }, read('a/b/c/.env'));
    await expectNotDenied({ deny: ['Read(.env)'] }, read('a/.envx'));
    await expectAllowedByRule({ allow: ['Edit(notes.md)'] }, edit('deep/down/notes.md'));
  });

  it('a bare-filename deny is not escaped by naming the file outside the workspace (fail-closed reading)', async () => {
    await expectDenied({ deny: ['Read(.env)'] }, read(path.join(w.base, 'elsewhere', '.env')));
    await expectDenied(
      { deny: ['Read(*.pem)'] },
      bash(`cat ${path.join(w.base, 'elsewhere', 'server.pem')}`),
    );
  });

  it('"src/**" as an allow rule matches only <workspace>/src', async () => {
    await expectAllowedByRule({ allow: ['Edit(src/**)'] }, edit('src/a.ts'));
    await expectNotAllowed({ allow: ['Edit(src/**)'] }, edit('lib/src/a.ts'));
  });

  it('"src/**" as a deny or ask rule matches src at any depth', async () => {
    await expectDenied({ deny: ['Edit(src/**)'] }, edit('src/a.ts'));
    await expectDenied({ deny: ['Edit(src/**)'] }, edit('lib/src/a.ts'));
    const d = await decideWith(w, { ask: ['Edit(src/**)'] }, edit('lib/src/a.ts', 'bypassPermissions'));
    expect(d.behavior).toBe('ask');
  });

  it('"*" stays inside one segment; "**" crosses segments', async () => {
    await expectAllowedByRule({ allow: ['Edit(./src/*.ts)'] }, edit('src/a.ts'));
    await expectNotAllowed({ allow: ['Edit(./src/*.ts)'] }, edit('src/x/b.ts'));
    await expectAllowedByRule({ allow: ['Edit(./src/**/*.ts)'] }, edit('src/x/b.ts'));
  });

  it('a deny on a directory covers what is inside it', async () => {
    await expectDenied({ deny: ['Read(./secret)'] }, read('secret/key'));
  });
});

// ------------------------------------------------------------------------------ symlinks

describe('symlinks (§1.3): an allow needs link and target to match; a deny matches either', () => {
  let s: World;
  beforeAll(() => {
    s = makeWorld('toolgate-links-');
    s.file('src/a.ts');
    s.file('docs/real.md');
    s.file('secret/key', 'k');
    s.file('data/cert.txt');
    s.file(path.join(s.base, 'outside/file.txt'));
    s.link('docs/to-src.ts', 'src/a.ts');
    s.link('alias.ts', 'src/a.ts');
    s.link('docs/to-secret', 'secret/key');
    s.link('cert.pem', 'data/cert.txt');
    s.link('vault', 'secret');
    s.link('out', path.join(s.base, 'outside'));
  });
  afterAll(() => s.cleanup());

  const run = async (perms: Permissions, call: Call) => decideIn(s, await compile(s, perms), call);

  it('allow: a link under an allowed directory whose target is elsewhere is not allowed', async () => {
    const perms = { allow: ['Edit(./docs/**)'] };
    expect((await run(perms, edit('docs/real.md'))).behavior).toBe('allow');
    const d = await run(perms, edit('docs/to-src.ts'));
    expect(d.behavior, d.reason).not.toBe('allow');
  });

  it('allow: a link outside an allowed directory whose target is inside it is not allowed', async () => {
    const d = await run({ allow: ['Edit(./src/**)'] }, edit('alias.ts'));
    expect(d.behavior, d.reason).not.toBe('allow');
  });

  it('deny: the target matching is enough', async () => {
    const perms = { deny: ['Read(./secret/**)'] };
    expect((await run(perms, read('docs/to-secret', 'bypassPermissions'))).behavior).toBe('deny');
    expect((await run(perms, bash('cat docs/to-secret', 'bypassPermissions'))).behavior).toBe('deny');
    expect((await run(perms, read('vault/key', 'bypassPermissions'))).behavior).toBe('deny');
  });

  it('deny: the link matching is enough', async () => {
    const perms = { deny: ['Read(*.pem)'] };
    expect((await run(perms, read('cert.pem', 'bypassPermissions'))).behavior).toBe('deny');
    expect((await run(perms, bash('head cert.pem', 'bypassPermissions'))).behavior).toBe('deny');
  });

  it('a link inside the workspace that leads outside it is not "inside the workspace"', async () => {
    const d = await run({}, read('out/file.txt'));
    expect(d.behavior, d.reason).toBe('ask');
    const b = await run({}, bash('cat out/file.txt'));
    expect(b.behavior, b.reason).toBe('ask');
  });
});

describe('the workspace root itself is a symlink', () => {
  let s: World;
  let linkRoot: string;
  beforeAll(() => {
    s = makeWorld('toolgate-rootlink-');
    s.file('src/a.ts');
    s.file('notes.txt');
    linkRoot = path.join(s.base, 'ws-link');
    fs.symlinkSync(s.ws, linkRoot);
  });
  afterAll(() => s.cleanup());

  const run = async (perms: Permissions, call: Call) => decideIn(s, await compile(s, perms), call);

  it('read-only work runs through the link and through the real path', async () => {
    expect((await run({}, read('notes.txt', undefined, linkRoot))).behavior).toBe('allow');
    expect((await run({}, read(path.join(s.ws, 'notes.txt'), undefined, linkRoot))).behavior).toBe('allow');
    expect((await run({}, bash('cat notes.txt src/a.ts', undefined, linkRoot))).behavior).toBe('allow');
  });

  it('a workspace-anchored deny meets the file through the link path (cwd is the real root)', async () => {
    const d = await run(
      { deny: ['Edit(./src/**)'] },
      edit(path.join(linkRoot, 'src/a.ts'), 'bypassPermissions'),
    );
    expect(d.behavior, d.reason).toBe('deny');
  });

  it('a workspace-anchored deny meets the file through the real path (cwd is the link)', async () => {
    const d = await run(
      { deny: ['Edit(./src/**)'] },
      edit(path.join(s.ws, 'src/a.ts'), 'bypassPermissions', linkRoot),
    );
    expect(d.behavior, d.reason).toBe('deny');
  });

  it('acceptEdits allows edits inside the linked workspace', async () => {
    expect((await run({}, edit('src/a.ts', 'acceptEdits', linkRoot))).behavior).toBe('allow');
  });
});

// ------------------------------------------------------------------------------ WebFetch domains

describe('WebFetch(domain:...) (§1.4)', () => {
  it('"*.example.com" matches subdomains at any depth but not the apex', async () => {
    const perms = { deny: ['WebFetch(domain:*.example.com)'] };
    await expectDenied(perms, fetch('https://a.example.com/x'));
    await expectDenied(perms, fetch('https://a.b.c.example.com/x'));
    await expectNotDenied(perms, fetch('https://example.com/x'));
    await expectNotDenied(perms, fetch('https://badexample.com/x'));
  });

  it('"example.*": a "*" elsewhere cannot cross a dot', async () => {
    await expectAllowedByRule({ allow: ['WebFetch(domain:example.*)'] }, fetch('https://example.org/'));
    await expectNotAllowed({ allow: ['WebFetch(domain:example.*)'] }, fetch('https://example.evil.com/'));
  });

  it('matches the host case-insensitively and ignores a trailing dot', async () => {
    await expectDenied({ deny: ['WebFetch(domain:Example.COM)'] }, fetch('https://EXAMPLE.com./x'));
    await expectAllowedByRule({ allow: ['WebFetch(domain:example.com.)'] }, fetch('https://Example.Com/x'));
  });

  it('"domain:*" is the same as a bare WebFetch', async () => {
    await expectDenied({ deny: ['WebFetch(domain:*)'] }, fetch('https://anything.test/'));
    await expectDenied({ deny: ['WebFetch'] }, fetch('https://anything.test/'));
  });

  it('matches the host, not text elsewhere in the URL', async () => {
    const perms = { allow: ['WebFetch(domain:example.com)'] };
    await expectNotAllowed(perms, fetch('https://example.com@evil.test/'));
    await expectNotAllowed(perms, fetch('https://evil.test/?u=example.com'));
    await expectNotAllowed(perms, fetch('https://example.com.evil.test/'));
    await expectAllowedByRule(perms, fetch('https://example.com:8443/path'));
  });
});

// ------------------------------------------------------------------------------ MCP, Agent, params

describe('MCP rules (§1.4)', () => {
  const mcp = (tool: string, mode?: string): Call => ({ tool, input: {}, ...(mode ? { mode } : {}) });

  it('"mcp__github" matches every tool of that server and no other server', async () => {
    await expectDenied({ deny: ['mcp__github'] }, mcp('mcp__github__create_issue'));
    await expectNotDenied({ deny: ['mcp__github'] }, mcp('mcp__githubx__create_issue'));
    await expectAllowedByRule({ allow: ['mcp__github'] }, mcp('mcp__github__create_issue'));
  });

  it('"mcp__github__*" matches every tool of that server', async () => {
    await expectAllowedByRule({ allow: ['mcp__github__*'] }, mcp('mcp__github__create_issue'));
    await expectNotAllowed({ allow: ['mcp__github__*'] }, mcp('mcp__other__create_issue'));
  });

  it('"mcp__github__create_issue" matches that one tool', async () => {
    await expectDenied({ deny: ['mcp__github__create_issue'] }, mcp('mcp__github__create_issue'));
    await expectNotDenied({ deny: ['mcp__github__create_issue'] }, mcp('mcp__github__create_issue2'));
    await expectNotDenied({ deny: ['mcp__github__create_issue'] }, mcp('mcp__github__get_issue'));
  });

  it('"mcp__github__get_*" matches the tools it names', async () => {
    await expectAllowedByRule({ allow: ['mcp__github__get_*'] }, mcp('mcp__github__get_issue'));
    await expectNotAllowed({ allow: ['mcp__github__get_*'] }, mcp('mcp__github__create_issue'));
  });

  it('"mcp__*" (deny) matches every MCP tool', async () => {
    await expectDenied({ deny: ['mcp__*'] }, mcp('mcp__anything__at_all'));
  });

  it('an MCP tool no rule allows asks in default mode', async () => {
    expect((await decideWith(w, {}, mcp('mcp__github__create_issue'))).behavior).toBe('ask');
  });
});

describe('Agent(name) and its Task(name) alias (§1.4)', () => {
  const agent = (tool: string, type: string): Call => ({
    tool,
    input: { subagent_type: type, prompt: 'look around', description: 'x' },
  });

  it.each([
    ['Agent(Explore)', 'Agent'],
    ['Agent(Explore)', 'Task'],
    ['Task(Explore)', 'Agent'],
    ['Task(Explore)', 'Task'],
  ])('%s denies a %s call of Explore', async (rule, tool) => {
    await expectDenied({ deny: [rule] }, agent(tool, 'Explore'));
  });

  it('Agent(Explore) does not deny another subagent type', async () => {
    await expectNotDenied({ deny: ['Agent(Explore)'] }, agent('Agent', 'Plan'));
    await expectNotDenied({ deny: ['Task(Explore)'] }, agent('Task', 'Plan'));
  });
});

describe('MCP resource tools under either of their names', () => {
  it.each([
    ['ReadMcpResource', 'ReadMcpResourceTool'],
    ['ReadMcpResourceTool', 'ReadMcpResource'],
    ['ListMcpResources', 'ListMcpResourcesTool'],
    ['ListMcpResourcesTool', 'ListMcpResources'],
  ])('a deny on %s holds for a %s call', async (rule, tool) => {
    await expectDenied({ deny: [rule] }, { tool, input: { server: 'github', uri: 'repo://x' } });
  });
});

describe('parameter rules Tool(param:value), deny and ask (§1.1)', () => {
  it('"Bash(run_in_background:true)" denies a background call and only that', async () => {
    const perms = { deny: ['Bash(run_in_background:true)'] };
    await expectDenied(perms, { tool: 'Bash', input: { command: 'ls', run_in_background: true } });
    await expectNotDenied(perms, { tool: 'Bash', input: { command: 'ls', run_in_background: false } });
    await expectNotDenied(perms, { tool: 'Bash', input: { command: 'ls' } });
  });

  it('"Bash(dangerouslyDisableSandbox:true)" as ask asks even in bypass mode', async () => {
    const d = await decideWith(
      w,
      { ask: ['Bash(dangerouslyDisableSandbox:true)'] },
      { tool: 'Bash', input: { command: 'ls', dangerouslyDisableSandbox: true }, mode: 'bypassPermissions' },
    );
    expect(d.behavior).toBe('ask');
    expect(d.rule?.text).toBe('Bash(dangerouslyDisableSandbox:true)');
  });

  it('"Agent(model:opus*)" uses "*" as a wildcard', async () => {
    const perms = { deny: ['Agent(model:opus*)'] };
    await expectDenied(perms, { tool: 'Agent', input: { subagent_type: 'x', prompt: 'p', model: 'opus-4' } });
    await expectNotDenied(perms, {
      tool: 'Agent',
      input: { subagent_type: 'x', prompt: 'p', model: 'sonnet' },
    });
  });
});
