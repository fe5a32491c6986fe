import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { sarifErrors } from '../helpers/sarif-schema.js';
import { README, ROOT, readmeBlocks } from './blocks.js';
import type { Scratch } from './scratch.js';

/**
 * Every command line of the README's shell blocks, exactly as printed, with what running it
 * must show: what its comment and the prose around it claim. test/readme/shell.test.ts runs
 * each block's lines in order in one scratch directory (so a key made by one line is there for
 * the next); a line with no entry here fails test/readme/blocks.test.ts. `slow` lines (the
 * whole suite, a benchmark, a clean install) are not run here: their entry checks what it can
 * without running them, and says who runs them.
 */
export interface ShellLine {
  /** Prepares the scratch directory (once per block, however many lines ask for it). */
  readonly setup?: (s: Scratch) => unknown;
  /** Why the line is not run here, and who runs it. */
  readonly slow?: string;
  /** Where in the scratch directory the line runs (default: its top). */
  readonly cwd?: string;
  readonly run: (s: Scratch, line: string) => unknown;
}

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

/** The README's example policy (the yaml block under ## Policies), as a reader saves it. */
export function examplePolicy(): string {
  const at = README.indexOf('\n## Policies');
  const block = readmeBlocks().find((b) => b.lang === 'yaml' && README.indexOf(b.text) > at);
  if (block === undefined) throw new Error('no yaml block under ## Policies');
  return block.text;
}

const git = (s: Scratch, rel = '.') => fs.mkdirSync(path.join(s.dir, rel, '.git'), { recursive: true });

/** The README's example policy in a project whose workspace names ../shared-lib. */
const project = (s: Scratch) => {
  git(s, 'project');
  s.make('project', { '.toolgate/policy.yaml': examplePolicy(), 'src/app.ts': 'export {};\n' });
  s.make('shared-lib');
};

/** Logs of real decisions signed with a key made as the prose says, and the policies named. */
const audit = async (s: Scratch) => {
  git(s);
  await ok(s, 'openssl genpkey -algorithm ed25519 -out log-key.pem');
  await ok(s, 'openssl pkey -in log-key.pem -pubout -out log-key.pub');
  const check = (log: string, words: string) =>
    ok(s, `toolgate check --log ${log} --log-key log-key.pem -- ${words}`);
  for (const c of ['git status', 'git push origin main', 'terraform apply'])
    await check('decisions.jsonl', c);
  for (const log of ['fleet-logs/host-a.jsonl', 'fleet-logs/host-b.jsonl', 'host-x.jsonl'])
    await check(log, 'git push origin main');
  const policy = (rule: string) =>
    `version: 1\nextends: builtin:default\nrules:\n  - ${rule}: "Bash(git push *)"\n`;
  s.make('.', {
    'new-policy.yaml': policy('deny'),
    'old.yaml': policy('ask'),
    'new.yaml': policy('allow'),
    'policy.yaml': policy('ask'),
  });
};

const ok = async (s: Scratch, line: string, cwd?: string) => {
  const r = await s.sh(line, cwd === undefined ? {} : { cwd });
  expect(r.code, `${line}\n${r.stdout}${r.stderr}`).toBe(0);
  return r;
};

