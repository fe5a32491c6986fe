/**
 * OTLP export runs on a thread of its own (src/export/threaded.ts): the thread that decides
 * never loads OpenTelemetry. Checked on the built `toolgate hook --log --otlp` (hook.cjs is
 * CommonJS, so every require of the main thread passes Module._load, which a preload watches;
 * worker threads are not watched), exporting to a loopback OTLP receiver: the records arrive,
 * so the SDK did run, elsewhere.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli.js';
import { startReceiver } from '../helpers/otlp-receiver.js';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-otlp-thread-')));
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

it('the deciding thread of hook --log --otlp loads no @opentelemetry module; the export arrives', async () => {
  if (!fs.existsSync(CLI)) throw new Error(`build first (npm run build): ${CLI} is missing`);
  const seen = path.join(base, 'main-thread-requires.txt');
  const preload = path.join(base, 'watch.cjs');
  fs.writeFileSync(
    preload,
    `const { isMainThread } = require('node:worker_threads');
if (isMainThread) {
  const Module = require('node:module');
  const fs = require('node:fs');
  const load = Module._load;
  Module._load = function (request, ...rest) {
    fs.appendFileSync(${JSON.stringify(seen)}, request + '\\n');
    return load.call(this, request, ...rest);
  };
}
`,
  );
  const receiver = await startReceiver();
  try {
    const ws = path.join(base, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    const log = path.join(base, 'decisions.jsonl');
    // Not spawnSync: the receiver answers from this process's event loop.
    const r = await runProcess(
      process.execPath,
      ['--require', preload, CLI, 'hook', '--log', log, '--otlp', receiver.url],
      {
        cwd: ws,
        stdin: JSON.stringify({
          session_id: 's1',
          hook_event_name: 'PreToolUse',
          tool_name: 'Bash',
          tool_input: { command: 'git status' },
          cwd: ws,
          permission_mode: 'default',
        }),
        env: {
          PATH: process.env.PATH,
          HOME: path.join(base, 'home'),
          XDG_CACHE_HOME: path.join(base, 'cache'),
          TOOLGATE_MANAGED_POLICY: path.join(base, 'no-managed.yaml'),
        },
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/permissionDecision/);
    const requires = fs.readFileSync(seen, 'utf8').split('\n');
    // The watch works: the main thread's own requires are seen (the hook bundle, node:crypto for --log).
    expect(requires).toContain('node:crypto');
    expect(requires.filter((m) => m.includes('opentelemetry'))).toEqual([]);
    expect(receiver.requests.join('')).toContain('toolgate.tool_decision');
  } finally {
    await receiver.close();
  }
});
