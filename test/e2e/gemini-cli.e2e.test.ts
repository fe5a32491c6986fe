import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { agentBinary } from './agent-bins.js';
import { geminiSession } from './gemini-session.js';
import type { ScriptedCall } from './model-servers.js';

/**
 * The real Gemini CLI (0.61.0, from npm), headless, against a loopback Gemini API that answers
 * with scripted run_shell_command calls, with `toolgate hook --agent gemini-cli` as its BeforeTool
 * hook. What must hold: denied calls never run, allowed ones do, an ask is denied instead of
 * hanging the run (it hung before), toolgate's reason reaches the model, and a toolgate that
 * cannot decide (a broken policy: exit 2) blocks the call.
 */
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const gemini = agentBinary('gemini');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-gemini-e2e-'));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

async function run(name: string, calls: ScriptedCall[], policy: string) {
  const ws = path.join(base, name, 'workspace');
  const home = path.join(base, name, 'home');
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(ws, 'victim.txt'), 'do not delete\n');
  const policyFile = path.join(base, name, 'policy.yaml');
  fs.writeFileSync(policyFile, policy);
  const hook = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} hook --agent gemini-cli --policy ${JSON.stringify(policyFile)}`;
  const { result, told } = await geminiSession(gemini.path!, ws, home, calls, {
    hooks: { BeforeTool: [{ matcher: '.*', hooks: [{ type: 'command', command: hook, timeout: 60000 }] }] },
    env: { TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed.yaml') },
  });
  return { ws, result, told };
}

const POLICY = 'version: 1\nrules:\n  - deny: "Bash(rm:*)"\n  - allow: "Bash(touch made.txt)"\n';

describe.skipIf(gemini.path === undefined)('Gemini CLI with toolgate as its BeforeTool hook', () => {
  it('runs the allowed call, not the denied one, denies an ask instead of hanging, and tells the model why', async () => {
    const { ws, result, told } = await run(
      'session',
      [
        { name: 'run_shell_command', args: { command: 'rm victim.txt' } },
        { name: 'run_shell_command', args: { command: 'touch made.txt' } },
        { name: 'run_shell_command', args: { command: 'echo x > asked.txt' } },
      ],
      POLICY,
    );
    expect(result.code, result.stderr.slice(-2000)).toBe(0);
    expect(fs.existsSync(path.join(ws, 'victim.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(true);
    expect(fs.existsSync(path.join(ws, 'asked.txt'))).toBe(false);
    const unique = told;
    expect(
      unique.some((t) => /toolgate: .*Bash\(rm:\*\)|toolgate: .*deny/.test(t)),
      unique.join('\n'),
    ).toBe(true);
    expect(
      unique.some((t) => /a person would have to approve it/.test(t)),
      unique.join('\n'),
    ).toBe(true);
  });

  it('blocks the call when toolgate cannot decide (a broken policy: exit 2)', async () => {
    const { ws, told } = await run(
      'broken',
      [{ name: 'run_shell_command', args: { command: 'touch made.txt' } }],
      'version: 1\nrules:\n  - allow: "Bash("\n',
    );
    expect(fs.existsSync(path.join(ws, 'made.txt'))).toBe(false);
    expect(told.join('\n')).toMatch(/policy was refused/);
  });
});