export const SHELL: Record<string, ShellLine> = {
  // the first screen
  'npm ci && npm start': {
    slow: 'a clean install; the first-screen run from a private clone is measured for issue 19',
    run: async (s) => {
      expect(pkg.scripts.start).toBe('npm run build && node dist/cli/main.js demo');
      // what npm start runs, from sources: the 32-call session whose log verifies at the end
      const r = await ok(s, 'toolgate demo');
      expect(r.stdout).toMatch(/^summary: 32 calls — /m);
      expect(r.stdout).toMatch(/^ {2}verify: intact, 32 records/m);
    },
  },
  'npm test': {
    slow: 'the whole suite; .ci/run runs it',
    run: () => {
      expect(pkg.scripts.test).toBe('vitest run');
      // "no network, no build needed": the e2e tests (which need a build) are not in it
      expect(fs.readFileSync(path.join(ROOT, 'vitest.config.ts'), 'utf8')).toContain(
        "exclude: ['test/e2e/**'",
      );
    },
  },

  // Claude Code, an http hook on a warm server (the request is sent in hook-config.test.ts)
  'toolgate serve --port 8787 --log .toolgate/decisions.jsonl': {
    run: () => {
      /* run, and sent the README's http hook request, by test/readme/hook-config.test.ts */
    },
  },

  // one command per agent
  ...Object.fromEntries(
    (
      [
        ['claude', '.claude/settings.json', ['PreToolUse', 'PermissionRequest', '"onFailure": "block"']],
        ['gemini', '.gemini/settings.json', ['BeforeTool']],
        ['codex', '.home/.codex/hooks.json', ['PreToolUse']],
        ['cursor', '.cursor/hooks.json', ['beforeShellExecution', '"failClosed": true']],
        ['copilot', '.github/hooks/toolgate.json', ['preToolUse']],
        ['opencode', '.opencode/plugin/toolgate.js', ['tool.execute.before']],
      ] as const
    ).map(([agent, file, says]) => [
      `toolgate init --agent ${agent}`,
      {
        setup: (s: Scratch) => git(s),
        run: async (s: Scratch, line: string) => {
          await ok(s, line);
          const text = fs.readFileSync(path.join(s.dir, file), 'utf8');
          for (const w of says) expect(text, file).toContain(w);
          expect(fs.existsSync(path.join(s.dir, '.toolgate', 'policy.yaml'))).toBe(true);
          // "a second run changes nothing"
          await ok(s, line);
          expect(fs.readFileSync(path.join(s.dir, file), 'utf8')).toBe(text);
        },
      } satisfies ShellLine,
    ]),
  ),

  // From the shell
  'toolgate check --tool Bash --input \'{"command":"cat .env | grep KEY"}\' --explain': {
    setup: git,
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toMatch(/^DENY: Denied by rule "Read\(\*\*\/\.env/);
      expect(r.stdout).toContain('decision path:');
    },
  },
  'toolgate check --fail-on deny -- git push --force origin main': {
    run: async (s, line) => {
      const r = await s.sh(line);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toMatch(/^DENY: .*git push --force origin main/);
    },
  },
  'toolgate classify \'find . -name "*.log" -exec rm {} +\'': {
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toMatch(/destructive: +yes/);
      expect(r.stdout).toContain('rm deletes {}');
    },
  },
  'echo \'{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}\' | toolgate exec': {
    run: async (s, line) => {
      const r = await ok(s, line);
      const results = r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(results).toHaveLength(1);
      expect(results[0]).toMatchObject({ type: 'tool_result', tool_use_id: 't1' });
    },
  },

  // Policy bundles
  'openssl genpkey -algorithm ed25519 -out bundle-key.pem && openssl pkey -in bundle-key.pem -pubout -out bundle-key.pub':
    {
      setup: (s) =>
        s.make('policies', {
          'policy.yaml': 'version: 1\nrules:\n  - deny: "Bash(terraform apply*)"\n',
          'team.yaml': 'version: 1\nrules:\n  - ask: "Bash(git push *)"\n',
        }),
      run: async (s, line) => {
        await ok(s, line);
        expect(fs.readFileSync(path.join(s.dir, 'bundle-key.pub'), 'utf8')).toMatch(
          /^-----BEGIN PUBLIC KEY-----/,
        );
      },
    },
  'toolgate bundle build policies/ -o fleet.bundle --key bundle-key.pem --name acme --version 42 --expires 30d':
    {
      run: async (s, line) => {
        const r = await ok(s, line);
        expect(r.stdout).toMatch(/acme@42, 2 file\(s\)/);
      },
    },
  'toolgate bundle verify fleet.bundle --public-key bundle-key.pub': {
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toMatch(/^fleet\.bundle: acme@42, signature verified, 2 file\(s\), /);
    },
  },

  // Test and lint them like code
  'toolgate test .toolgate/policy.yaml --min-coverage 80': {
    setup: project,
    cwd: 'project',
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toMatch(/\b0 failed\b/);
    },
  },
  'toolgate lint .toolgate/policy.yaml': {
    setup: project,
    cwd: 'project',
    run: async (s, line) => {
      // the README's example policy lints without an error
      await ok(s, line);
    },
  },
  'toolgate test': {
    setup: project,
    cwd: 'project',
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toMatch(/\(\d+ tests in \.toolgate\/policy\.yaml\)/);
    },
  },
  'toolgate lint . --format sarif > lint.sarif': {
    setup: project,
    cwd: 'project',
    run: async (s, line) => {
      await ok(s, line);
      expect(
        sarifErrors(JSON.parse(fs.readFileSync(path.join(s.dir, 'project', 'lint.sarif'), 'utf8'))),
      ).toEqual([]);
    },
  },

  // Decision logs for auditors
  'toolgate verify decisions.jsonl --public-key log-key.pub': {
    setup: audit,
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toMatch(/^decisions\.jsonl: intact, 3 record\(s\)/);
      expect(r.stdout).toMatch(/signature verified/);
    },
  },
  'toolgate replay decisions.jsonl --policy new-policy.yaml --fail-on loosen': {
    setup: audit,
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toContain('1 of 3 decision(s) would change: 0 loosen, 1 tighten.');
    },
  },
  'toolgate report decisions.jsonl --html report.html': {
    setup: audit,
    run: async (s, line) => {
      await ok(s, line);
      expect(fs.readFileSync(path.join(s.dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    },
  },
  'toolgate verify fleet-logs/ --public-key log-key.pub': {
    setup: audit,
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toContain('2 log(s): 2 intact');
    },
  },
  'toolgate replay fleet-logs/ host-x.jsonl --policy new-policy.yaml': {
    setup: audit,
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toMatch(/^3 log\(s\): 3 record\(s\), 3 of 3 decision\(s\) would change/m);
    },
  },
  'toolgate diff-policy old.yaml new.yaml --logs fleet-logs/ --fail-on loosen': {
    setup: audit,
    run: async (s, line) => {
      const r = await s.sh(line);
      // new.yaml allows the pushes old.yaml asked about: a loosening, so the gate fails
      expect(r.code, r.stderr).toBe(1);
      expect(r.stdout).toContain('2 of 2 decision(s) would change: 2 loosen, 0 tighten.');
    },
  },
  'toolgate report fleet-logs/ --policy policy.yaml --html fleet.html': {
    setup: audit,
    run: async (s, line) => {
      const r = await ok(s, line);
      expect(r.stdout).toContain('by log: fleet-logs/host-a.jsonl 1, fleet-logs/host-b.jsonl 1');
      expect(r.stdout).toMatch(/rule\(s\) never decided anything/);
    },
  },

  // Development
  'npm run test:e2e': {
    slow: 'needs the agents .ci/run installs; .ci/run runs it',
    run: () => expect(pkg.scripts['test:e2e']).toMatch(/vitest run --config vitest\.e2e\.config\.ts$/),
  },
  'npm run lint': {
    slow: 'biome over the tree; .ci/run runs it',
    run: () => expect(pkg.scripts.lint).toBe('biome check .'),
  },
  'npm run bench': {
    slow: 'minutes of benchmarks',
    run: () => expect(pkg.scripts.bench).toBe('npm run build && node scripts/bench.mjs'),
  },
  '.ci/run': {
    slow: 'the whole of CI',
    run: () => {
      const ci = fs.readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
      for (const step of ['npm ci', 'npm run build', 'npm run lint', 'npm test', 'vitest.e2e.config.ts'])
        expect(ci).toContain(step);
      expect(fs.statSync(path.join(ROOT, '.ci', 'run')).mode & 0o111).not.toBe(0);
    },
  },
};
