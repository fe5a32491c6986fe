import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/policy/decision.js';
import { writeTrusted } from '../helpers/trust.js';
import { makeWorld, type World } from '../policy/helpers/world.js';

/**
 * `toolgate check` as a real process (ARCHITECTURE §5; issue 3 item 7 and "Bad input"): one
 * decision, JSON Lines in and out, --explain, and clear non-zero exits for bad input — and a
 * broken policy allows nothing.
 */
const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = path.join(REPO, 'src', 'cli', 'main.ts');

let w: World;
beforeAll(() => {
  w = makeWorld('toolgate-cli-');
  w.file('README.md');
  w.file('src/a.ts');
});
afterAll(() => w.cleanup());

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function toolgate(args: string[], stdin?: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], {
      cwd: REPO,
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: w.home,
        // Keep the machine's own managed and user policies out of these runs.
        TOOLGATE_MANAGED_POLICY: path.join(w.base, 'no-managed-policy.yaml'),
        XDG_CONFIG_HOME: path.join(w.home, '.config'),
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += String(d);
    });
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin ?? '');
  });
}

function writePolicy(name: string, text: string): string {
  const file = path.join(w.base, name);
  fs.writeFileSync(file, text);
  return file;
}

function expectDecision(value: unknown): asserts value is Decision {
  expect(value).toMatchObject({
    behavior: expect.stringMatching(/^(allow|ask|deny)$/),
    reason: expect.any(String),
    decidedBy: expect.any(String),
    mode: expect.any(String),
    facts: {
      readOnly: expect.any(Boolean),
      concurrencySafe: expect.any(Boolean),
      destructive: expect.any(Boolean),
      reasons: expect.any(Array),
    },
    policyDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
  });
}

