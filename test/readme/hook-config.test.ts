import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { ECHO_COMMAND, startProxyProcess } from '../adapters/fixtures/proxy-process.js';
import { type Block, readmeBlocks, shellCommands } from './blocks.js';
import { type Scratch, scratch } from './scratch.js';

/**
 * The README's hook configurations are what works: each hook entry has the keys and matcher
 * `toolgate init --agent` writes for that agent (a subset: the README's are by hand), each of
 * its events is one toolgate answers, and each command, run as the agent runs it (bash, the
 * payload on stdin), denies a read of `.env` in that agent's answer shape. The http hook is sent
 * to the README's `toolgate serve` line; the MCP entry's proxy is started with its arguments.
 */
const made: Scratch[] = [];
afterAll(() => {
  for (const s of made) s.remove();
});
const fresh = () => {
  const s = scratch();
  made.push(s);
  fs.mkdirSync(path.join(s.dir, '.git'));
  return s;
};

type Agent = 'claude' | 'gemini' | 'codex' | 'cursor' | 'copilot';
type Json = Record<string, unknown>;

/** A call each agent would send for reading `.env`, by event, and where its answer says deny. */
const PAYLOADS: Record<Agent, Record<string, (cwd: string) => Json>> = {
  claude: {
    PreToolUse: (cwd) => ({
      session_id: 's1',
      transcript_path: path.join(cwd, 't.jsonl'),
      cwd,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'cat .env' },
      tool_use_id: 'toolu_1',
    }),
  },
  gemini: {
    BeforeTool: (cwd) => ({
      session_id: 'g1',
      transcript_path: path.join(cwd, 's.json'),
      cwd,
      hook_event_name: 'BeforeTool',
      timestamp: '2026-12-01T10:00:00.000Z',
      tool_name: 'run_shell_command',
      tool_input: { command: 'cat .env' },
    }),
  },
  codex: Object.fromEntries(
    ['PreToolUse', 'PermissionRequest'].map((event) => [
      event,
      (cwd: string) => ({
        session_id: 'c1',
        turn_id: 't1',
        transcript_path: null,
        cwd,
        hook_event_name: event,
        model: 'm',
        permission_mode: 'default',
        tool_name: 'Bash',
        tool_input: { command: 'cat .env' },
        ...(event === 'PreToolUse' && { tool_use_id: 'call_1' }),
      }),
    ]),
  ),
  cursor: {
    beforeShellExecution: (cwd) => ({
      conversation_id: 'c',
      generation_id: 'g',
      hook_event_name: 'beforeShellExecution',
      workspace_roots: [cwd],
      command: 'cat .env',
      cwd,
    }),
    beforeReadFile: (cwd) => ({
      conversation_id: 'c',
      generation_id: 'g',
      hook_event_name: 'beforeReadFile',
      workspace_roots: [cwd],
      file_path: '.env',
      content: 'KEY=secret',
      attachments: [],
    }),
  },
  copilot: {
    preToolUse: (cwd) => ({
      sessionId: 'p',
      timestamp: 1704614600000,
      cwd,
      toolName: 'bash',
      toolArgs: JSON.stringify({ command: 'cat .env' }),
    }),
  },
};

/** The deny in each agent's answer (hook-*.test.ts in test/cli hold the shapes to the agents' docs). */
const denied = (agent: Agent, event: string, out: Json): boolean => {
  const h = out.hookSpecificOutput as Json | undefined;
  if (agent === 'gemini') return out.decision === 'deny';
  if (agent === 'cursor') return out.permission === 'deny';
  if (agent === 'copilot') return out.permissionDecision === 'deny';
  if (event === 'PermissionRequest') return (h?.decision as Json | undefined)?.behavior === 'deny';
  return h?.permissionDecision === 'deny';
};

const agentOf = (command: string): Agent => {
  const named = /--agent (\S+)/.exec(command)?.[1];
  return (named === 'gemini-cli' ? 'gemini' : (named ?? 'claude')) as Agent;
};

interface Entry {
  event: string;
  matcher?: string;
  hook: Json;
}

/** Every hook entry of a configuration, in Claude Code's nesting or the flat one. */
function entries(config: Json): Entry[] {
  return Object.entries(config.hooks as Record<string, Json[]>).flatMap(([event, list]) =>
    list.flatMap((e) =>
      Array.isArray(e.hooks)
        ? (e.hooks as Json[]).map((hook) => ({ event, matcher: e.matcher as string, hook }))
        : [{ event, hook: e }],
    ),
  );
}

/** What `toolgate init --agent` writes for the agent, by event. */
async function initWrites(agent: Agent): Promise<Entry[]> {
  const s = fresh();
  const r = await s.sh(`toolgate init --agent ${agent}`);
  expect(r.code, r.stderr).toBe(0);
  const file = {
    claude: '.claude/settings.json',
    gemini: '.gemini/settings.json',
    codex: '.home/.codex/hooks.json',
    cursor: '.cursor/hooks.json',
    copilot: '.github/hooks/toolgate.json',
  }[agent];
  return entries(JSON.parse(fs.readFileSync(path.join(s.dir, file), 'utf8')));
}

