import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { opencodePlugin } from '../../src/adapters/opencode-plugin.js';
import { MAIN } from '../helpers/cli.js';

/**
 * The OpenCode plugin toolgate ships, loaded as opencode loads it (an ES module whose export is
 * called with `{directory}`) and run against the real toolgate CLI: its tool.execute.before gets
 * `input = {tool, sessionID, callID}` and `output.args` as opencode 1.18.33 passed them
 * (observed, ../shared/research/agents.md). A throw is opencode's block; returning lets it run.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-opencode-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));
process.env.TOOLGATE_MANAGED_POLICY = '';
process.env.TOOLGATE_LOG = '';
const TSX = path.resolve(import.meta.dirname, '..', '..', 'node_modules', 'tsx', 'dist', 'esm', 'index.mjs');
const toolgate = [process.execPath, '--import', TSX, MAIN];

type Before = (input: unknown, output: { args: Record<string, unknown> }) => Promise<void>;
async function load(name: string, text: string): Promise<Before> {
  const file = path.join(work, `${name}.mjs`);
  fs.writeFileSync(file, text);
  const mod = (await import(pathToFileURL(file).href)) as {
    Toolgate: (ctx: { directory: string }) => Promise<Record<string, Before>>;
  };
  const hooks = await mod.Toolgate({ directory: work });
  return hooks['tool.execute.before']!;
}
const call = (tool: string, args: Record<string, unknown>) => ({
  input: { tool, sessionID: 'ses_1', callID: 'call_1' },
  output: { args },
});

describe('the OpenCode plugin (opencodePlugin)', () => {
  it('throws the reason for a denied call, returns for an allowed one, and throws for an ask', async () => {
    const gate = await load('gate', opencodePlugin({ toolgate }));
    const denied = call('bash', { command: 'rm -rf ~', description: 'tidy' });
    await expect(gate(denied.input, denied.output)).rejects.toThrow(/^toolgate: /);
    const allowed = call('read', { filePath: path.join(work, 'x.txt') });
    await expect(gate(allowed.input, allowed.output)).resolves.toBeUndefined();
    const asked = call('bash', { command: 'touch marker', description: 'make' });
    await expect(gate(asked.input, asked.output)).rejects.toThrow(/a plugin cannot ask a person/);
  }, 120_000);

  it('fails closed: toolgate missing, or exiting non-zero, blocks the call', async () => {
    const missing = await load(
      'missing',
      opencodePlugin({ toolgate: [path.join(work, 'no-such-toolgate')] }),
    );
    const c = call('read', { filePath: path.join(work, 'x.txt') });
    await expect(missing(c.input, c.output)).rejects.toThrow(
      /toolgate blocked the call: toolgate could not start/,
    );
    const broken = path.join(work, 'broken.yaml');
    fs.writeFileSync(broken, 'version: 1\nrules:\n  - allow: "Bash("\n');
    const refusing = await load('refusing', opencodePlugin({ toolgate, hookArgs: ['--policy', broken] }));
    await expect(refusing(c.input, c.output)).rejects.toThrow(
      /toolgate blocked the call: .*policy was refused/,
    );
  }, 120_000);
});
