import type { Readable, Writable } from 'node:stream';
import type { AutoClassifier } from '../policy/auto.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { parseCliArgs } from './args.js';
import { atExpiry } from './bundle-watch.js';
import type { CliIO } from './io.js';
import { UsageError } from './io.js';
import {
  classifierFor,
  cwdOf,
  logFor,
  modeOf,
  POLICY_OPTIONS,
  PolicyLoadFailed,
  policyFor,
} from './policy-args.js';

const HELP = `usage: toolgate mcp-proxy [--policy F]... [--name SERVER] [--log FILE [--log-key KEY] [--log-verbatim] [--otlp URL]] [--mode M] [--cwd D]
                          [--ask deny|allow] [--handshake-timeout MS] -- SERVER_COMMAND [ARG]...

An MCP stdio server that guards another one. It starts SERVER_COMMAND, speaks MCP to it, and
offers the agent the same tools, resources and prompts, except that:
  - every tools/call is decided as mcp__SERVER__TOOL with the call's arguments as input; a
    denied call never reaches the server, and the agent gets a tool result with isError and
    toolgate's reason;
  - tools/list leaves out tools that a deny rule removes entirely (mcp__SERVER,
    mcp__SERVER__TOOL, mcp__*, * without a specifier or condition);
  - resources/read is decided as ReadMcpResource {server, uri}.
There is no person to ask, so a call the policy would ask about is denied; --ask allow lets
such calls through (when the agent asks its own user, as Claude Code does for MCP tools).
Deny rules hold either way. Every decision goes to the decision log (--log or $TOOLGATE_LOG).

SERVER is --name, else the package, module, image or script the command runs
(npx -y @modelcontextprotocol/server-github -> github); when none can be told, give --name.
A broken policy refuses to start (exit 2); if the server cannot start, does not answer the MCP
handshake within --handshake-timeout MS (default 60000: npx may download the server first),
or exits, the proxy exits 1 and the server is stopped.

In .mcp.json / claude_desktop_config.json:
  {"mcpServers": {"github": {"command": "toolgate", "args": ["mcp-proxy", "--name", "github", "--",
    "npx", "-y", "@modelcontextprotocol/server-github"]}}}
`;

export async function mcpProxyCommand(argv: string[], io: CliIO): Promise<number> {
  const split = argv.indexOf('--');
  const own = split < 0 ? argv : argv.slice(0, split);
  const command = split < 0 ? [] : argv.slice(split + 1);
  const { values, positionals } = parseCliArgs(own, {
    ...POLICY_OPTIONS,
    name: { type: 'string' },
    ask: { type: 'string' },
    'handshake-timeout': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `put the server command after "--": toolgate mcp-proxy [options] -- ${positionals.join(' ')}`,
    );
  }
  const [executable, ...args] = command;
  if (executable === undefined || executable === '') {
    throw new UsageError(
      'give the MCP server to guard after "--", e.g. toolgate mcp-proxy -- npx -y some-mcp-server',
    );
  }
  const ask = values.ask ?? 'deny';
  if (ask !== 'deny' && ask !== 'allow') throw new UsageError(`--ask must be deny or allow (got "${ask}")`);
  const handshakeTimeoutMs = handshakeTimeoutOf(values['handshake-timeout']);
  const { isMcpServerName, sanitizeMcpServerName, serverNameOfLaunch } = await import(
    '../adapters/mcp-names.js'
  );
  let serverName: string;
  if (values.name !== undefined) {
    if (!isMcpServerName(values.name)) {
      const suggestion = sanitizeMcpServerName(values.name);
      throw new UsageError(
        `--name "${values.name}" cannot be matched by rules exactly (letters, digits, - and _, no "__", no leading or trailing _)${suggestion ? `; try --name ${suggestion}` : ''}`,
      );
    }
    serverName = values.name;
  } else {
    const derived = serverNameOfLaunch(executable, args);
    if (derived === undefined)
      throw new UsageError(
        `cannot tell which server "${[executable, ...args].join(' ')}" starts`,
        'give --name NAME: its tools are then mcp__NAME__<tool> in rules',
      );
    serverName = derived;
  }
  // Rules name the server: say which name its tools get, so a rule that misses can be seen.
  io.stderr.write(
    `toolgate mcp-proxy: guarding "${serverName}": its tools are mcp__${serverName}__<tool> in rules${values.name === undefined ? ' (--name overrides)' : ''}\n`,
  );
  const mode = modeOf(values.mode);

  // The policy and the log come first: nothing is started that toolgate could not guard.
  let policy: CompiledPolicy;
  try {
    policy = await policyFor(values, io);
  } catch (err) {
    if (err instanceof PolicyLoadFailed) return refuse(io, err.message);
    throw err;
  }
  let log: Awaited<ReturnType<typeof logFor>>;
  try {
    log = await logFor(values, io);
  } catch (err) {
    return refuse(
      io,
      `the decision log cannot be opened: ${err instanceof Error ? err.message : String(err)}`,
    );
  }

  try {
    return await serve(io, {
      executable,
      args,
      serverName,
      policy,
      cwd: cwdOf(values, io),
      ask,
      ...(handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs } : {}),
      ...(mode ? { mode } : {}),
      ...(log ? { decisionLog: log } : {}),
      classifier: await classifierFor(policy, io),
    });
  } finally {
    await log?.close();
  }
}

