import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ECHO_COMMAND, type ProxyProcess, startProxyProcess } from '../adapters/fixtures/proxy-process.js';
import { runCli } from '../helpers/cli.js';

/**
 * `toolgate mcp-proxy` as an agent runs it: a real SDK client speaking MCP over stdio to the
 * CLI (through tsx), which starts the real echo server as its own child. The echo server
 * records every call it receives and writes files for the tools that change things, so a
 * denied call is proven never to have arrived.
 */
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-cli-'));
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const POLICY = `version: 1
rules:
  - deny: mcp__echo__delete_repo
    reason: Repositories are deleted by people
  - allow: [mcp__echo__write_file, mcp__echo__get_status, mcp__echo__crash, mcp__echo__wait]
`;

interface Session {
  client: Client;
  proc: ProxyProcess;
  dir: string;
  log: string;
  calls: () => string[];
}

let n = 0;
async function session(extra: string[] = []): Promise<Session> {
  const dir = path.join(work, `s${++n}`);
  fs.mkdirSync(dir);
  const policy = path.join(dir, 'policy.yaml');
  fs.writeFileSync(policy, POLICY);
  const log = path.join(dir, 'decisions.jsonl');
  const proc = startProxyProcess(
    ['--name', 'echo', '--policy', policy, '--log', log, ...extra, '--', ...ECHO_COMMAND],
    { cwd: dir, env: { ECHO_MCP_DIR: dir, TOOLGATE_LOG: '' } },
  );
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(proc.transport);
  const calls = () => {
    const file = path.join(dir, 'calls.log');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
  };
  return { client, proc, dir, log, calls };
}

const textOf = (result: unknown) =>
  (result as { content: { type: string; text?: string }[] }).content
    .map((b) => b.text ?? `[${b.type}]`)
    .join('\n');