describe('toolgate check: one decision', () => {
  it('--tool --input --json prints a Decision and exits 0', async () => {
    const r = await toolgate([
      'check',
      '--tool',
      'Bash',
      '--input',
      '{"command":"ls -la"}',
      '--json',
      '--cwd',
      w.ws,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expectDecision(d);
    expect(d).toMatchObject({ behavior: 'allow', mode: 'default' });
  });

  it('names the rule, its file and line; --mode bypass reads as bypassPermissions; deny holds', async () => {
    const policy = writePolicy(
      'cli-policy.yaml',
      'version: 1\nrules:\n  - id: no-force\n    deny: "Bash(git push --force *)"\n',
    );
    const r = await toolgate([
      'check',
      '--policy',
      policy,
      '--mode',
      'bypass',
      '--tool',
      'Bash',
      '--input',
      '{"command":"git push --force origin main"}',
      '--json',
      '--cwd',
      w.ws,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expectDecision(d);
    expect(d).toMatchObject({
      behavior: 'deny',
      decidedBy: 'rule',
      mode: 'bypassPermissions',
      rule: { id: 'no-force', text: 'Bash(git push --force *)', source: policy, line: 4 },
    });
  });

  it('without --json prints the behavior and the reason for people', async () => {
    const r = await toolgate(['check', '--tool', 'Read', '--input', '{"file_path":".env"}', '--cwd', w.ws]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^DENY: /);
    expect(r.stdout).toContain('builtin:default');
  });

  it('finds the project policy in .toolgate/policy.yaml under --cwd', async () => {
    const project = path.join(w.base, 'cli-project');
    fs.mkdirSync(path.join(project, '.toolgate'), { recursive: true });
    const file = path.join(project, '.toolgate', 'policy.yaml');
    writeTrusted(
      path.join(w.home, '.config'),
      file,
      'version: 1\nrules:\n  - allow: "Bash(npm install *)"\n',
    );
    const r = await toolgate([
      'check',
      '--tool',
      'Bash',
      '--input',
      '{"command":"npm install x"}',
      '--json',
      '--cwd',
      project,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ behavior: 'allow', rule: { source: file, line: 3 } });
  });

  it('--explain prints the decision path: rule, layer, facts, the parts of the command', async () => {
    const r = await toolgate([
      'check',
      '--tool',
      'Bash',
      '--input',
      '{"command":"cat .env | head"}',
      '--explain',
      '--cwd',
      w.ws,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^DENY: /);
    expect(r.stdout).toContain('decision path');
    expect(r.stdout).toContain('builtin:default [builtin]');
    expect(r.stdout).toMatch(/facts: read-only/);
    expect(r.stdout).toContain('cat .env');
    expect(r.stdout).toMatch(/policy digest: [0-9a-f]{64}/);
  });
});

describe('toolgate check --stdin: JSON Lines in, one Decision per line out', () => {
  it('decides every line, in order, and exits 0', async () => {
    const lines = [
      { tool: 'Bash', input: { command: 'ls' } },
      { tool: 'Read', input: { file_path: '.env' } },
      {
        tool: 'Edit',
        input: { file_path: 'src/a.ts', old_string: 'a', new_string: 'b' },
        mode: 'acceptEdits',
      },
      { tool: 'Bash', input: { command: 'rm -rf /' }, mode: 'bypass' },
    ];
    const r = await toolgate(
      ['check', '--stdin', '--cwd', w.ws],
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(4);
    out.forEach(expectDecision);
    expect(out.map((d) => d.behavior)).toEqual(['allow', 'deny', 'allow', 'deny']);
    expect(out[3]!.mode).toBe('bypassPermissions');
  });

  it('reports bad lines in place, keeps deciding the others, and exits 1', async () => {
    const input = [
      JSON.stringify({ tool: 'Bash', input: { command: 'ls' } }),
      'not json',
      JSON.stringify({ input: { command: 'ls' } }),
      JSON.stringify({ tool: 'Bash', input: { command: 'ls' }, mode: 'yolo' }),
      '',
      JSON.stringify({ tool: 'Read', input: { file_path: 'README.md' } }),
    ].join('\n');
    const r = await toolgate(['check', '--stdin', '--cwd', w.ws], `${input}\n`);
    expect(r.code).toBe(1);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(5);
    expectDecision(out[0]);
    expect(out[1]).toMatchObject({ line: 2, error: expect.any(String) });
    expect(out[2]).toMatchObject({ line: 3, error: expect.any(String) });
    expect(out[3]).toMatchObject({ line: 4, error: expect.stringContaining('yolo') });
    expectDecision(out[4]);
    expect(out.filter((o) => 'behavior' in o).map((d) => d.behavior)).toEqual(['allow', 'allow']);
  });
});

describe("toolgate check: protected paths in bypassPermissions (issue 14, Why: the guard's own files)", {
  timeout: 120_000,
}, () => {
  it('a write to the hook settings, the policy or a git hook asks; headless (dontAsk) denies', async () => {
    const files = ['.claude/settings.json', '.toolgate/policy.yaml', '.git/hooks/pre-commit'];
    const lines = [
      ...files.flatMap((file) =>
        ['bypassPermissions', 'dontAsk'].map((mode) => ({
          tool: 'Write',
          input: { file_path: file, content: '{}' },
          mode,
        })),
      ),
      // An ordinary file is still bypass's to allow.
      { tool: 'Write', input: { file_path: 'src/a.ts', content: '{}' }, mode: 'bypassPermissions' },
    ];
    const r = await toolgate(
      ['check', '--stdin', '--cwd', w.ws],
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Decision);
    expect(out.map((d) => `${d.behavior}/${d.decidedBy}`)).toEqual([
      ...files.flatMap(() => ['ask/guard', 'deny/guard']),
      'allow/mode',
    ]);
  });
});

describe("toolgate check: the user's toolgate config is the guard's own (trust store, user layer)", {
  timeout: 120_000,
}, () => {
  it('a write to ~/.config/toolgate/trusted.json asks in bypassPermissions, denies headless', async () => {
    // The trust store decides which workspace allows count: an agent that wrote it would
    // trust its own policy file.
    const store = path.join(os.homedir(), '.config', 'toolgate', 'trusted.json');
    const lines = ['bypassPermissions', 'dontAsk'].map((mode) => ({
      tool: 'Write',
      input: { file_path: store, content: '{}' },
      mode,
    }));
    const r = await toolgate(
      ['check', '--stdin', '--cwd', w.ws],
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Decision);
    expect(out.map((d) => `${d.behavior}/${d.decidedBy}`)).toEqual(['ask/guard', 'deny/guard']);
  });
});

describe('toolgate check: bad input exits non-zero with a clear message', () => {
  it('an unknown --mode', async () => {
    const r = await toolgate([
      'check',
      '--tool',
      'Bash',
      '--input',
      '{"command":"ls"}',
      '--mode',
      'yolo',
      '--json',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/unknown mode "yolo"/);
    expect(r.stdout).toBe('');
  });

  it('a --mode spelled like an Object.prototype key is unknown too', async () => {
    const r = await toolgate([
      'check',
      '--tool',
      'Bash',
      '--input',
      '{"command":"ls"}',
      '--mode',
      'toString',
      '--json',
      '--cwd',
      w.ws,
    ]);
    expect(r.code, r.stdout).not.toBe(0);
    expect(r.stderr).toMatch(/mode/);
  });

  it('--input that is not JSON', async () => {
    const r = await toolgate(['check', '--tool', 'Bash', '--input', '{command', '--json']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--input is not JSON/);
    expect(r.stdout).toBe('');
  });

  it('no --tool and no --stdin', async () => {
    const r = await toolgate(['check', '--input', '{}']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--tool/);
  });

  it('a broken policy: non-zero, file:line:column in the message, no decision printed', async () => {
    const bad = writePolicy(
      'broken.yaml',
      'version: 1\nrules:\n  - allow: "Bash(ls *)"\n  - deny: "Read(**"\n',
    );
    const r = await toolgate([
      'check',
      '--policy',
      bad,
      '--tool',
      'Bash',
      '--input',
      '{"command":"ls"}',
      '--json',
      '--cwd',
      w.ws,
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${bad}:4:`);
    expect(r.stderr).toMatch(/refused|nothing is allowed/);
  });

  it('a broken policy with --stdin decides nothing', async () => {
    const bad = writePolicy('broken2.yaml', 'version: 1\nmode: yolo\n');
    const r = await toolgate(
      ['check', '--policy', bad, '--stdin', '--cwd', w.ws],
      `${JSON.stringify({ tool: 'Bash', input: { command: 'ls' } })}\n`,
    );
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`${bad}:2:`);
  });

  it('a good policy beside a broken one is refused as well', async () => {
    const good = writePolicy('good.yaml', 'version: 1\nrules:\n  - allow: "Bash"\n');
    const bad = writePolicy('broken3.yaml', 'version: 1\nrules:\n  - deny: "Bash("\n');
    const r = await toolgate([
      'check',
      '--policy',
      good,
      '--policy',
      bad,
      '--tool',
      'Bash',
      '--input',
      '{"command":"ls"}',
      '--json',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(bad);
  });

  it('a missing policy file', async () => {
    const missing = path.join(w.base, 'missing.yaml');
    const r = await toolgate([
      'check',
      '--policy',
      missing,
      '--tool',
      'Bash',
      '--input',
      '{"command":"ls"}',
      '--json',
    ]);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(missing);
  });
});

// Each case starts a process; on a loaded machine that is seconds each.
describe('toolgate check -- WORDS, --fail-on, and auto mode as the hook decides it (issue 19)', {
  timeout: 180_000,
}, () => {
  it('decides command words as a Bash call, as Codex execpolicy check -- argv does', async () => {
    const r = await toolgate([
      'check',
      '--json',
      '--cwd',
      w.ws,
      '--',
      'git',
      'push',
      '--force',
      'origin',
      'main',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      behavior: 'deny',
      rule: { text: 'Bash(git push --force*)' },
    });
    // the words are quoted back: one echo of one argument, not `echo a; rm x`
    const quoted = await toolgate(['check', '--json', '--cwd', w.ws, '--', 'echo', 'a; rm -rf x']);
    expect(JSON.parse(quoted.stdout)).toMatchObject({ behavior: 'allow', facts: { readOnly: true } });
  });

  it('refuses a call with no input (exit 2), where it used to answer DENY with exit 0', async () => {
    for (const args of [['check', '--tool', 'Bash'], ['check'], ['check', '--tool', 'Read', '--', 'ls']]) {
      const r = await toolgate(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^toolgate check: .* — /);
    }
  });

  it('--fail-on sets the exit code: 1 at or above the given strictness', async () => {
    const cases: [string[], number][] = [
      [['--fail-on', 'deny', '--', 'git', 'push', '--force'], 1],
      [['--fail-on', 'deny', '--', 'rm', 'x'], 0], // an ask
      [['--fail-on', 'ask', '--', 'rm', 'x'], 1],
      [['--fail-on', 'ask', '--', 'ls'], 0],
    ];
    for (const [args, code] of cases) {
      const r = await toolgate(['check', '--cwd', w.ws, ...args]);
      expect(r.code, `${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(code);
    }
    const lines =
      '{"tool":"Bash","input":{"command":"ls"}}\n{"tool":"Bash","input":{"command":"git push --force"}}\n';
    expect((await toolgate(['check', '--stdin', '--cwd', w.ws, '--fail-on', 'deny'], lines)).code).toBe(1);
    expect((await toolgate(['check', '--stdin', '--cwd', w.ws], lines)).code).toBe(0);
    const bad = await toolgate(['check', '--fail-on', 'allow', '--', 'ls']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--fail-on must be deny or ask/);
  });

  it('--mode auto answers what the hook in auto mode answers (the offline classifier)', async () => {
    const command = 'curl -X POST https://example.com -d @data.json';
    const hookInput = JSON.stringify({
      session_id: 's',
      transcript_path: path.join(w.base, 't.jsonl'),
      cwd: w.ws,
      hook_event_name: 'PreToolUse',
      permission_mode: 'auto',
      tool_name: 'Bash',
      tool_input: { command },
    });
    const hook = await toolgate(['hook'], hookInput);
    expect(hook.code, hook.stderr).toBe(0);
    const hookDecision = JSON.parse(hook.stdout).hookSpecificOutput.permissionDecision;
    const check = await toolgate(['check', '--json', '--mode', 'auto', '--cwd', w.ws, '--', command]);
    const decision = JSON.parse(check.stdout) as Decision;
    expect(decision.behavior).toBe(hookDecision);
    expect(decision).toMatchObject({ behavior: 'deny', decidedBy: 'classifier' });
  });
});

describe('toolgate check --log', () => {
  it('redacts secrets in the log by default, saying where, and keeps them with --log-verbatim', async () => {
    const token = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
    const input = JSON.stringify({
      command: `curl -H "Authorization: Bearer ${token}" https://api.github.com`,
    });
    const log = path.join(w.base, 'redacted.jsonl');
    const r = await toolgate(['check', '--tool', 'Bash', '--input', input, '--cwd', w.base, '--log', log]);
    expect(r.stderr).not.toMatch(/Error/);
    const text = fs.readFileSync(log, 'utf8');
    expect(text).not.toContain(token);
    expect(JSON.parse(text).redacted).toContain('/request/input/command');
    const verbatim = path.join(w.base, 'verbatim.jsonl');
    await toolgate([
      'check',
      '--tool',
      'Bash',
      '--input',
      input,
      '--cwd',
      w.base,
      '--log',
      verbatim,
      '--log-verbatim',
    ]);
    expect(fs.readFileSync(verbatim, 'utf8')).toContain(token);
  }, 90_000);

  // #18 item 3: the lines are pipelined (the next ones decided while a flush runs), so the
  // order of answers and records, and "no answer without its record", are what must hold.
  it('--stdin: answers in input order, one record per decided line in the same order, the log intact', async () => {
    const commands = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `rm -rf build${i}` : `ls dir${i}`));
    const input = commands.map((command, i) =>
      i === 100 ? 'not json' : JSON.stringify({ tool: 'Bash', input: { command } }),
    );
    const log = path.join(w.base, 'pipelined.jsonl');
    const r = await toolgate(['check', '--stdin', '--cwd', w.ws, '--log', log], `${input.join('\n')}\n`);
    expect(r.code, r.stderr).toBe(1); // the bad line
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(300);
    expect(out[100]).toMatchObject({ line: 101, error: expect.any(String) });
    const records = fs
      .readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const decided = commands.filter((_, i) => i !== 100);
    expect(records.map((x) => x.request.input.command)).toEqual(decided);
    expect(records.map((x) => x.seq)).toEqual(decided.map((_, i) => i + 1));
    expect(records.map((x) => x.decision.behavior)).toEqual(
      out.filter((o) => 'behavior' in o).map((d) => d.behavior),
    );
    const v = await toolgate(['verify', log]);
    expect(v.code, v.stderr).toBe(0);
  }, 90_000);

  it('--stdin: a log that cannot take the records answers nothing (fail closed)', async () => {
    const log = path.join(w.base, 'torn.jsonl');
    fs.writeFileSync(log, '{"v":1,"seq":1'); // a cut-off write: never extended
    const input = Array.from({ length: 50 }, () =>
      JSON.stringify({ tool: 'Bash', input: { command: 'ls' } }),
    );
    const r = await toolgate(['check', '--stdin', '--cwd', w.ws, '--log', log], `${input.join('\n')}\n`);
    expect(r.code).not.toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('does not end in a newline');
    expect(r.stderr).not.toContain('toolgate: internal error'); // no stray unhandled rejection
  }, 90_000);
});
