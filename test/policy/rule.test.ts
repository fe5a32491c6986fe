import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRule, type Rule, RuleError, type RuleKind } from '../../src/policy/rule.js';

/**
 * Rule syntax, as Claude Code writes it (research doc §1; ARCHITECTURE §3): `Tool` or
 * `Tool(specifier)`, parsed once into a typed rule. Bad strings are a RuleError, never a crash
 * and never a rule that silently matches something else.
 */
const KINDS: readonly RuleKind[] = ['allow', 'ask', 'deny'];

function parsed(text: string, kind: RuleKind = 'deny'): Rule {
  return parseRule(text, kind);
}

function refused(text: string, kind: RuleKind): RuleError {
  try {
    parseRule(text, kind);
  } catch (err) {
    expect(err).toBeInstanceOf(RuleError);
    return err as RuleError;
  }
  throw new Error(`expected "${text}" (${kind}) to be refused with a RuleError`);
}

describe('parseRule: tool names and bare rules', () => {
  it.each(KINDS)('"Bash" (%s) is every call of the tool', (kind) => {
    const r = parsed('Bash', kind);
    expect(r).toMatchObject({ kind, text: 'Bash', tool: 'Bash', toolIsPattern: false });
    expect(r.specifier).toEqual({ type: 'any' });
  });

  it('"Bash(*)" is the same as the bare "Bash" (§1.1)', () => {
    expect(parsed('Bash(*)').specifier).toEqual(parsed('Bash').specifier);
    expect(parsed('Bash(*)').tool).toBe('Bash');
  });

  it('keeps the rule as written (trimmed) for decisions to cite', () => {
    expect(parsed('  Bash(npm test)  ').text).toBe('Bash(npm test)');
  });

  it('mcp__server is every tool of that server', () => {
    const r = parsed('mcp__github', 'allow');
    expect(r).toMatchObject({ tool: 'mcp__github', toolIsPattern: false });
    expect(r.specifier).toEqual({ type: 'any' });
  });

  it('mcp__server__tool names one tool', () => {
    const r = parsed('mcp__github__create_issue', 'allow');
    expect(r).toMatchObject({ tool: 'mcp__github__create_issue', toolIsPattern: false });
  });

  it('mcp__server__get_* is a tool-name pattern, accepted even in allow rules', () => {
    const r = parsed('mcp__github__get_*', 'allow');
    expect(r).toMatchObject({ tool: 'mcp__github__get_*', toolIsPattern: true });
  });

  it.each(['ask', 'deny'] as const)('%s rules accept "*" anywhere in the tool name (§1.1)', (kind) => {
    expect(parsed('*', kind)).toMatchObject({ tool: '*', toolIsPattern: true });
    expect(parsed('mcp__*', kind)).toMatchObject({ tool: 'mcp__*', toolIsPattern: true });
    expect(parsed('B*', kind)).toMatchObject({ tool: 'B*', toolIsPattern: true });
  });

  it.each(['*', 'B*', 'mcp__*', 'mcp__*__get', 'mcp__git*__get'])(
    'allow rule "%s" is refused: "*" only after a literal mcp__server__ prefix (§1.1)',
    (text) => {
      refused(text, 'allow');
    },
  );
});

describe('parseRule: Bash specifiers', () => {
  it('"Bash(npm run test *)" is an argv pattern', () => {
    expect(parsed('Bash(npm run test *)', 'allow').specifier).toEqual({
      type: 'bash',
      pattern: 'npm run test *',
    });
  });

  it('legacy "Bash(git diff:*)" is accepted as a Bash pattern', () => {
    const r = parsed('Bash(git diff:*)', 'allow');
    expect(r.tool).toBe('Bash');
    expect(r.specifier.type).toBe('bash');
  });

  it('"Bash(git:* push)" keeps the colon as a literal character (not the legacy suffix)', () => {
    expect(parsed('Bash(git:* push)', 'allow').specifier).toEqual({ type: 'bash', pattern: 'git:* push' });
  });
});

