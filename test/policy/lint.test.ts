import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { quote } from 'shell-quote';
import { afterAll, describe, expect, it } from 'vitest';
import { compilePolicy } from '../../src/policy/compile.js';
import { decide } from '../../src/policy/decide.js';
import { type LintFinding, lintPolicy, lintPolicyFiles } from '../../src/policy/lint.js';
import type { PolicyFile, SourcedRule } from '../../src/policy/load.js';
import { compileBashPattern } from '../../src/policy/match/bash.js';
import { compileDomainPattern } from '../../src/policy/match/domain.js';
import { compilePathPattern } from '../../src/policy/match/path.js';
import { policyFromText } from '../../src/policy/policy.js';
import type { RuleKind } from '../../src/policy/rule.js';

const dir = mkdtempSync(join(tmpdir(), 'toolgate-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const home = join(dir, 'home');
const workspace = join(dir, 'workspace');
mkdirSync(join(home, '.ssh'), { recursive: true });
mkdirSync(join(workspace, 'src'), { recursive: true });
const OPTIONS = { home, workspace };

type RuleSpec = [RuleKind, string, { when?: string; source?: string }?];

/** A compiled policy straight from rules (no YAML), one file per source, lines in order. */
function policyOf(rules: readonly RuleSpec[]) {
  const bySource = new Map<string, SourcedRule[]>();
  rules.forEach(([kind, text, extra = {}], i) => {
    const source = extra.source ?? join(dir, 'policy.yaml');
    const list = bySource.get(source) ?? [];
    list.push({ kind, text, line: i + 1, ...(extra.when === undefined ? {} : { when: extra.when }) });
    bySource.set(source, list);
  });
  const files: PolicyFile[] = [...bySource].map(([source, list]) => ({
    source,
    layer: 'cli',
    form: 'toolgate',
    policyRoot: dir,
    rules: list,
    tests: [],
    extends: [],
  }));
  return compilePolicy(files);
}

function lint(rules: readonly RuleSpec[]): LintFinding[] {
  return lintPolicy(policyOf(rules), OPTIONS);
}

const kinds = (findings: LintFinding[]) => findings.map((f) => [f.kind, f.severity, f.rule, f.line]);

describe('lint: unknown tool names', () => {
  it('calls a near miss of a known tool an error, and suggests the name', () => {
    const findings = lint([
      ['deny', 'Bassh(rm *)'],
      ['allow', 'webfetch'],
    ]);
    expect(kinds(findings)).toEqual([
      ['unknown-tool', 'error', 'Bassh(rm *)', 1],
      ['unknown-tool', 'error', 'webfetch', 2],
    ]);
    expect(findings[0]!.message).toMatch(
      /a deny rule on a misspelled name protects nothing; did you mean "Bash"\?/,
    );
    expect(findings[1]!.message).toMatch(/did you mean "WebFetch"\?/);
  });

  it('warns about other unknown names, and knows tools, aliases, MCP names and patterns', () => {
    expect(kinds(lint([['ask', 'DeployToProd']]))).toEqual([['unknown-tool', 'warning', 'DeployToProd', 1]]);
    expect(
      lint([
        ['allow', 'Task(Explore)'],
        ['allow', 'Agent'],
        ['allow', 'mcp__github__get_issue'],
        ['deny', 'mcp__*'],
        ['deny', '*'],
        ['allow', 'NotebookRead'],
        ['ask', 'Monitor(tail -f *)'],
      ]).filter((f) => f.kind === 'unknown-tool'),
    ).toEqual([]);
  });
});

describe('lint: allows that grant arbitrary code execution', () => {
  it.each([
    ['Bash', /allows every command line/],
    ['Bash(*)', /allows every command line/],
    ['Bash(python *)', /allows "python -c print\(1\)": an interpreter runs whatever code it is given/],
    ['Bash(python3:*)', /allows "python3 -c print\(1\)"/],
    ['Bash(node *)', /allows "node -e 1"/],
    ['Bash(npm run *)', /allows "npm run any-script": a package manager runs any package/],
    ['Bash(npm *)', /allows "npm exec some-package"/],
    ['Bash(npx *)', /allows "npx some-package"/],
    ['Bash(bash *)', /allows "bash \.\/script\.sh": runs a script file/],
    ['Bash(sh *)', /allows "sh \.\/script\.sh"/],
    ['Bash(source *)', /allows "source \.\/script\.sh"/],
    ['Bash(make*)', /allows "make -f \.\/x\.mk"/],
    ['Bash(yarn *)', /allows "yarn dlx some-package"/],
    ['Bash(uv run *)', /allows "uv run \.\/x\.py"/],
    ['Bash(py*)', /allows "python -c print\(1\)"/],
  ])('%s', (rule, message) => {
    const [f] = lint([['allow', rule]]);
    expect(f).toMatchObject({
      kind: 'broad-allow',
      severity: 'error',
      rule,
      message: expect.stringMatching(message),
    });
  });

  it('leaves narrow allows alone, and notes the ones that run project scripts', () => {
    expect(lint([['allow', 'Bash(git status*)']])).toEqual([]);
    expect(lint([['allow', 'Bash(python -m pytest)']])).toEqual([]);
    expect(lint([['allow', 'Bash(eval *)']])).toEqual([]); // eval's text is decided command by command
    expect(lint([['allow', 'Bash(sudo *)']])).toEqual([]); // so is what sudo runs
    expect(kinds(lint([['allow', 'Bash(npm run test*)']]))).toEqual([
      ['project-scripts', 'info', 'Bash(npm run test*)', 1],
    ]);
    expect(kinds(lint([['allow', 'Bash(make test)']]))).toEqual([
      ['project-scripts', 'info', 'Bash(make test)', 1],
    ]);
    expect(kinds(lint([['allow', 'Bash(npm install *)']]))).toEqual([
      ['broad-allow', 'warning', 'Bash(npm install *)', 1],
    ]);
  });

  it('is a warning, not an error, when a condition may rule the example out', () => {
    const [f] = lint([['allow', 'Bash(python *)', { when: "command.startsWith('python -m pytest')" }]]);
    expect(f).toMatchObject({
      kind: 'broad-allow',
      severity: 'warning',
      message: expect.stringMatching(/unless its when:/),
    });
  });

  // Every example in a finding must be real: decide() allows it under the rule lint flags.
  it.each([
    ['Bash(bash *)', ['bash', './script.sh']],
    ['Bash(zsh *)', ['zsh', './script.sh']],
    ['Bash(source *)', ['source', './script.sh']],
    ['Bash(. *)', ['.', './script.sh']],
    ['Bash(python *)', ['python', '-c', 'print(1)']],
    ['Bash(python3 *)', ['python3', './x.py']],
    ['Bash(node *)', ['node', '-e', '1']],
    ['Bash(perl *)', ['perl', '-e', '1']],
    ['Bash(ruby *)', ['ruby', '-e', '1']],
    ['Bash(npx *)', ['npx', 'some-package']],
    ['Bash(npm run *)', ['npm', 'run', 'any-script']],
    ['Bash(pnpm *)', ['pnpm', 'dlx', 'some-package']],
    ['Bash(yarn *)', ['yarn', 'any-script']],
    ['Bash(bunx *)', ['bunx', 'some-package']],
    ['Bash(uvx *)', ['uvx', 'some-package']],
    ['Bash(go run *)', ['go', 'run', './x.go']],
    ['Bash(make*)', ['make', '-f', './x.mk']],
    ['Bash(docker *)', ['docker', 'run', '-v', '/:/host', 'some-image']],
    ['Bash(*)', ['./x']],
  ])('%s really allows %j', async (rule, argv) => {
    expect(lint([['allow', rule]])).toMatchObject([{ kind: 'broad-allow', severity: 'error' }]);
    const p = await policyFromText(`version: 1\nrules:\n  - allow: ${JSON.stringify(rule)}\n`, {
      root: workspace,
    });
    const d = decide({ tool: 'Bash', input: { command: quote(argv) }, cwd: workspace }, p);
    expect(d).toMatchObject({ behavior: 'allow', decidedBy: 'rule' });
  });
});

describe('lint: allow rules a deny or ask rule shadows', () => {
  it.each<[string, string, string]>([
    ['Bash', 'Bash(npm test)', 'deny'],
    ['Bash(git push *)', 'Bash(git push origin main)', 'deny'],
    ['Bash(git push *)', 'Bash(git push origin *)', 'deny'],
    ['Bash(git push:*)', 'Bash(git push)', 'deny'],
    ['Bash(npm *)', 'Bash(npm run test*)', 'deny'],
    ['Bash(git*)', 'Bash(gitk *)', 'deny'],
    ['Bash(rm -rf *)', 'Bash(rm -rf *)', 'deny'],
    ['Bash(git push *)', 'Bash(git push --dry-run *)', 'ask'],
    ['Read(./secrets/**)', 'Read(./secrets/public/**)', 'deny'],
    ['Read(./secrets)', 'Read(./secrets/*.txt)', 'deny'],
    ['Read(**/.env)', 'Read(./.env)', 'deny'],
    ['Read(//**)', 'Read(~/notes/**)', 'deny'],
    ['WebFetch(domain:*.example.com)', 'WebFetch(domain:api.example.com)', 'deny'],
    ['WebFetch(domain:*.example.com)', 'WebFetch(domain:*.api.example.com)', 'deny'],
    ['WebFetch', 'WebFetch(domain:github.com)', 'deny'],
    ['mcp__github', 'mcp__github__get_issue', 'deny'],
    ['mcp__github', 'mcp__github__get_*', 'deny'],
    ['mcp__*', 'mcp__github__get_issue', 'ask'],
    ['Agent(*)', 'Agent(Explore)', 'deny'],
  ])('%s shadows %s', (blocker, allow, kind) => {
    const findings = lint([
      [kind as RuleKind, blocker],
      ['allow', allow],
    ]).filter((f) => f.kind === 'shadowed');
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({ rule: allow, line: 2, severity: 'warning' });
    expect(findings[0]!.message).toContain(`by ${kind} rule ${blocker} at `);
  });

  it.each<[string, string]>([
    ['Bash(git push --force *)', 'Bash(git push *)'],
    ['Bash(git push *)', 'Bash(git push*)'],
    ['Bash(git *)', 'Bash(gitk)'],
    ['Bash(npm run build)', 'Bash(npm run build *)'],
    ['Read(~/.ssh/**)', 'Read(./src/**)'],
    ['Read(**/*.pem)', 'Read(~/certs/**)'],
    ['Read(/secrets/**)', 'Read(./secrets/**)'],
    ['WebFetch(domain:*.example.com)', 'WebFetch(domain:example.com)'],
    ['Read', 'Read(./src/**)'],
    ['Bash(run_in_background:true)', 'Bash(npm test)'],
    ['Edit(//**)', 'Read(./src/**)'],
    ['mcp__github__get_issue', 'mcp__github__get_*'],
  ])('%s does not shadow %s', (blocker, allow) => {
    expect(
      lint([
        ['deny', blocker],
        ['allow', allow],
      ]).filter((f) => f.kind === 'shadowed'),
    ).toEqual([]);
  });

  it('does not count a deny rule with a condition', () => {
    expect(
      lint([
        ['deny', 'Bash', { when: 'facts.destructive' }],
        ['allow', 'Bash(npm test)'],
      ]).filter((f) => f.kind === 'shadowed'),
    ).toEqual([]);
  });

  it('says when an edit deny only takes the edits of an Edit allow', () => {
    const [f] = lint([
      ['deny', 'Edit(./src/**)'],
      ['allow', 'Edit(./src/generated/**)'],
    ]).filter((x) => x.kind === 'shadowed');
    expect(f!.message).toMatch(
      /every edit it allows is denied by deny rule Edit\(\.\/src\/\*\*\).*\(it still grants reading them\)/,
    );
  });

  it('agrees with decide(): a shadowed allow never decides a call it matches', async () => {
    const text = `version: 1
rules:
  - deny: ["Bash(git push *)", "Read(./secrets/**)", "WebFetch(domain:*.example.com)"]
  - allow: ["Bash(git push origin main)", "Read(./secrets/public/**)", "WebFetch(domain:api.example.com)"]
`;
    const p = await policyFromText(text, { root: workspace });
    expect(lintPolicy(p, OPTIONS).filter((f) => f.kind === 'shadowed')).toHaveLength(3);
    for (const [tool, input] of [
      ['Bash', { command: 'git push origin main' }],
      ['Read', { file_path: 'secrets/public/readme.txt' }],
      ['WebFetch', { url: 'https://api.example.com/x' }],
    ] as const) {
      expect(decide({ tool, input, cwd: workspace }, p)).toMatchObject({
        behavior: 'deny',
        decidedBy: 'rule',
      });
    }
  });

  // Soundness: whenever lint says a Bash deny pattern shadows an allow pattern, every command
  // text the allow pattern matches, the deny pattern matches too.
  const word = fc.constantFrom('a', 'b', 'ab', '-x', '*', 'a*', '*b');
  const pattern = fc.array(word, { minLength: 1, maxLength: 4 }).map((ws) => ws.join(' '));
  const text = fc
    .array(fc.constantFrom('a', 'b', 'ab', 'ba', '-x', 'abx', ''), { maxLength: 5 })
    .map((ws) => ws.join(' '));
  it('never claims a Bash pattern shadows one it does not cover (property)', () => {
    fc.assert(
      fc.property(
        pattern,
        pattern,
        fc.array(text, { minLength: 20, maxLength: 40 }),
        (deny, allow, texts) => {
          const shadowedFinding = lint([
            ['deny', `Bash(${deny})`],
            ['allow', `Bash(${allow})`],
          ]).some((f) => f.kind === 'shadowed');
          if (!shadowedFinding) return;
          const d = compileBashPattern(deny);
          const a = compileBashPattern(allow);
          // Also probe texts built from the allow pattern itself, so matches are not rare.
          const own = texts.map((t) => allow.replaceAll('*', t));
          for (const t of [...texts, ...own]) if (a(t)) expect(d(t)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  const label = fc.constantFrom('a', 'b', 'api', 'x', '*');
  const host = fc.array(label, { minLength: 1, maxLength: 4 }).map((ls) => ls.join('.'));
  const concrete = fc
    .array(fc.constantFrom('a', 'b', 'api', 'x', 'y'), { minLength: 1, maxLength: 5 })
    .map((ls) => ls.join('.'));
  it('never claims a domain pattern shadows one it does not cover (property)', () => {
    fc.assert(
      fc.property(host, host, fc.array(concrete, { minLength: 20, maxLength: 40 }), (deny, allow, hosts) => {
        const shadowedFinding = lint([
          ['deny', `WebFetch(domain:${deny})`],
          ['allow', `WebFetch(domain:${allow})`],
        ]).some((f) => f.kind === 'shadowed');
        if (!shadowedFinding) return;
        const d = compileDomainPattern(deny);
        const a = compileDomainPattern(allow);
        for (const h of hosts) if (a(h)) expect(d(h)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});

describe('lint: path shadowing is sound', () => {
  const segment = fc.constantFrom('a', 'b', '*', '**', '.env', '*.pem');
  const anchor = fc.constantFrom('./', '', '//w/', '~/');
  const pathPattern = fc
    .tuple(anchor, fc.array(segment, { minLength: 1, maxLength: 3 }))
    .map(([a, segs]) => `${a}${segs.join('/')}`);
  const concrete = fc
    .tuple(
      fc.constantFrom('/w', '/h'),
      fc.array(fc.constantFrom('a', 'b', 'c', '.env', 'k.pem'), { maxLength: 4 }),
    )
    .map(([root, segs]) => [root, ...segs].join('/'));
  it('never claims a path pattern shadows one it does not cover (property)', () => {
    const anchors = { cwd: '/w', home: '/h', policyRoot: '/p' };
    fc.assert(
      fc.property(
        pathPattern,
        pathPattern,
        fc.array(concrete, { minLength: 30, maxLength: 60 }),
        (deny, allow, paths) => {
          const shadowedFinding = lint([
            ['deny', `Read(${deny})`],
            ['allow', `Read(${allow})`],
          ]).some((f) => f.kind === 'shadowed');
          if (!shadowedFinding) return;
          const d = compilePathPattern(deny, 'deny', anchors);
          const a = compilePathPattern(allow, 'allow', anchors);
          for (const p of paths) if (a.matches(p)) expect(d.matches(p)).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('lint: duplicates', () => {
  it('reports every repeat of a rule after the first, also across files and spellings', () => {
    const other = join(dir, 'other.yaml');
    const findings = lint([
      ['deny', 'Bash(git push --force *)'],
      ['deny', 'Bash(git push --force *)'],
      ['allow', 'Bash(git diff:*)'],
      ['allow', 'Bash(git diff *)'],
      ['allow', 'Task(Explore)', { source: other }],
      ['allow', 'Agent(Explore)'],
      ['ask', 'Bash(npm publish *)'],
      ['ask', 'Bash(npm publish *)', { when: 'facts.destructive' }],
    ]).filter((f) => f.kind === 'duplicate');
    expect(findings.map((f) => [f.rule, f.line])).toEqual([
      ['Bash(git push --force *)', 2],
      ['Bash(git diff *)', 4],
      ['Agent(Explore)', 6],
    ]);
    expect(findings[0]!.message).toBe(
      `the same deny rule as Bash(git push --force *) at ${join(dir, 'policy.yaml')}:1`,
    );
    expect(findings[2]!.message).toContain(`Task(Explore) at ${other}:5`);
  });
});

describe('lint: path rules Claude Code ignores', () => {
  it('names the rule toolgate reads instead', () => {
    const findings = lint([
      ['deny', 'Write(./deploy/**)'],
      ['deny', 'Grep(./secrets/**)'],
      ['allow', 'Write'],
    ]).filter((f) => f.kind === 'ignored-by-claude-code');
    expect(findings.map((f) => [f.rule, f.severity])).toEqual([
      ['Write(./deploy/**)', 'warning'],
      ['Grep(./secrets/**)', 'warning'],
    ]);
    expect(findings[0]!.message).toMatch(
      /Claude Code ignores Write\(\.\.\.\) path rules.*toolgate reads this one as Edit\(\.\/deploy\/\*\*\).*Write Edit\(\.\/deploy\/\*\*\)/,
    );
    expect(findings[1]!.message).toMatch(/as Read\(\.\/secrets\/\*\*\)/);
  });
});

describe('lint: conditions', () => {
  it('compiles a condition as the isolate does and reports one that does not compile', () => {
    const [f] = lint([['allow', 'Read', { when: 'input.(' }]]);
    expect(f).toMatchObject({
      kind: 'condition',
      severity: 'error',
      rule: 'Read',
      message: expect.stringMatching(/^condition does not compile: /),
    });
  });

  it('never runs a condition', () => {
    const g = globalThis as { linted?: boolean };
    expect(lint([['allow', 'Read', { when: '(globalThis.linted = true)' }]])).toEqual([]);
    expect(g.linted).toBeUndefined();
  });

  it('reports a condition the loader refused, with its file and line', () => {
    const file = join(dir, 'cond.yaml');
    writeFileSync(file, 'version: 1\nrules:\n  - allow: Read\n    when: "input.("\n');
    expect(lintPolicyFiles([file], OPTIONS)).toMatchObject([
      {
        kind: 'condition',
        severity: 'error',
        file,
        line: 4,
        message: expect.stringMatching(/^condition does not compile/),
      },
    ]);
  });
});

describe('lint: anchors that point nowhere', () => {
  it('warns about /x rules whose directory is not next to the policy, and hints at //x', () => {
    const findings = lint([
      ['deny', 'Read(/etc/**)'],
      ['deny', 'Read(/nowhere/**)'],
    ]);
    expect(kinds(findings)).toEqual([
      ['dangling-anchor', 'warning', 'Read(/etc/**)', 1],
      ['dangling-anchor', 'warning', 'Read(/nowhere/**)', 2],
    ]);
    expect(findings[0]!.message).toBe(
      `/etc/** is relative to the directory of the policy file (${dir}), and ${join(dir, 'etc')} does not exist: it protects nothing there now; for the absolute path write //etc/**`,
    );
    expect(findings[1]!.message).not.toContain('for the absolute path');
  });

  it('warns about allows and notes denials for ./x and ~/x directories that do not exist', () => {
    expect(
      kinds(
        lint([
          ['allow', 'Edit(./build/**)'],
          ['allow', 'Edit(./src/**)'],
          ['deny', 'Read(~/.aws/**)'],
          ['deny', 'Read(~/.ssh/**)'],
          ['deny', 'Read(~/.netrc)'],
          ['deny', 'Read(./*.pem)'],
          ['deny', 'Read(//nowhere/**)'],
        ]),
      ),
    ).toEqual([
      ['dangling-anchor', 'warning', 'Edit(./build/**)', 1],
      ['dangling-anchor', 'info', 'Read(~/.aws/**)', 3],
    ]);
  });
});

describe('lint: files', () => {
  it('turns load problems into error findings with file, line and column', () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(file, 'version: 1\nrules:\n  - allow: "Bash("\n');
    expect(lintPolicyFiles([file], OPTIONS)).toMatchObject([
      { kind: 'invalid', severity: 'error', file, line: 3, column: expect.any(Number), rule: 'Bash(' },
    ]);
  });

  it('checks against the built-in policy a file extends, without reporting its rules', () => {
    const file = join(dir, 'extends.yaml');
    writeFileSync(
      file,
      'version: 1\nextends: builtin:default\nrules:\n  - allow: "Read(~/.ssh/config)"\n  - allow: Bashh\n',
    );
    const findings = lintPolicyFiles([file], OPTIONS);
    expect(findings.every((f) => f.file === file)).toBe(true);
    expect(kinds(findings)).toEqual([
      ['shadowed', 'warning', 'Read(~/.ssh/config)', 4],
      ['unknown-tool', 'error', 'Bashh', 5],
    ]);
    expect(findings[0]!.message).toMatch(/by deny rule Read\(~\/\.ssh\/\*\*\) at builtin:default:16/);
  });

  it('finds only what is intended in the built-in policies', () => {
    const policies = join(import.meta.dirname, '../../policies');
    const lintOf = (name: string) =>
      lintPolicyFiles([join(policies, `${name}.yaml`)], { workspace, home: join(dir, 'home') }).map((f) => [
        f.kind,
        f.severity,
        f.rule,
      ]);
    const notes = (rules: string[]) => rules.map((r) => ['project-scripts', 'info', r]);
    const noDir = (rules: string[]) => rules.map((r) => ['dangling-anchor', 'info', r]);
    expect(lintOf('default')).toEqual([
      ...noDir([
        'Read(~/.aws/**)',
        'Read(~/.gnupg/**)',
        'Read(~/.config/gcloud/**)',
        'Read(~/.azure/**)',
        'Read(~/.kube/config)',
        'Read(~/.docker/config.json)',
      ]),
      ...notes(['Bash(npm test)', 'Bash(npm run test*)', 'Bash(npm run lint*)', 'Bash(npm run build*)']),
    ]);
    // strict.yaml repeats four allows of the default it extends.
    expect(lintOf('strict')).toEqual([
      ['project-scripts', 'info', 'Bash(npm ci)'],
      ['duplicate', 'warning', 'Bash(npm test)'],
      ['project-scripts', 'info', 'Bash(npm test)'],
      ['duplicate', 'warning', 'Bash(npm run test*)'],
      ['project-scripts', 'info', 'Bash(npm run test*)'],
      ['duplicate', 'warning', 'Bash(npm run lint*)'],
      ['project-scripts', 'info', 'Bash(npm run lint*)'],
      ['duplicate', 'warning', 'Bash(npm run build*)'],
      ['project-scripts', 'info', 'Bash(npm run build*)'],
    ]);
    expect(lintOf('readonly-review')).toEqual([]);
  });
});
