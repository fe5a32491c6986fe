import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type McpProxy, startMcpProxy } from '../../src/adapters/mcp-proxy.js';
import type { Entry } from '../../src/audit/entry.js';
import { policyFromText } from '../../src/policy/policy.js';
import { createEchoServer } from './fixtures/echo-server.js';

/**
 * The proxy as a library, with real SDK clients and servers linked in memory: what is listed,
 * what is decided, what reaches the real server, and what is passed through untouched.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Setup {
  client: Client;
  proxy: McpProxy;
  dir: string;
  log: Entry[];
  calls: () => string[];
}

async function proxied(
  rules: string,
  opts: {
    ask?: 'deny' | 'allow';
    mode?: 'plan' | 'default';
    log?: { append(e: Entry): Promise<unknown> };
  } = {},
): Promise<Setup> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-proxy-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const policy = await policyFromText(`version: 1\nrules:${rules === '' ? ' []' : `\n${rules}`}`, {
    root: dir,
  });
  const echo = createEchoServer({ dir });
  const [up, echoSide] = InMemoryTransport.createLinkedPair();
  await echo.connect(echoSide);
  const [agentSide, down] = InMemoryTransport.createLinkedPair();
  const log: Entry[] = [];
  const proxy = await startMcpProxy(down, {
    upstream: up,
    serverName: 'echo',
    policy,
    cwd: dir,
    ...(opts.ask ? { ask: opts.ask } : {}),
    ...(opts.mode ? { mode: opts.mode } : {}),
    decisionLog: opts.log ?? { append: async (e: Entry) => log.push(e) },
  });
  const client = new Client({ name: 'agent', version: '1' });
  await client.connect(agentSide);
  cleanups.push(async () => {
    await client.close();
    await proxy.close();
  });
  const calls = () => {
    const file = path.join(dir, 'calls.log');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
  };
  return { client, proxy, dir, log, calls };
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
const textOf = (result: unknown) =>
  (result as { content: { type: string; text?: string }[] }).content
    .map((b) => b.text ?? `[${b.type}]`)
    .join('\n');

describe('tools/list', () => {
  it('hides tools a deny rule removes entirely and keeps the rest', async () => {
    const { client } = await proxied('  - deny: mcp__echo__delete_repo\n  - deny: mcp__echo__notes_*\n');
    const listed = await names(client);
    expect(listed).not.toContain('delete_repo');
    expect(listed).not.toContain('notes.append');
    expect(listed).toEqual(expect.arrayContaining(['get_status', 'write_file', 'touch', 'fail']));
  });

  it('hides everything for a bare server deny, mcp__* or *', async () => {
    for (const rule of ['mcp__echo', 'mcp__*', '*', 'mcp__echo__*']) {
      const { client } = await proxied(`  - deny: "${rule}"\n`);
      expect(await names(client), rule).toEqual([]);
    }
  });

  it('keeps tools that are denied only for some inputs, or by rules for other servers', async () => {
    const { client } = await proxied(
      [
        '  - deny: "*(content:*password*)"',
        '  - deny: mcp__echo__touch',
        '    when: "input.name === \'x\'"',
        '  - deny: [mcp__other, mcp__echox, Bash]',
        '',
      ].join('\n'),
    );
    const listed = await names(client);
    expect(listed).toContain('write_file');
    expect(listed).toContain('touch');
    expect(listed).toContain('delete_repo');
  });

  it('passes the real tool definitions through (schema, annotations, description)', async () => {
    const { client } = await proxied('  - allow: mcp__echo\n');
    const status = (await client.listTools()).tools.find((t) => t.name === 'get_status');
    expect(status?.annotations?.readOnlyHint).toBe(true);
    expect(status?.description).toBe('Reports the status of the service');
    const write = (await client.listTools()).tools.find((t) => t.name === 'write_file');
    expect(write?.inputSchema.required).toEqual(['path', 'content']);
  });
});

describe('tools/call', () => {
  it('denies with an isError result carrying the reason; the server never sees the call', async () => {
    const { client, dir, calls } = await proxied(
      '  - deny: mcp__echo__delete_repo\n    reason: Repositories are deleted by people\n',
    );
    const result = await client.callTool({ name: 'delete_repo', arguments: { name: 'prod' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(
      /^toolgate denied mcp__echo__delete_repo: .*Repositories are deleted by people/,
    );
    expect(fs.existsSync(path.join(dir, 'deleted-prod'))).toBe(false);
    expect(calls()).toEqual([]);
  });

  it('forwards an allowed call and returns the real result unchanged', async () => {
    const { client, dir, calls } = await proxied('  - allow: mcp__echo__write_file\n');
    const result = await client.callTool({
      name: 'write_file',
      arguments: { path: 'a.txt', content: 'hello' },
    });
    expect(result).toEqual({ content: [{ type: 'text', text: 'wrote 5 bytes to a.txt' }] });
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('hello');
    expect(calls()).toEqual(['write_file']);
  });

  it("returns the server's own error results and rich content as they came", async () => {
    const { client } = await proxied('  - allow: [mcp__echo__fail, mcp__echo__picture]\n');
    const failed = await client.callTool({ name: 'fail', arguments: {} });
    expect(failed).toEqual({ content: [{ type: 'text', text: 'it broke' }], isError: true });
    const picture = await client.callTool({ name: 'picture', arguments: {} });
    expect((picture.content as { type: string }[]).map((b) => b.type)).toEqual([
      'text',
      'image',
      'resource',
      'resource_link',
      'audio',
    ]);
  });

  it('denies a call the policy would ask about, unless started with ask: allow', async () => {
    const denied = await proxied('  - allow: mcp__echo__get_status\n');
    const r = await denied.client.callTool({ name: 'touch', arguments: { name: 'a' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/no one to ask/);
    expect(denied.calls()).toEqual([]);
    expect(denied.log.map((e) => e.decision.behavior)).toEqual(['deny']);

    const allowed = await proxied('  - deny: mcp__echo__delete_repo\n', { ask: 'allow' });
    const ok = await allowed.client.callTool({ name: 'touch', arguments: { name: 'a' } });
    expect(ok.isError).toBeFalsy();
    expect(fs.existsSync(path.join(allowed.dir, 'touched-a'))).toBe(true);
    // Deny rules hold whatever --ask says.
    const no = await allowed.client.callTool({ name: 'delete_repo', arguments: { name: 'a' } });
    expect(no.isError).toBe(true);
    expect(allowed.calls()).toEqual(['touch']);
  });

  it('decides hidden tools too: calling one by name is denied', async () => {
    const { client, calls } = await proxied('  - deny: mcp__echo\n');
    const r = await client.callTool({ name: 'get_status', arguments: {} });
    expect(r.isError).toBe(true);
    expect(calls()).toEqual([]);
  });

  it('decides with the arguments as input (parameter rules see them)', async () => {
    const { client, calls } = await proxied(
      '  - allow: mcp__echo__write_file\n  - deny: "*(content:*password*)"\n    reason: No secrets in files\n',
    );
    const bad = await client.callTool({
      name: 'write_file',
      arguments: { path: 'p', content: 'my password' },
    });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toMatch(/No secrets in files/);
    const good = await client.callTool({ name: 'write_file', arguments: { path: 'p', content: 'fine' } });
    expect(good.isError).toBeFalsy();
    expect(calls()).toEqual(['write_file']);
  });

  it('decides dotted tool names under their normalized name', async () => {
    const { client, calls } = await proxied('  - allow: mcp__echo__notes_append\n');
    const r = await client.callTool({ name: 'notes.append', arguments: { note: 'x' } });
    expect(r.isError).toBeFalsy();
    expect(calls()).toEqual(['notes.append']);
  });

  it('honours the mode: plan denies what is not read-only even with an allow rule', async () => {
    const { client, calls } = await proxied('  - allow: mcp__echo\n', { mode: 'plan' });
    const r = await client.callTool({ name: 'touch', arguments: { name: 'a' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/plan mode/);
    expect(calls()).toEqual([]);
  });

  it('logs every decision with the full tool name and the arguments', async () => {
    const { client, log } = await proxied(
      '  - allow: mcp__echo__write_file\n  - deny: mcp__echo__delete_repo\n',
    );
    await client.callTool({ name: 'write_file', arguments: { path: 'a', content: 'b' } });
    await client.callTool({ name: 'delete_repo', arguments: { name: 'r' } });
    await client.callTool({ name: 'touch', arguments: { name: 't' } });
    expect(log.map((e) => [e.request.tool, e.decision.behavior])).toEqual([
      ['mcp__echo__write_file', 'allow'],
      ['mcp__echo__delete_repo', 'deny'],
      ['mcp__echo__touch', 'deny'],
    ]);
    expect(log[0]!.request.input).toEqual({ path: 'a', content: 'b' });
    expect(log[1]!.decision.rule?.text).toBe('mcp__echo__delete_repo');
  });

  it('does not forward a call whose decision cannot be logged', async () => {
    const { client, calls } = await proxied('  - allow: mcp__echo__touch\n', {
      log: { append: async () => Promise.reject(new Error('disk full')) },
    });
    const r = await client.callTool({ name: 'touch', arguments: { name: 'a' } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/could not record .*disk full/);
    expect(calls()).toEqual([]);
  });
});

describe('everything else is passed through', () => {
  it('resources and prompts', async () => {
    const { client } = await proxied('');
    expect((await client.listResources()).resources.map((r) => r.uri).sort()).toEqual([
      'echo://readme',
      'echo://secret',
    ]);
    expect(await client.readResource({ uri: 'echo://readme' })).toEqual({
      contents: [{ uri: 'echo://readme', mimeType: 'text/plain', text: 'Hello from echo' }],
    });
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['greet']);
    const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Bo' } });
    expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Hello, Bo' });
    expect(client.getInstructions()).toBe('A test server: echoes, writes markers.');
    expect(client.getServerVersion()).toMatchObject({ name: 'echo-fixture', version: '1.2.3' });
  });

  it('decides resource reads as ReadMcpResource {server, uri}', async () => {
    const { client, log } = await proxied('  - deny: "ReadMcpResource(uri:echo://secret)"\n');
    await expect(client.readResource({ uri: 'echo://secret' })).rejects.toThrow(
      /toolgate denied ReadMcpResource/,
    );
    await client.readResource({ uri: 'echo://readme' });
    expect(log.map((e) => [e.request.tool, e.request.input, e.decision.behavior])).toEqual([
      ['ReadMcpResource', { server: 'echo', uri: 'echo://secret' }, 'deny'],
      ['ReadMcpResource', { server: 'echo', uri: 'echo://readme' }, 'allow'],
    ]);
  });

  it('log messages, list changes and progress', async () => {
    const { client } = await proxied('  - allow: mcp__echo\n');
    const logged: unknown[] = [];
    const changed: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logged.push(n.params.data));
    client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void changed.push(n.method));
    await client.callTool({ name: 'get_status', arguments: {} });
    expect(logged).toEqual(['status was read']);

    await client.callTool({ name: 'add_tool', arguments: {} });
    await expect.poll(() => changed.length).toBeGreaterThan(0);
    expect(await names(client)).toContain('late_tool');

    const progress: number[] = [];
    const r = await client.callTool({ name: 'count', arguments: { n: 3 } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(textOf(r)).toBe('counted to 3');
    expect(progress).toEqual([1, 2, 3]);
  });
});

describe('cancellation reaches the real server (#13)', () => {
  it('notifications/cancelled from the agent cancels the upstream call', async () => {
    const { client, calls } = await proxied('  - allow: mcp__echo\n');
    const abort = new AbortController();
    const call = client.callTool({ name: 'wait', arguments: {} }, undefined, { signal: abort.signal });
    await expect.poll(calls).toContain('wait');
    abort.abort('not needed any more');
    await expect(call).rejects.toThrow();
    await expect.poll(calls).toContain('wait cancelled');
  });

  it('the agent leaving cancels the upstream calls in flight; the proxy ends at once, by: client', async () => {
    const { client, proxy, calls } = await proxied('  - allow: mcp__echo\n');
    void client.callTool({ name: 'wait', arguments: {} }).catch(() => undefined);
    await expect.poll(calls).toContain('wait');
    const started = Date.now();
    await client.close();
    expect(await proxy.done).toEqual({ by: 'client' });
    expect(calls()).toContain('wait cancelled');
    // Well under the tool's own minute: the proxy did not wait for the call to finish.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('close() cancels the upstream calls in flight too', async () => {
    const { client, proxy, calls } = await proxied('  - allow: mcp__echo\n');
    const call = client.callTool({ name: 'wait', arguments: {} });
    const refused = expect(call).rejects.toThrow(/the agent left the MCP proxy|closed/);
    await expect.poll(calls).toContain('wait');
    await proxy.close();
    await refused;
    expect(calls()).toContain('wait cancelled');
  });
});

describe('when the real server goes away', () => {
  it('answers with an MCP error and ends with by: server', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-proxy-'));
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const [up, echoSide] = InMemoryTransport.createLinkedPair();
    const echo = createEchoServer({ dir, onCrash: () => void echoSide.close() });
    await echo.connect(echoSide);
    const [agentSide, down] = InMemoryTransport.createLinkedPair();
    const policy = await policyFromText('version: 1\nrules:\n  - allow: mcp__echo\n');
    const proxy = await startMcpProxy(down, { upstream: up, serverName: 'echo', policy, cwd: dir });
    const client = new Client({ name: 'agent', version: '1' });
    await client.connect(agentSide);
    await expect(client.callTool({ name: 'crash', arguments: {} })).rejects.toThrow(
      /MCP server behind toolgate exited|closed/,
    );
    expect(await proxy.done).toEqual({ by: 'server', message: expect.stringMatching(/exited/) });
  });

  it('refuses to start when the real server does not answer the handshake', async () => {
    const [up, other] = InMemoryTransport.createLinkedPair();
    await other.close();
    const [, down] = InMemoryTransport.createLinkedPair();
    const policy = await policyFromText('version: 1\n');
    await expect(
      startMcpProxy(down, { upstream: up, serverName: 'echo', policy, cwd: os.tmpdir() }),
    ).rejects.toThrow(/could not be started/);
  });

  it('refuses to start, within its handshake timeout, when the real server is there but silent', async () => {
    const [up, silent] = InMemoryTransport.createLinkedPair();
    await silent.start(); // receives initialize and never answers
    const [, down] = InMemoryTransport.createLinkedPair();
    const policy = await policyFromText('version: 1\n');
    await expect(
      startMcpProxy(down, {
        upstream: up,
        serverName: 'echo',
        policy,
        cwd: os.tmpdir(),
        handshakeTimeoutMs: 300,
      }),
    ).rejects.toThrow(/did not answer the handshake \(initialize\) within 300 ms/);
    await silent.close();
  });
});