describe('parseRule: parameter rules (Tool(param:value), deny and ask only, §1.1)', () => {
  it.each(['ask', 'deny'] as const)('"Bash(run_in_background:true)" is a parameter rule for %s', (kind) => {
    expect(parsed('Bash(run_in_background:true)', kind).specifier).toEqual({
      type: 'param',
      name: 'run_in_background',
      pattern: 'true',
    });
  });

  it('a parameter rule is refused in allow form (deny and ask only, §1.1)', () => {
    refused('Bash(run_in_background:true)', 'allow');
    refused('Bash(dangerouslyDisableSandbox:true)', 'allow');
    refused('Agent(model:opus)', 'allow');
  });

  it.each(KINDS)('"Bash(command:rm *)" targets the primary field and is refused (%s)', (kind) => {
    refused('Bash(command:rm *)', kind);
  });

  it.each([
    'Read(file_path:/etc/*)',
    'Edit(file_path:*.env)',
    'Write(file_path:*.env)',
    'NotebookEdit(notebook_path:*)',
    'WebFetch(url:https://evil.com/*)',
  ])('"%s" targets a primary field and is refused (§1.1)', (text) => {
    refused(text, 'deny');
    refused(text, 'ask');
  });

  it('Grep(path:...), Glob(path:...) and LS(path:...) target the primary field `path` and are refused (§1.1 lists command, file_path, path, notebook_path, url)', () => {
    for (const text of ['Grep(path:/etc/**)', 'Glob(path:/etc/**)', 'LS(path:/etc)']) {
      refused(text, 'deny');
      refused(text, 'ask');
    }
  });

  it('a parameter rule on another tool is accepted for deny and ask', () => {
    expect(parsed('Agent(model:opus)', 'deny').specifier).toEqual({
      type: 'param',
      name: 'model',
      pattern: 'opus',
    });
  });
});

describe('parseRule: path, domain and agent specifiers', () => {
  it('"Read(./src/**)" is a read path rule', () => {
    expect(parsed('Read(./src/**)', 'allow').specifier).toEqual({
      type: 'path',
      pattern: './src/**',
      access: 'read',
    });
  });

  it('"Edit(//etc/**)" is an edit path rule with the absolute anchor kept', () => {
    expect(parsed('Edit(//etc/**)').specifier).toEqual({ type: 'path', pattern: '//etc/**', access: 'edit' });
  });

  it('"Read(~/.ssh/**)" is a read path rule anchored at home', () => {
    expect(parsed('Read(~/.ssh/**)').specifier).toEqual({
      type: 'path',
      pattern: '~/.ssh/**',
      access: 'read',
    });
  });

  it('"Write(...)" is read as an Edit rule (toolgate\'s documented choice: never drop a deny)', () => {
    expect(parsed('Write(src/**)').specifier).toMatchObject({ type: 'path', access: 'edit' });
  });

  it('"WebFetch(domain:*.github.com)" is a domain rule', () => {
    expect(parsed('WebFetch(domain:*.github.com)', 'allow').specifier).toEqual({
      type: 'domain',
      pattern: '*.github.com',
    });
  });

  it('"Agent(Explore)" is a subagent rule', () => {
    const r = parsed('Agent(Explore)');
    expect(r.tool).toBe('Agent');
    expect(r.specifier).toEqual({ type: 'agent', pattern: 'Explore' });
  });

  it('"Task(Explore)" is an alias of "Agent(Explore)" (Task was renamed to Agent)', () => {
    const r = parsed('Task(Explore)');
    expect(r.tool).toBe('Agent');
    expect(r.specifier).toEqual(parsed('Agent(Explore)').specifier);
  });
});

