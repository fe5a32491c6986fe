import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { startProxyProcess } from '../adapters/fixtures/proxy-process.js';
import { runCli } from '../helpers/cli.js';

/**
 * Issue 19, Why bullet 12: "mcp-proxy has no handshake timeout". Through the real CLI: an agent
 * connects to `toolgate mcp-proxy` in front of a server that starts, reads its stdin and never
 * answers initialize. The proxy must give up within --handshake-timeout, say why, exit 1 and not
 * leave the server running; the agent's own connect fails rather than hanging.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-handshake-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

// Reads everything, answers nothing, and ignores its stdin closing: only a signal ends it.
const SILENT_SERVER = [
  process.execPath,
  '-e',
  `require('fs').writeFileSync(process.env.PID_FILE, String(process.pid));
   process.stdin.resume();
   setInterval(() => {}, 1000);`,
];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('toolgate mcp-proxy --handshake-timeout (issue 19)', () => {
  it('fails closed within the timeout when the server never answers the handshake, and says so', async () => {
    const pidFile = path.join(work, 'silent.pid');
    const started = Date.now();
    const proc = startProxyProcess(
      ['--name', 'silent', '--handshake-timeout', '1500', '--', ...SILENT_SERVER],
      {
        cwd: work,
        env: { PID_FILE: pidFile, TOOLGATE_LOG: '' },
      },
    );
    const agent = new Client({ name: 'agent', version: '1' });
    // The agent's initialize is never answered either: its connect ends when the proxy does.
    await expect(agent.connect(proc.transport)).rejects.toThrow();
    const code = await proc.exit;
    const seconds = (Date.now() - started) / 1000;
    expect(code).toBe(1);
    expect(proc.stderr()).toMatch(
      /toolgate mcp-proxy: the MCP server did not answer the handshake \(initialize\) within 1500 ms/,
    );
    // Before: no flag (exit 2), and the library default was a full minute. Loaded CI gets slack.
    expect(seconds).toBeGreaterThanOrEqual(1.5);
    expect(seconds).toBeLessThan(20);
    const pid = Number(fs.readFileSync(pidFile, 'utf8'));
    expect(alive(pid), 'the silent server was left running').toBe(false);
  }, 30_000);

  it('refuses a timeout that is not a whole number of milliseconds (exit 2), before starting anything', async () => {
    const marker = path.join(work, 'never.pid');
    for (const value of ['0', '1.5', '10s', '99999999999']) {
      const r = await runCli(
        ['mcp-proxy', '--name', 'x', `--handshake-timeout=${value}`, '--', ...SILENT_SERVER],
        {
          cwd: work,
          env: { PID_FILE: marker, TOOLGATE_LOG: '' },
        },
      );
      expect(r.code, value).toBe(2);
      expect(r.stderr, value).toMatch(
        /toolgate mcp-proxy: --handshake-timeout must be a whole number of milliseconds from 1 to 2147483647/,
      );
      expect(r.stderr, value).not.toMatch(/\n\s+at /);
    }
    expect(fs.existsSync(marker)).toBe(false);
  }, 60_000);

  it('is in --help', async () => {
    const r = await runCli(['mcp-proxy', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--handshake-timeout MS/);
  });
});
