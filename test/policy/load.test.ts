import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompiledPolicy } from '../../src/policy/compile.js';
import { PolicyError, type PolicyProblem } from '../../src/policy/load.js';
import { loadPolicy, policyFromText } from '../../src/policy/policy.js';
import { bash, decideIn, edit, makeWorld, managedRoot, read, type World } from './helpers/world.js';

/**
 * Policy files (ARCHITECTURE §4; issue 3 "Bad input"): YAML or JSON, Claude Code settings
 * unchanged, every error with file, line and column, and an invalid file refused whole.
 */
let w: World;
beforeAll(() => {
  w = makeWorld();
  w.file('src/a.ts');
  w.file('secrets/k');
});
afterAll(() => w.cleanup());

let counter = 0;
function policyFile(name: string, text: string): string {
  const file = path.join(w.base, 'policies', `${++counter}-${name}`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

function load(...files: string[]): Promise<CompiledPolicy> {
  return loadPolicy({ files, cwd: w.ws, home: w.home, managedRoot: null, env: {} });
}

async function problemsOf(run: () => Promise<unknown>): Promise<readonly PolicyProblem[]> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyError);
    const problems = (err as PolicyError).problems;
    expect(problems.length).toBeGreaterThan(0);
    return problems;
  }
  throw new Error('expected the policy to be refused with a PolicyError');
}

/** 1-based line and column of the n-th occurrence of `needle` in `text`. */
function positionOf(text: string, needle: string, nth = 0): { line: number; column: number } {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`"${needle}" not in the text`);
  }
  const before = text.slice(0, at).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** The problem points at `needle`: same line, and a column inside it (or just past its end). */
function expectAt(problem: PolicyProblem, text: string, needle: string, nth = 0): void {
  const p = positionOf(text, needle, nth);
  expect(problem.line, `${problem.message}: line`).toBe(p.line);
  expect(problem.column, `${problem.message}: column`).toBeGreaterThanOrEqual(p.column);
  expect(problem.column, `${problem.message}: column`).toBeLessThanOrEqual(p.column + needle.length);
}

// ------------------------------------------------------------------------------ good files

describe('YAML and JSON policy files load and apply', () => {
  it('YAML', async () => {
    const file = policyFile(
      'p.yaml',
      'version: 1\nmode: default\nrules:\n  - deny: "Read(./secrets/**)"\n  - allow: ["Bash(npm install *)"]\n',
    );
    const policy = await load(file);
    expect(decideIn(w, policy, read('secrets/k', 'bypassPermissions')).behavior).toBe('deny');
    expect(decideIn(w, policy, bash('npm install x')).behavior).toBe('allow');
  });

  it('JSON', async () => {
    const file = policyFile(
      'p.json',
      JSON.stringify({
        version: 1,
        rules: [{ deny: 'Read(./secrets/**)' }, { allow: ['Bash(npm install *)'] }],
      }),
    );
    const policy = await load(file);
    expect(decideIn(w, policy, read('secrets/k', 'bypassPermissions')).behavior).toBe('deny');
    expect(decideIn(w, policy, bash('npm install x')).behavior).toBe('allow');
  });

  it('an existing Claude Code .claude/settings.json (hooks, env and other keys) loads unchanged and its permissions apply', async () => {
    const project = path.join(w.base, 'claude-project');
    fs.mkdirSync(path.join(project, '.claude'), { recursive: true });
    fs.mkdirSync(path.join(project, 'src'), { recursive: true });
    const extra = path.join(w.base, 'extra-dir');
    fs.mkdirSync(extra, { recursive: true });
    fs.writeFileSync(path.join(extra, 'notes.txt'), 'x');
    const settings = {
      $schema: 'https://json.schemastore.org/claude-code-settings.json',
      model: 'opus',
      env: { NODE_ENV: 'development' },
      includeCoAuthoredBy: false,
      cleanupPeriodDays: 30,
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: 'toolgate hook', timeout: 30 }] },
        ],
      },
      statusLine: { type: 'command', command: '~/.claude/statusline.sh' },
      enabledPlugins: { 'formatter@acme': true },
      sandbox: { enabled: true, autoAllowBashIfSandboxed: false },
      permissions: {
        allow: ['Bash(npm run test *)', 'Edit(./src/**)'],
        ask: ['Bash(git push *)'],
        deny: ['Read(./.env)', 'WebFetch(domain:evil.example)'],
        defaultMode: 'acceptEdits',
        additionalDirectories: [extra],
      },
    };
    const file = path.join(project, '.claude', 'settings.json');
    fs.writeFileSync(file, JSON.stringify(settings, null, 2));
    const policy = await loadPolicy({
      files: [file],
      cwd: project,
      home: w.home,
      managedRoot: null,
      env: {},
    });
    const at = (call: ReturnType<typeof bash>) => decideIn(w, policy, { ...call, cwd: project });
    expect(at(bash('npm run test -- --watch'))).toMatchObject({ behavior: 'allow', rule: { source: file } });
    expect(at(bash('git push origin main', 'bypassPermissions')).behavior).toBe('ask');
    expect(at(read('.env', 'bypassPermissions')).behavior).toBe('deny');
    expect(
      at({ tool: 'WebFetch', input: { url: 'https://evil.example/' }, mode: 'bypassPermissions' }).behavior,
    ).toBe('deny');
    // defaultMode applies when the request names no mode.
    expect(at(edit('src/x.ts')).mode).toBe('acceptEdits');
    // additionalDirectories are readable without prompts.
    expect(at(read(path.join(extra, 'notes.txt'), 'default')).behavior).toBe('allow');
  });

  it("a Claude Code settings file's disableBypassPermissionsMode turns bypass off", async () => {
    const file = policyFile(
      'settings.json',
      JSON.stringify({ permissions: { disableBypassPermissionsMode: 'disable' }, model: 'sonnet' }),
    );
    const policy = await load(file);
    const d = decideIn(w, policy, edit('src/a.ts', 'bypassPermissions'));
    expect(d.mode).not.toBe('bypassPermissions');
    expect(d.behavior).not.toBe('allow');
  });

  it('a file with no "version" and no "permissions" is neither form and is refused', async () => {
    const problems = await problemsOf(() => load(policyFile('nothing.json', '{"model": "opus"}')));
    expect(problems[0]!.line).toBe(1);
  });
});