describe('parseRule: bad strings are RuleErrors', () => {
  it.each([
    ['Bash('],
    ['Read(**'],
    [')'],
    [''],
    ['   '],
    ['Bash(ls'],
    ['Bash)ls('],
    ['Bash(ls))'],
    ['(ls)'],
    ['Ba sh'],
  ])('"%s" is refused in every kind', (text) => {
    for (const kind of KINDS) {
      const err = refused(text, kind);
      expect(err.text).toBe(text);
      expect(err.offset).toBeGreaterThanOrEqual(0);
      expect(err.offset).toBeLessThanOrEqual(text.length);
      expect(err.message.length).toBeGreaterThan(0);
    }
  });

  it('a path pattern whose "**" is not a whole segment is refused', () => {
    refused('Read(**.env)', 'deny');
  });
});

describe('parseRule: names that are also Object.prototype keys', () => {
  it('"toString", "constructor", "__proto__", ... are (unknown) tool names or RuleErrors; never a TypeError', () => {
    for (const text of ['toString', 'constructor', '__proto__', 'hasOwnProperty', 'valueOf']) {
      for (const kind of KINDS) {
        let rule: Rule | undefined;
        try {
          rule = parseRule(text, kind);
        } catch (err) {
          expect(err, `${text} (${kind})`).toBeInstanceOf(RuleError);
        }
        if (rule) expect(rule.tool).toBe(text);
      }
    }
  });
});

describe('parseRule: property', () => {
  const ruleish = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc
      .tuple(
        fc.constantFrom(
          'Bash',
          'Read',
          'Edit',
          'Write',
          'WebFetch',
          'Agent',
          'Task',
          'mcp__s',
          'mcp__s__t',
          '*',
          'X',
        ),
        fc.constantFrom('', '(', ')', '()', '(*)'),
        fc.string({ maxLength: 20 }),
        fc.constantFrom('', ')', '))', '('),
      )
      .map(([t, open, body, close]) => `${t}${open}${body}${close}`),
  );

  it('on any string returns a Rule or throws a RuleError, never anything else', () => {
    fc.assert(
      fc.property(ruleish, fc.constantFrom(...KINDS), (text, kind) => {
        let rule: Rule;
        try {
          rule = parseRule(text, kind);
        } catch (err) {
          expect(err).toBeInstanceOf(RuleError);
          return;
        }
        expect(rule.kind).toBe(kind);
        expect(typeof rule.tool).toBe('string');
        expect(rule.tool.length).toBeGreaterThan(0);
        expect(typeof rule.text).toBe('string');
        expect(rule.specifier).toBeTypeOf('object');
        // An allow rule never carries a tool-name glob outside mcp__server__.
        if (kind === 'allow' && rule.toolIsPattern) expect(rule.tool).toMatch(/^mcp__[^*]+__/);
        if (kind === 'allow') expect(rule.specifier.type).not.toBe('param');
      }),
      {
        numRuns: 1000,
        // Names every JavaScript object carries: a rule may spell them, and must still parse.
        examples: [
          ['toString', 'deny'],
          ['constructor', 'allow'],
          ['__proto__', 'ask'],
        ],
      },
    );
  });
});

describe('an MCP rule with an argument specifier (issue 19)', () => {
  it('is refused with a form that loads and does what was meant', async () => {
    const { policyFromText } = await import('../../src/policy/policy.js');
    const { decide } = await import('../../src/policy/decide.js');
    let message = '';
    try {
      parseRule('mcp__github__create_issue(repo:prod)', 'deny');
    } catch (err) {
      message = (err as RuleError).message;
    }
    const m = /write the rule "([^"]+)" with when: "([^"]+)"/.exec(message);
    expect(m, message).not.toBeNull();
    const [, rule, when] = m!;
    const policy = await policyFromText(`version: 1\nrules:\n  - deny: "${rule}"\n    when: "${when}"\n`);
    const call = (repo: string) => ({ tool: 'mcp__github__create_issue', input: { repo }, cwd: '/tmp' });
    expect(decide(call('prod'), policy).behavior).toBe('deny');
    expect(decide(call('dev'), policy).behavior).not.toBe('deny');
  });
});
