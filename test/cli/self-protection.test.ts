import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Decision } from '../../src/policy/decision.js';
import { runCli } from '../helpers/cli.js';
import { makeWorld, type World } from '../policy/helpers/world.js';

/**
 * Issue 14 item 7, through the real `toolgate check`: toolgate's own files — wherever this run
 * keeps them (a --log outside the workspace, its lock and checkpoint, the signing key, a trust
 * store under $XDG_CONFIG_HOME, a --policy file) — and the other agents' hook files are
 * protected in every mode: bypassPermissions asks, dontAsk (no one to answer) denies. Bash
 * reaches them through what the classifier reports a command writes or deletes, not its name.
 */
let w: World;
let log: string;
let key: string;
let policy: string;
let configHome: string;

beforeAll(() => {
  w = makeWorld('toolgate-own-');
  w.file('src/a.ts');
  log = path.join(w.base, 'logs', 'decisions.jsonl');
  key = path.join(w.base, 'keys', 'log.key');
  fs.mkdirSync(path.dirname(key));
  const { privateKey } = crypto.generateKeyPairSync('ed25519');
  fs.writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  policy = w.file(path.join(w.base, 'policies', 'team.yaml'), 'version: 1\n');
  configHome = path.join(w.base, 'xdg-config');
});
afterAll(() => w.cleanup());

async function decideAll(
  calls: readonly { tool: string; input: Record<string, unknown> }[],
  mode: string,
): Promise<Decision[]> {
  const lines = calls.map((c) => JSON.stringify({ ...c, mode })).join('\n');
  const r = await runCli(
    ['check', '--stdin', '--cwd', w.ws, '--policy', policy, '--log', log, '--log-key', key],
    {
      stdin: `${lines}\n`,
      env: {
        HOME: w.home,
        XDG_CONFIG_HOME: configHome,
        XDG_CACHE_HOME: path.join(w.base, 'xdg-cache'),
        TOOLGATE_MANAGED_POLICY: path.join(w.base, 'no-managed.yaml'),
      },
    },
  );
  expect(r.code, r.stderr).toBe(0);
  return r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Decision);
}

const bash = (command: string) => ({ tool: 'Bash', input: { command } });

describe("toolgate check: toolgate's own files are protected in every mode (issue 14 item 7)", {
  timeout: 120_000,
}, () => {
  const own = () => [
    { tool: 'Write', input: { file_path: log, content: '' } },
    { tool: 'Edit', input: { file_path: `${log}.checkpoint`, old_string: 'a', new_string: 'b' } },
    { tool: 'Write', input: { file_path: key, content: 'mine' } },
    { tool: 'Write', input: { file_path: path.join(configHome, 'toolgate', 'trusted.json'), content: '{}' } },
    { tool: 'Write', input: { file_path: policy, content: 'version: 1\nmode: bypassPermissions\n' } },
    bash(`truncate -s0 ${log}`),
    bash(`: > ${log}`),
    bash(`rm -f ${log}.lock`),
    bash(`sed -i 1d ${log}`),
    bash(`mv ${log}.checkpoint /tmp/elsewhere`),
    bash(`cp /dev/null ${key}`),
    // Deleting or moving the directory that holds the log takes the log along.
    bash(`rm -rf ${path.dirname(log)}`),
    bash(`mv ${path.dirname(log)} ${w.base}/old-logs`),
    // The other agents' hook files (Gemini, Cursor, Codex, Copilot, OpenCode).
    { tool: 'Write', input: { file_path: '.gemini/settings.json', content: '{}' } },
    bash('echo {} > .cursor/hooks.json'),
    bash('rm .github/hooks/guard.json'),
    { tool: 'Write', input: { file_path: 'opencode.json', content: '{}' } },
    { tool: 'Write', input: { file_path: path.join(w.home, '.codex', 'hooks.json'), content: '{}' } },
  ];

  it('bypassPermissions asks for each', async () => {
    const out = await decideAll(own(), 'bypassPermissions');
    expect(out.map((d, i) => `${i} ${d.behavior}/${d.decidedBy}`)).toEqual(
      own().map((_, i) => `${i} ask/guard`),
    );
    expect(out[0]!.reason).toContain('the decision log');
    expect(out[2]!.reason).toContain('signing key');
  });

  it('dontAsk denies each', async () => {
    const out = await decideAll(own(), 'dontAsk');
    expect(out.map((d, i) => `${i} ${d.behavior}/${d.decidedBy}`)).toEqual(
      own().map((_, i) => `${i} deny/guard`),
    );
  });

  it('what is not toolgate’s stays bypass’s to allow (a file beside the log, reading the log)', async () => {
    const out = await decideAll(
      [
        { tool: 'Write', input: { file_path: path.join(w.base, 'logs-other.jsonl'), content: '' } },
        bash(`cat ${log} | wc -l`),
        bash('rm -rf src'),
        { tool: 'Write', input: { file_path: 'src/a.ts', content: '' } },
      ],
      'bypassPermissions',
    );
    expect(out.map((d) => `${d.behavior}/${d.decidedBy}`)).toEqual([
      'allow/mode',
      'allow/mode',
      'allow/mode',
      'allow/mode',
    ]);
  });
});