// ------------------------------------------------------------------------------ errors with positions

describe('every error names file, line and column', () => {
  it('malformed YAML: a tab used as indentation', async () => {
    const text = 'version: 1\nrules:\n\t- deny: "Bash(rm *)"\n';
    const file = policyFile('tab.yaml', text);
    const [p] = await problemsOf(() => load(file));
    expect(p!.file).toBe(file);
    expect(p!.line).toBe(3);
    expect(p!.column).toBe(1);
  });

  it('malformed JSON: a missing comma', async () => {
    const text = '{\n  "permissions": {\n    "allow": ["Bash(ls)"] "deny": []\n  }\n}\n';
    const file = policyFile('comma.json', text);
    const problems = await problemsOf(() => load(file));
    expect(problems[0]!.file).toBe(file);
    expect(problems[0]!.line).toBe(3);
    expect(problems[0]!.column).toBeGreaterThanOrEqual(positionOf(text, ']').column);
    expect(problems[0]!.column).toBeLessThanOrEqual(positionOf(text, '"deny"').column + 1);
  });

  it('malformed YAML: an unterminated quoted rule is reported on the line where it starts', async () => {
    const text = 'version: 1\nrules:\n  - deny: "Bash(rm *)\n';
    const [p] = await problemsOf(() => load(policyFile('quote.yaml', text)));
    expect(p!.line, p!.message).toBe(3);
  });

  it('duplicate keys', async () => {
    const text = 'version: 1\nmode: default\nmode: plan\n';
    const [p] = await problemsOf(() => load(policyFile('dup.yaml', text)));
    expect(p).toMatchObject({ line: 3, column: 1 });
  });

  it('duplicate keys in JSON', async () => {
    const text = '{\n  "permissions": {\n    "allow": [],\n    "allow": ["Bash"]\n  }\n}\n';
    const [p] = await problemsOf(() => load(policyFile('dup.json', text)));
    expectAt(p!, text, '"allow"', 1);
  });

  it('an unknown top-level key is reported where the key is', async () => {
    const text = 'version: 1\nmodes: default\n';
    const [p] = await problemsOf(() => load(policyFile('unknown.yaml', text)));
    expect(p!.message).toContain('modes');
    expectAt(p!, text, 'modes');
  });

  it('an unknown key inside a rule entry is reported where the key is', async () => {
    const text = 'version: 1\nrules:\n  - allow: "Bash(ls)"\n    reasn: typo\n';
    const [p] = await problemsOf(() => load(policyFile('unknown-nested.yaml', text)));
    expect(p!.message).toContain('reasn');
    expectAt(p!, text, 'reasn');
  });

  it('an unknown key in a permissions block (JSON) is reported where the key is', async () => {
    const text = '{\n  "permissions": {\n    "allow": ["Bash(ls)"],\n    "alow": ["Bash"]\n  }\n}\n';
    const [p] = await problemsOf(() => load(policyFile('unknown-perm.json', text)));
    expect(p!.message).toContain('alow');
    expectAt(p!, text, '"alow"');
  });

  it('a bad rule string "Bash(" (block list)', async () => {
    const text = 'version: 1\nrules:\n  - deny:\n      - "Bash(ls)"\n      - "Bash("\n';
    const file = policyFile('bash.yaml', text);
    const [p] = await problemsOf(() => load(file));
    expect(p).toMatchObject({ file, text: 'Bash(' });
    expectAt(p!, text, 'Bash(', 1);
  });

  it('a bad rule string "Read(**" (flow list, second item)', async () => {
    const text = 'version: 1\nrules:\n  - deny: ["Read(.env)", "Read(**"]\n';
    const [p] = await problemsOf(() => load(policyFile('read.yaml', text)));
    expect(p!.text).toBe('Read(**');
    expectAt(p!, text, 'Read(**');
  });

  it('a bad rule string in a Claude Code permissions list (JSON)', async () => {
    const text = '{\n  "permissions": {\n    "deny": [\n      "Read(.env)",\n      "Bash("\n    ]\n  }\n}\n';
    const [p] = await problemsOf(() => load(policyFile('bad-rule.json', text)));
    expect(p!.text).toBe('Bash(');
    expectAt(p!, text, 'Bash(');
  });

  it('an allow rule with a tool-name glob, and an allow parameter rule', async () => {
    const text = 'version: 1\npermissions:\n  allow:\n    - "mcp__*"\n    - "Bash(run_in_background:true)"\n';
    const problems = await problemsOf(() => load(policyFile('allow-glob.yaml', text)));
    expect(problems).toHaveLength(2);
    expectAt(problems[0]!, text, 'mcp__*');
    expectAt(problems[1]!, text, 'Bash(run_in_background:true)');
  });

  it('every bad rule is reported, not only the first', async () => {
    const text = 'version: 1\nrules:\n  - deny: "Bash("\n  - allow: "Read(**"\n  - ask: ")"\n';
    const problems = await problemsOf(() => load(policyFile('many.yaml', text)));
    expect(problems.map((p) => p.line)).toEqual([3, 4, 5]);
  });

  it.each([
    ['a string where a number belongs', 'version: 1\nsandbox:\n  timeoutMs: "soon"\n', 'soon'],
    ['a number where a rule belongs', 'version: 1\nrules:\n  - allow: 5\n', '5'],
    ['a mapping where a list belongs', 'version: 1\nrules:\n  allow: "Bash"\n', 'allow'],
    ['a string where a list belongs', 'version: 1\nworkspace:\n  roots: "."\n', '"."'],
    ['a boolean where a mode belongs', 'version: 1\nmode: true\n', 'true'],
  ])('wrong types: %s', async (_label, text, needle) => {
    const [p] = await problemsOf(() => load(policyFile('types.yaml', text)));
    expectAt(p!, text, needle);
  });

  it('wrong types in Claude Code settings: permissions.allow as a string', async () => {
    const text = '{\n  "permissions": {\n    "allow": "Bash"\n  }\n}\n';
    const [p] = await problemsOf(() => load(policyFile('allow-string.json', text)));
    expectAt(p!, text, '"Bash"');
  });

  it('unknown modes', async () => {
    const yaml = 'version: 1\nmode: yolo\n';
    const [p] = await problemsOf(() => load(policyFile('mode.yaml', yaml)));
    expectAt(p!, yaml, 'yolo');
    const json = '{\n  "permissions": {\n    "defaultMode": "yolo"\n  }\n}\n';
    const [q] = await problemsOf(() => load(policyFile('mode.json', json)));
    expectAt(q!, json, '"yolo"');
  });

  it('a version other than 1', async () => {
    const text = 'version: 2\n';
    const [p] = await problemsOf(() => load(policyFile('v2.yaml', text)));
    expectAt(p!, text, '2');
  });

  it('a missing file', async () => {
    const file = path.join(w.base, 'no-such-policy.yaml');
    const [p] = await problemsOf(() => load(file));
    expect(p!.file).toBe(file);
    expect(p!.message).toMatch(/no such file/);
  });

  it('an unreadable file', async () => {
    let file: string;
    if (process.getuid?.() === 0) {
      // root reads everything: a symlink loop is unreadable for anyone.
      file = path.join(w.base, 'loop.yaml');
      fs.symlinkSync(file, file);
    } else {
      file = policyFile('locked.yaml', 'version: 1\n');
      fs.chmodSync(file, 0o000);
    }
    const [p] = await problemsOf(() => load(file));
    expect(p!.file).toBe(file);
    expect(p!.message).toMatch(/cannot read/);
  });

  it('a directory', async () => {
    const dir = path.join(w.base, 'a-directory.yaml');
    fs.mkdirSync(dir, { recursive: true });
    const [p] = await problemsOf(() => load(dir));
    expect(p!.file).toBe(dir);
    expect(p!.message).toMatch(/directory/);
  });

  it('an empty file and a file that is not a mapping', async () => {
    for (const text of ['', '- Bash\n', '"Bash"\n']) {
      const [p] = await problemsOf(() => load(policyFile('shape.yaml', text)));
      expect(p!.line).toBe(1);
    }
  });

  it('"extends" naming a missing file', async () => {
    const file = policyFile('extends.yaml', 'version: 1\nextends: ./not-there.yaml\n');
    const problems = await problemsOf(() => load(file));
    expect(problems.some((p) => p.file.endsWith('not-there.yaml'))).toBe(true);
  });

  it('a condition that does not compile', async () => {
    const text = 'version: 1\nrules:\n  - deny: "Bash(rm *)"\n    when: "input.command.startsWith("\n';
    const [p] = await problemsOf(() => load(policyFile('when.yaml', text)));
    expect(p!.line).toBe(4);
  });
});

