import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as toolgate from '../../src/index.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

describe('toolgate as a library', () => {
  it('exports what ARCHITECTURE.md §5 promises, and runAgent', () => {
    for (const name of [
      'loadPolicy',
      'decide',
      'classifyBash',
      'buildTool',
      'runToolUse',
      'runTools',
      'StreamingToolExecutor',
      'builtinTools',
      'DecisionLog',
      'verifyLog',
      'replayLog',
      'runAgent',
      'createDecisionServer',
      'agentSdkGuard',
      'preToolUseHookFrom',
      'canUseToolFrom',
    ])
      expect(typeof (toolgate as Record<string, unknown>)[name], name).toBe('function');
  });

  it("the README's decide() example says what the README says it does", async () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const policyText =
      '\nversion: 1\nrules:\n  - deny: "Bash(git push *)"\n    reason: Pushes go through CI\n';
    expect(readme).toContain(`policyFromText(\`${policyText}\`)`);
    const policy = await toolgate.policyFromText(policyText);
    const d = toolgate.decide(
      { tool: 'Bash', input: { command: 'git status && git push origin main' }, cwd: '/work/repo' },
      policy,
    );
    expect(d.behavior).toBe('deny');
    expect(d.rule).toEqual({ text: 'Bash(git push *)', source: 'inline', line: 4 });
    expect(readme).toContain(`d.reason === '${d.reason}'`);
  });

  it('the package entry points at the built library and the CLI', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      exports: Record<string, unknown>;
    };
    expect(pkg.bin.toolgate).toBe('dist/cli/main.js');
    expect(JSON.stringify(pkg.exports['.'])).toContain('dist/index.js');
  });
});