const hookBlocks = readmeBlocks().filter(
  (b) => b.lang === 'json' && b.notATest === undefined && 'hooks' in JSON.parse(b.text),
);

describe.each(hookBlocks.map((b) => [b.line, b] as const))(
  'README.md:%i, a hook configuration',
  { timeout: 120_000 },
  (_line, block: Block) => {
    const config = JSON.parse(block.text) as Json;
    const commands = entries(config).filter((e) => e.hook.type !== 'http');

    it.runIf(commands.length > 0)(
      'has the entries init writes, and each command denies a read of .env',
      async () => {
        for (const e of commands) {
          const command = String(e.hook.command ?? e.hook.bash);
          const agent = agentOf(command);
          const written = await initWrites(agent);
          const like = written.find((w) => w.event === e.event) ?? written[0]!;
          expect(
            Object.keys(e.hook).filter((k) => !(k in like.hook)),
            `${e.event} keys`,
          ).toEqual([]);
          expect(e.matcher, `${e.event} matcher`).toBe(like.matcher);
          const payload = PAYLOADS[agent][e.event];
          expect(payload, `an event toolgate answers for ${agent}: ${e.event}`).toBeDefined();
          const s = fresh();
          const r = await s.sh(command, { stdin: JSON.stringify(payload!(s.dir)) });
          expect(r.code, r.stderr).toBe(0);
          expect(denied(agent, e.event, JSON.parse(r.stdout)), `${e.event}: ${r.stdout}`).toBe(true);
          if (command.includes('--log .toolgate/decisions.jsonl'))
            expect(fs.readFileSync(path.join(s.dir, '.toolgate', 'decisions.jsonl'), 'utf8')).toContain(
              'cat .env',
            );
        }
      },
    );

    const http = entries(config).filter((e) => e.hook.type === 'http');
    it.runIf(http.length > 0)("is answered by the README's toolgate serve line", async () => {
      const serve = readmeBlocks()
        .filter((b) => b.lang === 'sh')
        .flatMap(shellCommands)
        .find((c) => c.command.startsWith('toolgate serve '))!.command;
      for (const e of http) {
        const s = fresh();
        fs.writeFileSync(
          path.join(s.dir, 'payload.json'),
          JSON.stringify(PAYLOADS.claude.PreToolUse!(s.dir)),
        );
        // in a network namespace of its own, so the README's fixed port is free whatever else runs
        const script = [
          `${serve} &`,
          'for i in $(seq 150); do curl -sf http://127.0.0.1:8787/health >/dev/null && break; sleep 0.2; done',
          `curl -s -X POST -H 'content-type: application/json' --data-binary @payload.json '${String(e.hook.url)}'`,
          'kill %1; wait',
        ].join('\n');
        const r = await s.sh(`bwrap --dev-bind / / --unshare-net --die-with-parent bash -c ${shq(script)}`);
        expect(r.code, r.stderr).toBe(0);
        // the answer is curl's line, after what serve says when it starts
        const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Json;
        expect(denied('claude', 'PreToolUse', out), r.stdout).toBe(true);
        expect(fs.readFileSync(path.join(s.dir, '.toolgate', 'decisions.jsonl'), 'utf8')).toContain(
          'cat .env',
        );
      }
    });
  },
);

const mcpBlocks = readmeBlocks().filter(
  (b) => b.lang === 'json' && b.notATest === undefined && 'mcpServers' in JSON.parse(b.text),
);

describe.each(mcpBlocks.map((b) => [b.line, b] as const))(
  'README.md:%i, an MCP server behind the proxy',
  (_l, block) => {
    it('starts the proxy with its arguments; rules name the server as --name says', async () => {
      const servers = JSON.parse(block.text).mcpServers as Record<
        string,
        { command: string; args: string[] }
      >;
      for (const [name, { command, args }] of Object.entries(servers)) {
        expect(command).toBe('toolgate');
        expect(args[0]).toBe('mcp-proxy');
        const s = fresh();
        s.make('.', { '.toolgate/policy.yaml': `version: 1\nrules:\n  - deny: mcp__${name}__delete_repo\n` });
        // the arguments as printed, but for the log (kept in the scratch directory, not /var/log)
        // and the server after `--` (the echo server: npx would download the real one)
        const proxyArgs = args
          .slice(1, args.indexOf('--') + 1)
          .map((a) => (a.startsWith('/var/log/') ? path.join(s.dir, path.basename(a)) : a));
        const proc = startProxyProcess([...proxyArgs, ...ECHO_COMMAND], {
          cwd: s.dir,
          env: { ...s.env, ECHO_MCP_DIR: s.dir },
        });
        const client = new Client({ name: 'readme', version: '1' });
        await client.connect(proc.transport);
        const tools = (await client.listTools()).tools.map((t) => t.name);
        await client.close();
        await proc.exit;
        expect(tools).not.toContain('delete_repo');
        expect(tools).toContain('write_file');
      }
    });
  },
);

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