// ------------------------------------------------------------------------------ refused whole

describe('an invalid file is refused whole, never half-loaded', () => {
  it('one bad rule refuses the good rules beside it', async () => {
    const text = 'version: 1\nrules:\n  - allow: "Bash(npm install *)"\n  - deny: "Bash("\n';
    await problemsOf(() => load(policyFile('half.yaml', text)));
    await problemsOf(() => policyFromText(text, { source: 'inline' }));
  });

  it('a bad file refuses the whole set of layers, naming only the bad file', async () => {
    const good = policyFile('good.yaml', 'version: 1\nrules:\n  - allow: "Bash(npm install *)"\n');
    const bad = policyFile('bad.yaml', 'version: 1\nrules:\n  - allow: "Read(**"\n');
    for (const files of [
      [good, bad],
      [bad, good],
    ]) {
      const problems = await problemsOf(() => load(...files));
      expect(problems.every((p) => p.file === bad)).toBe(true);
    }
  });

  it('problems in several files are all reported', async () => {
    const a = policyFile('a.yaml', 'version: 1\nmode: yolo\n');
    const b = policyFile('b.yaml', 'version: 1\nrules:\n  - deny: ")"\n');
    const problems = await problemsOf(() => load(a, b));
    expect(new Set(problems.map((p) => p.file))).toEqual(new Set([a, b]));
  });

  it('a broken project file refuses the discovered policy too', async () => {
    const project = path.join(w.base, 'broken-project');
    fs.mkdirSync(path.join(project, '.toolgate'), { recursive: true });
    fs.writeFileSync(
      path.join(project, '.toolgate', 'policy.yaml'),
      'version: 1\nrules:\n  - allow: "Bash("\n',
    );
    const problems = await problemsOf(() =>
      loadPolicy({ cwd: project, home: w.home, managedRoot: null, env: {} }),
    );
    expect(problems[0]!.file).toBe(path.join(project, '.toolgate', 'policy.yaml'));
  });

  it('a broken managed file refuses everything', async () => {
    const managed = managedRoot(path.join(w.base, 'managed-broken'), {
      'policy.yaml': 'version: 1\nlock: { rulesOnly: maybe }\n',
    });
    const good = policyFile('good2.yaml', 'version: 1\n');
    await problemsOf(() => loadPolicy({ files: [good], cwd: w.ws, home: w.home, ...managed, env: {} }));
  });

  it('the error message lists file:line:column for each problem', async () => {
    const file = policyFile('msg.yaml', 'version: 1\nrules:\n  - deny: "Bash("\n');
    try {
      await load(file);
      throw new Error('expected a PolicyError');
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyError);
      expect((err as Error).message).toMatch(
        new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:\\d+`),
      );
    }
  });
});

describe('layer discovery', () => {
  it('with no file anywhere, the embedded default applies', async () => {
    const empty = path.join(w.base, 'empty-project');
    fs.mkdirSync(empty, { recursive: true });
    const policy = await loadPolicy({ cwd: empty, home: w.home, managedRoot: null, env: {} });
    expect(policy.files.map((f) => f.source)).toEqual(['builtin:default']);
  });

  it('the managed file always applies, above --policy files', async () => {
    const managed = managedRoot(path.join(w.base, 'managed-ok'), {
      'policy.yaml': 'version: 1\nrules:\n  - deny: "Bash(curl *)"\n',
    });
    const cli = policyFile('cli.yaml', 'version: 1\nrules:\n  - allow: "Bash(curl *)"\n');
    const policy = await loadPolicy({ files: [cli], cwd: w.ws, home: w.home, ...managed, env: {} });
    expect(policy.files.map((f) => f.layer)).toEqual(['managed', 'cli']);
    expect(decideIn(w, policy, bash('curl https://x.test')).behavior).toBe('deny');
  });

  it('$TOOLGATE_MANAGED_POLICY adds a managed file; it never replaces or removes the system ones', async () => {
    const managed = managedRoot(path.join(w.base, 'managed-plus-env'), {
      'policy.yaml': 'version: 1\nrules:\n  - deny: "Bash(curl *)"\n',
      'managed.d/10-more.yaml': 'version: 1\nrules:\n  - deny: "Bash(nc *)"\n',
      'extra/added.yaml': 'version: 1\nrules:\n  - deny: "Bash(wget *)"\n',
    });
    const added = path.join(managed.managedRoot, 'extra', 'added.yaml');
    const base = { files: [], cwd: w.ws, home: w.home, ...managed };
    const policy = await loadPolicy({ ...base, env: { TOOLGATE_MANAGED_POLICY: added } });
    expect(policy.files.filter((f) => f.layer === 'managed').map((f) => path.basename(f.source))).toEqual([
      'policy.yaml',
      '10-more.yaml',
      'added.yaml',
    ]);
    for (const c of ['curl https://x.test', 'nc x.test 80', 'wget https://x.test'])
      expect(decideIn(w, policy, bash(c)).behavior, c).toBe('deny');
    // Pointed at nothing, it adds nothing; the system files stay.
    const missing = await loadPolicy({
      ...base,
      env: { TOOLGATE_MANAGED_POLICY: path.join(w.base, 'nope.yaml') },
    });
    expect(decideIn(w, missing, bash('curl https://x.test')).behavior).toBe('deny');
  });

  it('a managed file someone else can write is refused, and so is the whole policy', async () => {
    const managed = managedRoot(path.join(w.base, 'managed-writable'), {
      'policy.yaml': 'version: 1\nrules:\n  - deny: "Bash(curl *)"\n',
      'managed.d/open.yaml': 'version: 1\n',
    });
    fs.chmodSync(path.join(managed.managedRoot, 'managed.d', 'open.yaml'), 0o666);
    const problems = await problemsOf(() => loadPolicy({ cwd: w.ws, home: w.home, ...managed, env: {} }));
    expect(problems[0]!.message).toMatch(/managed policy refused: it is writable by its group/);
    fs.chmodSync(path.join(managed.managedRoot, 'managed.d', 'open.yaml'), 0o644);
    fs.chmodSync(path.join(managed.managedRoot, 'managed.d'), 0o777);
    const dir = await problemsOf(() => loadPolicy({ cwd: w.ws, home: w.home, ...managed, env: {} }));
    expect(dir[0]!.message).toMatch(/managed\.d is writable by its group/);
    fs.chmodSync(path.join(managed.managedRoot, 'managed.d'), 0o755);
    // Owned by someone else: as root, by chown; otherwise the files are simply not uid 4242's.
    const asRoot = process.getuid?.() === 0;
    if (asRoot) fs.chownSync(path.join(managed.managedRoot, 'policy.yaml'), 4242, 4242);
    const other = await problemsOf(() =>
      loadPolicy({ cwd: w.ws, home: w.home, ...managed, ...(asRoot ? {} : { managedOwner: 4242 }), env: {} }),
    );
    expect(other[0]!.message).toMatch(
      asRoot ? /owned by uid 4242, not by root/ : /owned by uid \d+, not by uid 4242/,
    );
  });
});