describe('toolgate mcp-proxy (default: asks are denied)', () => {
  let s: Session;
  beforeAll(async () => {
    s = await session();
  });
  afterAll(async () => {
    await s.client.close();
    await s.proc.exit;
  });

  it('lists the real tools except the one a deny rule removes', async () => {
    const names = (await s.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('delete_repo');
    expect(names).toEqual(expect.arrayContaining(['get_status', 'write_file', 'touch']));
  });

  it('denies with isError and the reason; the server never sees the call', async () => {
    const r = await s.client.callTool({ name: 'delete_repo', arguments: { name: 'prod' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/toolgate denied mcp__echo__delete_repo: .*Repositories are deleted by people/);
    expect(fs.existsSync(path.join(s.dir, 'deleted-prod'))).toBe(false);
    expect(s.calls()).not.toContain('delete_repo');
  });

  it('forwards an allowed call: it reaches the server and its result comes back', async () => {
    const r = await s.client.callTool({
      name: 'write_file',
      arguments: { path: 'hello.txt', content: 'hi there' },
    });
    expect(r).toEqual({ content: [{ type: 'text', text: 'wrote 8 bytes to hello.txt' }] });
    expect(fs.readFileSync(path.join(s.dir, 'hello.txt'), 'utf8')).toBe('hi there');
    expect(s.calls()).toContain('write_file');
  });

  it('denies what the policy would ask about (no one to ask)', async () => {
    const r = await s.client.callTool({ name: 'touch', arguments: { name: 'x' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/no one to ask/);
    expect(fs.existsSync(path.join(s.dir, 'touched-x'))).toBe(false);
    expect(s.calls()).not.toContain('touch');
  });

  it('passes resources and prompts through', async () => {
    const read = await s.client.readResource({ uri: 'echo://readme' });
    expect(read.contents[0]).toMatchObject({ text: 'Hello from echo' });
    const prompt = await s.client.getPrompt({ name: 'greet', arguments: { name: 'Ann' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello, Ann' });
  });

  it('writes every decision to a log that verifies', async () => {
    await s.client.callTool({ name: 'get_status', arguments: {} });
    const records = fs
      .readFileSync(s.log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { request: { tool: string }; decision: { behavior: string } });
    const calls = records.filter((r) => r.request.tool.startsWith('mcp__'));
    expect(calls.map((r) => [r.request.tool, r.decision.behavior])).toEqual([
      ['mcp__echo__delete_repo', 'deny'],
      ['mcp__echo__write_file', 'allow'],
      ['mcp__echo__touch', 'deny'],
      ['mcp__echo__get_status', 'allow'],
    ]);
    expect(records.some((r) => r.request.tool === 'ReadMcpResource')).toBe(true);
    const verify = await runCli(['verify', s.log]);
    expect(verify.code).toBe(0);
  });
});

describe('toolgate mcp-proxy --ask allow', () => {
  it('lets asks through but never a deny', async () => {
    const s = await session(['--ask', 'allow']);
    try {
      const ok = await s.client.callTool({ name: 'touch', arguments: { name: 'y' } });
      expect(ok.isError).toBeFalsy();
      expect(fs.existsSync(path.join(s.dir, 'touched-y'))).toBe(true);
      const no = await s.client.callTool({ name: 'delete_repo', arguments: { name: 'y' } });
      expect(no.isError).toBe(true);
      expect(fs.existsSync(path.join(s.dir, 'deleted-y'))).toBe(false);
    } finally {
      await s.client.close();
    }
    expect(await s.proc.exit).toBe(0);
  });
});

describe('toolgate mcp-proxy with when: conditions (node restarted for isolated-vm)', () => {
  it('keeps a conditionally denied tool listed and decides each call', async () => {
    const dir = path.join(work, 'conditions');
    fs.mkdirSync(dir);
    const policy = path.join(dir, 'policy.yaml');
    fs.writeFileSync(
      policy,
      [
        'version: 1',
        'rules:',
        '  - allow: mcp__echo__write_file',
        '  - deny: mcp__echo__write_file',
        '    when: "input.path.includes(\'secret\')"',
        '    reason: Secrets stay out of files',
        '',
      ].join('\n'),
    );
    const proc = startProxyProcess(['--name', 'echo', '--policy', policy, '--', ...ECHO_COMMAND], {
      cwd: dir,
      env: { ECHO_MCP_DIR: dir, TOOLGATE_LOG: '' },
    });
    const client = new Client({ name: 'agent', version: '1' });
    await client.connect(proc.transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('write_file');
      const no = await client.callTool({
        name: 'write_file',
        arguments: { path: 'secret.txt', content: 'k' },
      });
      expect(no.isError).toBe(true);
      expect(textOf(no)).toMatch(/Secrets stay out of files/);
      const ok = await client.callTool({ name: 'write_file', arguments: { path: 'ok.txt', content: 'k' } });
      expect(ok.isError).toBeFalsy();
      expect(fs.existsSync(path.join(dir, 'secret.txt'))).toBe(false);
      expect(fs.existsSync(path.join(dir, 'ok.txt'))).toBe(true);
    } finally {
      await client.close();
    }
    expect(await proc.exit).toBe(0);
  });
});

describe('toolgate mcp-proxy lifecycle', () => {
  it('exits 0 and stops the server when the agent hangs up', async () => {
    const s = await session();
    await s.client.listTools();
    await s.client.close();
    expect(await s.proc.exit).toBe(0);
    expect(fs.existsSync(path.join(s.dir, 'exited'))).toBe(true);
  });

  it('cancels the calls in flight at the real server when the agent hangs up, and exits 0 at once (#13)', async () => {
    const s = await session();
    void s.client.callTool({ name: 'wait', arguments: {} }).catch(() => undefined);
    await expect.poll(s.calls).toContain('wait');
    await s.client.close();
    // Before: the proxy waited for the call (here the tool's own minute; by default an hour).
    expect(await s.proc.exit).toBe(0);
    expect(s.calls()).toContain('wait cancelled');
  });

  it('reports an MCP error and exits non-zero when the server dies', async () => {
    const s = await session();
    await expect(s.client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(
      /MCP server behind toolgate exited|Connection closed/,
    );
    expect(await s.proc.exit).toBe(1);
    expect(s.proc.stderr()).toMatch(/MCP server behind toolgate exited/);
  });

  it('refuses to start on a broken policy (exit 2) and never starts the server', async () => {
    const dir = path.join(work, 'broken');
    fs.mkdirSync(dir);
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'version: 1\nrules:\n  - deny: "mcp__echo__x(y)"\n');
    const r = await runCli(['mcp-proxy', '--policy', bad, '--name', 'echo', '--', ...ECHO_COMMAND], {
      cwd: dir,
      env: { ECHO_MCP_DIR: dir },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.yaml:3:\d+/);
    expect(r.stderr).toMatch(/not started/);
    expect(r.stdout).toBe('');
    expect(fs.existsSync(path.join(dir, 'started'))).toBe(false);
  });

  it('says clearly when the server command does not exist (exit 1)', async () => {
    const r = await runCli(['mcp-proxy', '--name', 'x', '--', 'toolgate-no-such-mcp-server', '--flag']);
    expect(r.code).toBe(1);
    // A PATH entry this user cannot search (root's ~/.cargo/bin, run as another user) turns
    // the lookup's ENOENT into EACCES: either way the server could not be started.
    expect(r.stderr).toMatch(/could not be started: .*(ENOENT|EACCES).*toolgate-no-such-mcp-server/s);
  });

  it('names the server after the package it runs and says so; --name overrides (issue 19)', async () => {
    const dir = path.join(work, 'named');
    fs.mkdirSync(dir);
    // A refused policy stops it before anything starts: the name is said first.
    const bad = path.join(dir, 'bad.yaml');
    fs.writeFileSync(bad, 'version: 1\nmode: yolo\n');
    const launch = ['npx', '-y', '@modelcontextprotocol/server-filesystem', dir];
    const derived = await runCli(['mcp-proxy', '--policy', bad, '--', ...launch], { cwd: dir });
    expect(derived.code).toBe(2);
    expect(derived.stderr).toMatch(
      /guarding "filesystem": its tools are mcp__filesystem__<tool> in rules \(--name overrides\)/,
    );
    const named = await runCli(['mcp-proxy', '--policy', bad, '--name', 'fs', '--', ...launch], { cwd: dir });
    expect(named.stderr).toMatch(/guarding "fs": its tools are mcp__fs__<tool>/);
    const unknown = await runCli(['mcp-proxy', '--', 'node', 'build/index.js'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /cannot tell which server "node build\/index\.js" starts — give --name NAME/,
    );
  });

  it('refuses bad usage with exit 2', async () => {
    for (const args of [
      ['mcp-proxy'],
      ['mcp-proxy', 'node', 'server.js'],
      ['mcp-proxy', '--ask', 'maybe', '--', 'node'],
      ['mcp-proxy', '--name', 'a__b', '--', 'node'],
      ['mcp-proxy', '--mode', 'yolo', '--', 'node'],
      ['mcp-proxy', '--', '...'],
    ]) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/toolgate mcp-proxy: /);
    }
  });
});
