import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { toolgatePolicySchema } from '../../src/policy/schema.js';
import { runProcess } from '../helpers/cli.js';
import { ROOT, readmeBlocks } from './blocks.js';

/**
 * The README's TypeScript is the library's: each block that imports 'toolgate' type-checks
 * against src/index.ts with the project's compiler options, and the one that needs no model
 * (decide) runs, its `// d.x === value` comments asserted. A catalogue entry is the one in the
 * source file the README names; the managed bundle file passes the policy schema.
 */
const blocks = readmeBlocks().filter((b) => b.notATest === undefined);
const library = blocks.filter((b) => b.lang === 'ts' && /from 'toolgate'/.test(b.text));

// The Agent SDK is not a dependency: its real types where .ci/run installed it for the e2e
// tests, else typed loosely, so that the toolgate half of that block is still checked.
const AGENT_SDK = path.join(
  process.env.TOOLGATE_E2E_AGENTS_CACHE ?? path.join(os.homedir(), '.cache', 'toolgate-e2e-agents'),
  'sdk',
  'node_modules',
  '@anthropic-ai',
  'claude-agent-sdk',
);

/** Type errors of each block (by README line), all checked in one program (one ~30 s load of src). */
function typeErrors(code: { line: number; text: string }[]): Map<number, string[]> {
  const dir = fs.mkdtempSync(path.join(ROOT, 'test', 'readme', '.check-'));
  try {
    const files = code.map((b) => {
      const file = path.join(dir, `block-${b.line}.ts`);
      fs.writeFileSync(file, `${b.text}\nexport {};\n`);
      return { line: b.line, file };
    });
    const shim = path.join(dir, 'agent-sdk.d.ts');
    fs.writeFileSync(shim, "declare module '@anthropic-ai/claude-agent-sdk' { export const query: any; }\n");
    const sdk = fs.existsSync(path.join(AGENT_SDK, 'sdk.d.ts'));
    const options: ts.CompilerOptions = {
      ...ts.convertCompilerOptionsFromJson(
        JSON.parse(fs.readFileSync(path.join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions,
        ROOT,
      ).options,
      noEmit: true,
      baseUrl: ROOT,
      paths: {
        toolgate: ['src/index.ts'],
        ...(sdk && { '@anthropic-ai/claude-agent-sdk': [path.join(AGENT_SDK, 'sdk.d.ts')] }),
      },
    };
    const roots = files.map((f) => f.file);
    const program = ts.createProgram(sdk ? roots : [...roots, shim], options);
    const all = ts.getPreEmitDiagnostics(program);
    return new Map(
      files.map((f) => [
        f.line,
        all
          .filter((d) => d.file?.fileName === f.file || d.file === undefined)
          .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
      ]),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `// a === b; c is { ... }` comments after the code, as assertions. */
function assertionsOf(code: string): string[] {
  return code
    .split('\n')
    .filter((l) => l.startsWith('// '))
    .flatMap((l) => l.slice(3).split(/; (?=\w+\.\w+ (?:===|is) )/))
    .map((claim) => {
      const eq = /^(\S+) === (.+)$/.exec(claim);
      if (eq) return `assert.deepStrictEqual(${eq[1]}, ${eq[2]});`;
      const is = /^(\S+) is (\{.+\})$/.exec(claim);
      if (is)
        return `{ const want = ${is[2]}; assert.deepStrictEqual(Object.fromEntries(Object.keys(want).map((k) => [k, ${is[1]}[k]])), want); }`;
      throw new Error(`a README comment that is no claim: ${claim}`);
    });
}

describe('README TypeScript that uses the library', { timeout: 180_000 }, () => {
  it('each block type-checks against the library', () => {
    const errors = typeErrors(library);
    expect(errors.size).toBe(library.length);
    for (const [line, list] of errors) expect(list, `README.md:${line}`).toEqual([]);
  });

  it('a block that needs no model runs, and its comments hold', async () => {
    const runnable = library.filter((b) => !/new Anthropic\(|query\(/.test(b.text));
    expect(runnable.length).toBeGreaterThan(0);
    for (const b of runnable) {
      const checks = assertionsOf(b.text);
      expect(checks.length, `README.md:${b.line} claims nothing`).toBeGreaterThan(0);
      const dir = fs.mkdtempSync(path.join(ROOT, 'test', 'readme', '.run-'));
      try {
        const file = path.join(dir, 'block.ts');
        const code = b.text.replace(
          /from 'toolgate'/g,
          `from ${JSON.stringify(path.join(ROOT, 'src', 'index.ts'))}`,
        );
        fs.writeFileSync(
          file,
          `import assert from 'node:assert';\n${code}\n${checks.join('\n')}\nconsole.log('ok');\n`,
        );
        const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
        const r = await runProcess(process.execPath, ['--no-node-snapshot', '--import', tsx, file], {
          cwd: ROOT,
          env: process.env,
          killAfterMs: 60_000,
        });
        expect(r.stderr + r.stdout).toBe('ok\n');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  });

  it('assertionsOf turns a false comment into a failing assertion', () => {
    expect(assertionsOf("// d.behavior === 'deny'; d.rule is { line: 4 }")).toEqual([
      "assert.deepStrictEqual(d.behavior, 'deny');",
      expect.stringContaining('const want = { line: 4 }'),
    ]);
  });
});

describe('README catalogue entries', () => {
  const entries = blocks.filter((b) => b.lang === 'ts' && /: CatalogueEntry = \{/.test(b.text));
  it.each(entries.map((b) => [b.line, b] as const))(
    'README.md:%i is the entry in the file it names',
    (_l, b) => {
      const prose = b.before.match(/`(src\/bash\/catalogue\/[\w/.-]+\.ts)`/);
      expect(prose, 'the prose names its source file').not.toBeNull();
      const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
      expect(flat(fs.readFileSync(path.join(ROOT, prose![1]!), 'utf8'))).toContain(flat(b.text));
    },
  );
});

describe('README managed files', () => {
  const managed = blocks.filter((b) => b.lang === 'yaml' && /^bundle:/m.test(b.text));
  it.each(managed.map((b) => [b.line, b] as const))('README.md:%i passes the policy schema', (_l, b) => {
    const parsed = toolgatePolicySchema.safeParse(YAML.parse(b.text));
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });
});