interface ServeOptions {
  executable: string;
  args: string[];
  serverName: string;
  policy: CompiledPolicy;
  cwd: string;
  ask: 'deny' | 'allow';
  handshakeTimeoutMs?: number;
  mode?: import('../policy/mode.js').Mode;
  decisionLog?: import('../pipeline/context.js').DecisionSink;
  classifier: AutoClassifier | undefined;
}

async function serve(io: CliIO, o: ServeOptions): Promise<number> {
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const { McpUpstreamError, startMcpProxy } = await import('../adapters/mcp-proxy.js');
  const say = (line: string) => io.stderr.write(`toolgate mcp-proxy: ${line}\n`);

  // The agent may hang up at any moment, even while the server is still starting.
  let clientGone = false;
  let proxy: Awaited<ReturnType<typeof startMcpProxy>> | undefined;
  const hangUp = () => {
    clientGone = true;
    void proxy?.close();
  };
  io.stdin.once('end', hangUp);
  io.stdin.once('close', hangUp);
  process.once('SIGTERM', hangUp);
  process.once('SIGINT', hangUp);
  try {
    const upstream = new StdioClientTransport({
      command: o.executable,
      args: o.args,
      // The proxy stands in for the server: the server sees the environment it would have seen.
      env: stringsOnly(io.env),
      cwd: o.cwd,
      stderr: 'inherit',
    });
    try {
      proxy = await startMcpProxy(new StdioServerTransport(io.stdin as Readable, io.stdout as Writable), {
        upstream,
        serverName: o.serverName,
        policy: o.policy,
        cwd: o.cwd,
        ask: o.ask,
        ...(o.handshakeTimeoutMs !== undefined ? { handshakeTimeoutMs: o.handshakeTimeoutMs } : {}),
        ...(o.mode ? { mode: o.mode } : {}),
        ...(o.decisionLog ? { decisionLog: o.decisionLog } : {}),
        ...(o.classifier ? { classifier: o.classifier } : {}),
        onWarning: (message) => say(`warning: ${message}`),
      });
    } catch (err) {
      if (err instanceof McpUpstreamError) {
        say(`${err.message} (command: ${[o.executable, ...o.args].join(' ')})`);
        return 1;
      }
      throw err;
    }
    say(
      `guarding "${proxy.upstreamInfo.name}" as mcp__${o.serverName}__* (policy ${o.policy.digest.slice(0, 12)}, asks are ${o.ask === 'allow' ? 'allowed' : 'denied'})`,
    );
    if (clientGone) await proxy.close();
    // A managed bundle that expires stops the proxy: it cannot pull a fresh one while it runs.
    let expired: string | undefined;
    const running = proxy;
    const cancel = atExpiry(o.policy, (b) => {
      expired = `policy bundle ${b.url}: ${b.id} expired at ${b.notAfter}: stopping, nothing more is decided (start it again to pull a fresh one)`;
      void running.close();
    });
    const end = await proxy.done;
    cancel();
    if (expired !== undefined) {
      say(expired);
      return 1;
    }
    if (end.by === 'server') {
      say(end.message);
      return 1;
    }
    return 0;
  } finally {
    io.stdin.off('end', hangUp);
    io.stdin.off('close', hangUp);
    process.off('SIGTERM', hangUp);
    process.off('SIGINT', hangUp);
  }
}

// Node's timers take at most 2^31-1 ms and fire at once beyond it: refuse rather than surprise.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** --handshake-timeout MS: undefined keeps the library's default. */
function handshakeTimeoutOf(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN;
  if (!(ms >= 1 && ms <= MAX_TIMER_MS))
    throw new UsageError(
      `--handshake-timeout must be a whole number of milliseconds from 1 to ${MAX_TIMER_MS} (got "${text}")`,
    );
  return ms;
}

function refuse(io: CliIO, reason: string): number {
  io.stderr.write(`toolgate mcp-proxy: ${reason}\nThe MCP server was not started.\n`);
  return 2;
}

function stringsOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}
