import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  connectMcpServer,
  connectMcpServers,
  McpConnectError,
  type McpConnection,
} from '../../src/adapters/mcp-client.js';
import type { Entry } from '../../src/audit/entry.js';
import type { ToolUseBlock } from '../../src/pipeline/blocks.js';
import { createToolUseContext, type ToolUseOptions } from '../../src/pipeline/context.js';
import { partitionToolCalls } from '../../src/pipeline/partition.js';
import { ToolRegistry } from '../../src/pipeline/registry.js';
import { runToolUse } from '../../src/pipeline/run-tool-use.js';
import type { AnyTool, CanUseTool } from '../../src/pipeline/tool.js';
import { policyFromText } from '../../src/policy/policy.js';
import { createEchoServer, PNG_1X1 } from './fixtures/echo-server.js';
import { ECHO_SERVER, TSX } from './fixtures/proxy-process.js';

/**
 * MCP tools inside the pipeline: real SDK servers (in memory, and one as a process), the
 * adapter's Tools in a real ToolRegistry, and calls through runToolUse, so the same schema
 * check, policy decision, log and result pairing apply as for built-in tools.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-mcp-client-')));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function echoTransport(dir: string) {
  const [client, server] = InMemoryTransport.createLinkedPair();
  await createEchoServer({ dir }).connect(server);
  return client;
}

async function echo(dir = tempDir()): Promise<{ conn: McpConnection; dir: string; calls: () => string[] }> {
  const conn = await connectMcpServer({ name: 'echo', transport: await echoTransport(dir) });
  cleanups.push(() => conn.close());
  const calls = () => {
    const file = path.join(dir, 'calls.log');
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n') : [];
  };
  return { conn, dir, calls };
}

async function context(tools: readonly AnyTool[], cwd: string, rules: string, options: ToolUseOptions = {}) {
  const policy = await policyFromText(
    `version: 1\nsandbox: { os: "off", timeoutMs: 20000 }\nrules:${rules}`,
    {
      root: cwd,
    },
  );
  return createToolUseContext({ tools: new ToolRegistry(tools), policy, cwd, options });
}

const refuse: CanUseTool = async () => ({ behavior: 'deny', message: 'no one to ask (test)' });
const use = (name: string, input: unknown, id = `toolu_${name}`): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
});

describe('the adapter turns MCP tools into toolgate Tools', () => {
  it('names them mcp__<server>__<tool> and trusts only readOnlyHint without destructiveHint', async () => {
    const { conn } = await echo();
    const info = Object.fromEntries(conn.toolInfo.map((t) => [t.mcpName, t]));
    expect(info.get_status).toMatchObject({
      name: 'mcp__echo__get_status',
      readOnly: true,
      schema: 'json-schema',
    });
    expect(info.lookup).toMatchObject({ name: 'mcp__echo__lookup', readOnly: false });
    expect(info.delete_repo).toMatchObject({ readOnly: false });
    expect(info['notes.append']?.name).toBe('mcp__echo__notes_append');
    const tool = (n: string) => conn.tools.find((t) => t.name === n)!;
    expect(tool('mcp__echo__get_status').isReadOnly({})).toBe(true);
    expect(tool('mcp__echo__get_status').isConcurrencySafe({})).toBe(true);
    expect(tool('mcp__echo__get_status').isDestructive({})).toBe(false);
    for (const n of ['mcp__echo__lookup', 'mcp__echo__delete_repo', 'mcp__echo__write_file']) {
      expect(tool(n).isReadOnly({}), n).toBe(false);
      expect(tool(n).isConcurrencySafe({}), n).toBe(false);
      expect(tool(n).isDestructive({}), n).toBe(true);
    }
    // They fit the registry and are described to the model with the server's own words.
    const schemas = await new ToolRegistry(conn.tools).apiSchemas();
    const del = schemas.find((s) => s.name === 'mcp__echo__delete_repo')!;
    expect(del.description).toBe('Deletes a repository');
    expect(del.input_schema).toMatchObject({ type: 'object', required: ['name'] });
  });

  it('schedules read-only MCP calls together and the others alone', async () => {
    const { conn } = await echo();
    const batches = partitionToolCalls(
      [
        use('mcp__echo__get_status', {}, 'a'),
        use('mcp__echo__get_status', {}, 'b'),
        use('mcp__echo__write_file', { path: 'x', content: 'y' }, 'c'),
        use('mcp__echo__lookup', { key: 'k' }, 'd'),
      ],
      new ToolRegistry(conn.tools),
    );
    expect(batches.map((b) => [b.concurrent, b.blocks.map((x) => x.id)])).toEqual([
      [true, ['a', 'b']],
      [false, ['c']],
      [false, ['d']],
    ]);
  });

  it('leaves out names rules could not tell apart or the registry refuses, and says why', async () => {
    const dir = tempDir();
    const raw = new Server({ name: 'raw', version: '1' }, { capabilities: { tools: {} } });
    const seen: unknown[] = [];
    raw.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [
        { name: 'a.b', inputSchema: { type: 'object' } },
        { name: 'a_b', inputSchema: { type: 'object' } },
        { name: 'x'.repeat(130), inputSchema: { type: 'object' } },
        {
          name: 'cond',
          // biome-ignore lint/suspicious/noThenProperty: a JSON Schema if/then, not a promise
          inputSchema: { type: 'object', if: { required: ['a'] }, then: { required: ['b'] } },
        },
      ],
    }));
    raw.setRequestHandler(CallToolRequestSchema, async (req) => {
      seen.push(req.params);
      return { content: [{ type: 'text', text: `got ${JSON.stringify(req.params.arguments)}` }] };
    });
    const [c, s] = InMemoryTransport.createLinkedPair();
    await raw.connect(s);
    const conn = await connectMcpServer({ name: 'raw', transport: c });
    cleanups.push(() => conn.close());
    expect(conn.tools.map((t) => t.name)).toEqual(['mcp__raw__cond']);
    expect(conn.skipped.map((s) => s.mcpName)).toEqual(['a.b', 'a_b', 'x'.repeat(130)]);
    expect(conn.skipped[0]!.reason).toMatch(/could not tell them apart/);
    // A schema zod cannot convert: any object passes here, and the server validates it.
    expect(conn.toolInfo[0]!.schema).toBe('permissive');
    const ctx = await context(conn.tools, dir, '\n  - allow: mcp__raw\n');
    const out = await runToolUse(use('mcp__raw__cond', { a: 1 }), ctx, refuse);
    expect(out.result.content).toEqual([{ type: 'text', text: 'got {"a":1}' }]);
    const bad = await runToolUse(use('mcp__raw__cond', 'not an object'), ctx, refuse);
    expect(bad.failure?.kind).toBe('invalid-input');
    expect(seen).toHaveLength(1);
  });

  it('refuses a server name rules could not match exactly', async () => {
    await expect(
      connectMcpServer({ name: 'a__b', transport: await echoTransport(tempDir()) }),
    ).rejects.toThrow(McpConnectError);
  });
});

describe('MCP tools through runToolUse', () => {
  it('an allowed call reaches the server and comes back as one paired tool_result', async () => {
    const { conn, dir, calls } = await echo();
    const log: Entry[] = [];
    const ctx = await context(conn.tools, dir, '\n  - allow: mcp__echo__write_file\n', {
      decisionLog: { append: async (e) => log.push(e) },
    });
    const out = await runToolUse(
      use('mcp__echo__write_file', { path: 'a.txt', content: 'hello' }, 'toolu_9'),
      ctx,
      refuse,
    );
    expect(out.result).toEqual({
      type: 'tool_result',
      tool_use_id: 'toolu_9',
      content: [{ type: 'text', text: 'wrote 5 bytes to a.txt' }],
    });
    expect(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('hello');
    expect(calls()).toEqual(['write_file']);
    expect(log.map((e) => [e.request.tool, e.decision.behavior])).toEqual([
      ['mcp__echo__write_file', 'allow'],
    ]);
  });

  it('a deny rule on mcp__echo__delete_repo stops it before the server sees it', async () => {
    const { conn, dir, calls } = await echo();
    const ctx = await context(
      conn.tools,
      dir,
      '\n  - allow: mcp__echo\n  - deny: mcp__echo__delete_repo\n    reason: Repositories are deleted by people\n',
    );
    const out = await runToolUse(use('mcp__echo__delete_repo', { name: 'prod' }), ctx, refuse);
    expect(out.result.is_error).toBe(true);
    expect(out.failure?.kind).toBe('denied');
    expect(String(out.result.content)).toMatch(/Repositories are deleted by people/);
    expect(fs.existsSync(path.join(dir, 'deleted-prod'))).toBe(false);
    expect(calls()).toEqual([]);
  });

  it('input that does not match the server schema is refused before any decision', async () => {
    const { conn, dir, calls } = await echo();
    const ctx = await context(conn.tools, dir, '\n  - allow: mcp__echo\n');
    for (const input of [{}, { name: 3 }, 'prod']) {
      const out = await runToolUse(use('mcp__echo__delete_repo', input), ctx, refuse);
      expect(out.failure?.kind, JSON.stringify(input)).toBe('invalid-input');
    }
    const count = await runToolUse(use('mcp__echo__count', { n: 99 }), ctx, refuse);
    expect(count.failure?.kind).toBe('invalid-input');
    expect(calls()).toEqual([]);
  });

  it('with no rule the call asks, and a refused ask never reaches the server', async () => {
    const { conn, dir, calls } = await echo();
    const ctx = await context(conn.tools, dir, ' []\n');
    const out = await runToolUse(use('mcp__echo__get_status', {}), ctx, refuse);
    expect(out.failure?.kind).toBe('ask-refused');
    expect(calls()).toEqual([]);
  });

  it("the server's isError becomes is_error, and rich content becomes content blocks", async () => {
    const { conn, dir } = await echo();
    const ctx = await context(conn.tools, dir, '\n  - allow: mcp__echo\n');
    const failed = await runToolUse(use('mcp__echo__fail', {}), ctx, refuse);
    expect(failed.result).toMatchObject({ is_error: true, content: [{ type: 'text', text: 'it broke' }] });
    expect(failed.failure).toBeUndefined();
    const picture = await runToolUse(use('mcp__echo__picture', {}), ctx, refuse);
    expect(picture.result.is_error).toBeUndefined();
    expect(picture.result.content).toEqual([
      { type: 'text', text: 'a picture' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_1X1 } },
      { type: 'text', text: '[resource echo://readme]\nHello' },
      { type: 'text', text: '[resource link: other <echo://other>]' },
      { type: 'text', text: expect.stringMatching(/^\[audio \(audio\/wav\) was left out/) },
    ]);
  });

  it('progress reaches the pipeline', async () => {
    const { conn, dir } = await echo();
    const ctx = await context(conn.tools, dir, '\n  - allow: mcp__echo__count\n');
    const progress: unknown[] = [];
    const out = await runToolUse(use('mcp__echo__count', { n: 2 }), ctx, refuse, {
      onProgress: (p) => progress.push([p.tool, (p.data as { progress: number }).progress]),
    });
    expect(out.result.content).toEqual([{ type: 'text', text: 'counted to 2' }]);
    expect(progress).toEqual([
      ['mcp__echo__count', 1],
      ['mcp__echo__count', 2],
    ]);
  });
});

describe('resources as tools', () => {
  it('ListMcpResources and ReadMcpResource are decided like any tool', async () => {
    const dir = tempDir();
    const servers = await connectMcpServers([{ name: 'echo', transport: await echoTransport(dir) }]);
    cleanups.push(() => servers.close());
    const tools = servers.tools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['ListMcpResources', 'ReadMcpResource']));
    const ctx = await context(tools, dir, '\n  - deny: "ReadMcpResource(uri:echo://secret)"\n');
    const list = await runToolUse(use('ListMcpResources', {}), ctx, refuse);
    expect(JSON.parse(String(list.result.content))).toEqual([
      {
        server: 'echo',
        uri: 'echo://readme',
        name: 'readme',
        mimeType: 'text/plain',
        description: 'The readme',
      },
      {
        server: 'echo',
        uri: 'echo://secret',
        name: 'secret',
        mimeType: 'text/plain',
        description: 'Something a policy may refuse',
      },
    ]);
    const read = await runToolUse(
      use('ReadMcpResource', { server: 'echo', uri: 'echo://readme' }),
      ctx,
      refuse,
    );
    expect(read.result.content).toEqual([
      { type: 'text', text: '[resource echo://readme]\nHello from echo' },
    ]);
    const secret = await runToolUse(
      use('ReadMcpResource', { server: 'echo', uri: 'echo://secret' }),
      ctx,
      refuse,
    );
    expect(secret.failure?.kind).toBe('denied');
    const nowhere = await runToolUse(use('ReadMcpResource', { server: 'nope', uri: 'x://y' }), ctx, refuse);
    expect(nowhere.failure?.kind).toBe('validation');
    expect(String(nowhere.result.content)).toMatch(/Connected: echo/);
  });
});

describe('connections', () => {
  it('re-reads the tool list when the server says it changed', async () => {
    const dir = tempDir();
    const changed: string[][] = [];
    const conn = await connectMcpServer(
      { name: 'echo', transport: await echoTransport(dir) },
      { onToolsChanged: (c) => changed.push(c.tools.map((t) => t.name)) },
    );
    cleanups.push(() => conn.close());
    const ctx = await context(conn.tools, dir, '\n  - allow: mcp__echo\n');
    await runToolUse(use('mcp__echo__add_tool', {}), ctx, refuse);
    await expect.poll(() => changed.length).toBeGreaterThan(0);
    expect(changed.at(-1)).toContain('mcp__echo__late_tool');
    expect(conn.tools.map((t) => t.name)).toContain('mcp__echo__late_tool');
  });

  it('connects to a stdio command, and closing stops the server', async () => {
    const dir = tempDir();
    const conn = await connectMcpServer({
      name: 'echo',
      command: process.execPath,
      args: ['--import', TSX, ECHO_SERVER],
      env: { ECHO_MCP_DIR: dir },
      stderr: 'ignore',
    });
    expect(conn.tools.map((t) => t.name)).toContain('mcp__echo__get_status');
    await conn.close();
    await expect.poll(() => fs.existsSync(path.join(dir, 'exited'))).toBe(true);
  });

  it('reports servers that cannot start without stopping the others', async () => {
    const dir = tempDir();
    const servers = await connectMcpServers([
      { name: 'echo', transport: await echoTransport(dir) },
      { name: 'missing', command: 'toolgate-no-such-mcp-server', stderr: 'ignore' },
      { name: 'echo', transport: await echoTransport(dir) },
    ]);
    cleanups.push(() => servers.close());
    expect(servers.connections.map((c) => c.name)).toEqual(['echo']);
    expect(servers.failures.map((f) => [f.server, f.message])).toEqual([
      // A PATH entry this user cannot search (root's ~/.cargo/bin, run as another user) turns
      // the lookup's ENOENT into EACCES: either way the server could not be started.
      ['missing', expect.stringMatching(/could not be started: .*(ENOENT|EACCES)/)],
      ['echo', expect.stringMatching(/two MCP servers are called "echo"/)],
    ]);
  });
});
