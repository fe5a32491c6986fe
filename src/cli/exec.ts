import fs from 'node:fs';
import type { ToolResultBlock, ToolUseBlock } from '../pipeline/blocks.js';
import type { HookConfig, HookHandler, HookMatcher } from '../pipeline/hooks.js';
import type { CanUseTool } from '../pipeline/tool.js';
import type { PolicyCache } from '../policy/parse-cache.js';
import { parseCliArgs } from './args.js';
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
import { onStopSignal, signalExitCode } from './stop-signals.js';

/** Past the sandbox's kill grace (2 s), so that aborted calls are answered before the exit. */
const EXEC_STOP_GRACE_MS = 5_000;

const HELP = `usage: toolgate exec [--policy F]... [--mode M] [--cwd D] [--trace] [--log FILE [--log-key KEY] [--log-verbatim] [--otlp URL]] [--hooks FILE] [--json]

Runs tool_use blocks through the whole pipeline (validation, hooks, decision, sandbox,
scheduling) with the built-in tools. Reads the blocks from stdin, as one JSON array or one
block per line; writes one tool_result block per line, in the same order, each paired by
tool_use_id. Blocks given one per line start as they arrive.

  --trace        also write {"event":"start"|"end","id","t"} lines to stderr
  --hooks FILE   Claude Code settings JSON whose "hooks" (PreToolUse, PostToolUse; command
                 hooks) run around every call
  --json         on a terminal too, print tool_result JSON instead of rendered text

SIGTERM, SIGINT and SIGHUP abort the calls in flight (their processes are killed), answer the
blocks already read, and exit with 128 + the signal's number within 5 s.

Without a terminal, a call that needs approval is denied with the reason. On a terminal the
calls are rendered and you are asked. Exit status: 0 all blocks answered; 1 some input was
not a tool_use block (answered with an is_error result); 2 usage or policy errors.
`;

/** This program again, as its hidden `isolate-child` command (toolgate.ts). */
function isolateChildCommand() {
  return { execPath: process.execPath, args: [...process.execArgv, process.argv[1] ?? '', 'isolate-child'] };
}

type Entry =
  | { kind: 'block'; block: ToolUseBlock }
  | { kind: 'bad'; result: ToolResultBlock }
  | { kind: 'eof' };

export interface ExecOptions {
  /** Parsed policy files kept between runs (the bundled command passes one; see parse-cache.ts). */
  readonly policyCache?: PolicyCache;
}

export async function execCommand(argv: string[], io: CliIO, options: ExecOptions = {}): Promise<number> {
  const { values } = parseCliArgs(argv, {
    ...POLICY_OPTIONS,
    trace: { type: 'boolean' },
    hooks: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const mode = modeOf(values.mode);
  const hooks = values.hooks === undefined ? undefined : readHooks(values.hooks, io.cwd);
  let policy: Awaited<ReturnType<typeof policyFor>>;
  try {
    policy = await policyFor(values, io, undefined, options.policyCache);
  } catch (err) {
    if (err instanceof PolicyLoadFailed) {
      io.stderr.write(`toolgate exec: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const [
    { Channel },
    { readToolUseBlock },
    { createToolUseContext },
    { ToolRegistry },
    { StreamingToolExecutor },
    { builtinTools },
    prompts,
  ] = await Promise.all([
    import('../pipeline/channel.js'),
    import('../pipeline/blocks.js'),
    import('../pipeline/context.js'),
    import('../pipeline/registry.js'),
    import('../pipeline/streaming-executor.js'),
    import('../tools/index.js'),
    import('../pipeline/can-use-tool.js'),
  ]);
  const log = await logFor(values, io);
  const human = io.isTTY && !values.json;
  const terminal = io.isTTY ? openTerminal() : undefined;
  const canUseTool: CanUseTool = terminal ? prompts.terminalCanUseTool(terminal) : prompts.headlessCanUseTool;
  const classifier = await classifierFor(policy, io);
  const ctx = createToolUseContext({
    // exec starts without --no-node-snapshot unless its policy has conditions (toolgate.ts): a
    // JavaScript call then runs its isolate in a child node started with it.
    tools: new ToolRegistry(builtinTools({ javascript: { isolateChild: isolateChildCommand() } })),
    policy,
    ...(classifier ? { classifier } : {}),
    cwd: cwdOf(values, io),
    ...(mode ? { mode } : {}),
    options: {
      ...(log ? { decisionLog: log } : {}),
      ...(hooks ? { hooks } : {}),
      env: io.env,
      isNonInteractive: terminal === undefined,
      ...(values.trace ? { onEvent: (e) => io.stderr.write(`${JSON.stringify(e)}\n`) } : {}),
    },
  });
  const executor = new StreamingToolExecutor(ctx, canUseTool);
  const entries = new Channel<Entry>();
  let bad = 0;
  // A stop signal aborts every call (their processes are killed), answers the blocks already
  // read and reads no more; see stop-signals.ts for the bound on how long that may take.
  let stoppedBy: NodeJS.Signals | undefined;
  const removeStopHandlers = onStopSignal((signal) => {
    stoppedBy = signal;
    ctx.abortController.abort(new Error(`toolgate exec received ${signal}`));
    entries.push({ kind: 'eof' });
    (io.stdin as Partial<NodeJS.ReadStream>).destroy?.();
  }, EXEC_STOP_GRACE_MS);

  const reading = readBlocks(io.stdin, (value, where) => {
    const read = readToolUseBlock(value);
    if (read.ok) {
      executor.addTool(read.block);
      entries.push({ kind: 'block', block: read.block });
      return;
    }
    bad++;
    const id =
      value !== null && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string'
        ? (value as { id: string }).id
        : '';
    entries.push({
      kind: 'bad',
      result: { type: 'tool_result', tool_use_id: id, content: `${where}: ${read.message}`, is_error: true },
    });
  }).then(
    () => {
      executor.finish();
      entries.push({ kind: 'eof' });
    },
    (err: unknown) => {
      executor.finish();
      entries.push({ kind: 'eof' });
      throw err;
    },
  );

  const results = executor.results();
  try {
    for (;;) {
      const entry = await entries.next();
      if (entry.kind === 'eof') break;
      if (entry.kind === 'bad') {
        io.stdout.write(human ? `✗ ${String(entry.result.content)}\n` : `${JSON.stringify(entry.result)}\n`);
        continue;
      }
      for (;;) {
        const next = await results.next();
        if (next.done) throw new Error('the executor ended before every block had a result');
        const update = next.value;
        if (update.type === 'progress') {
          if (human) {
            const tool = ctx.tools.find(update.tool);
            const text =
              tool?.renderToolUseProgressMessage([{ toolUseId: update.toolUseId, data: update.data }], {}) ??
              '';
            if (text) io.stderr.write(`  ${text}\n`);
          }
          continue;
        }
        const outcome = update.outcome;
        io.stdout.write(human ? `${render(outcome)}\n` : `${JSON.stringify(outcome.result)}\n`);
        for (const note of outcome.notes) io.stderr.write(`toolgate exec: ${outcome.toolUseId}: ${note}\n`);
        break;
      }
    }
    if (stoppedBy === undefined) await reading;
  } finally {
    removeStopHandlers();
    terminal?.close();
    await log?.close();
  }
  if (stoppedBy !== undefined) return signalExitCode(stoppedBy);
  return bad > 0 ? 1 : 0;
}

function render(outcome: import('../pipeline/run-tool-use.js').ToolUseOutcome): string {
  const { tool, input, output, failure, result } = outcome;
  const options = { columns: 100 };
  try {
    const use = tool ? tool.renderToolUseMessage((input ?? {}) as never, options) : outcome.toolUseId;
    if (failure) {
      const text = tool
        ? failure.kind === 'denied' || failure.kind === 'ask-refused' || failure.kind === 'hook-blocked'
          ? tool.renderToolUseRejectedMessage((input ?? {}) as never, failure.message, options)
          : tool.renderToolUseErrorMessage(failure.message, options)
        : failure.message;
      return `● ${use}\n  ✗ ${text}`;
    }
    return `● ${use}\n  ${tool!.renderToolResultMessage(output, options).split('\n').join('\n  ')}`;
  } catch {
    return JSON.stringify(result);
  }
}

/** stdin as a JSON array (first character `[`) or JSON Lines; each value handed on as it is read. */
async function readBlocks(
  stdin: NodeJS.ReadableStream,
  each: (value: unknown, where: string) => void,
): Promise<void> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: stdin, crlfDelay: Number.POSITIVE_INFINITY });
  let array: string[] | undefined;
  let n = 0;
  for await (const line of rl) {
    n++;
    if (array) {
      array.push(line);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (trimmed.startsWith('[')) {
      array = [line];
      continue;
    }
    try {
      each(JSON.parse(trimmed), `line ${n}`);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      each(undefined, `line ${n} is not JSON (${err.message})`);
    }
  }
  if (array === undefined) return;
  let values: unknown;
  try {
    values = JSON.parse(array.join('\n'));
  } catch (err) {
    each(undefined, `the input array is not JSON (${(err as Error).message})`);
    return;
  }
  if (!Array.isArray(values)) {
    each(undefined, 'the input is not an array of tool_use blocks');
    return;
  }
  for (const [i, v] of values.entries()) each(v, `item ${i}`);
}

function openTerminal():
  | { input: NodeJS.ReadableStream; output: NodeJS.WritableStream; close(): void }
  | undefined {
  try {
    const fd = fs.openSync('/dev/tty', 'r+');
    const input = fs.createReadStream('', { fd, autoClose: false });
    const output = fs.createWriteStream('', { fd, autoClose: false });
    return {
      input,
      output,
      close() {
        input.destroy();
        fs.closeSync(fd);
      },
    };
  } catch {
    return undefined;
  }
}

/** Claude Code settings JSON -> hook config: `hooks.PreToolUse` / `hooks.PostToolUse` command hooks. */
function readHooks(file: string, cwd: string): HookConfig {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(new URL(file, `file://${cwd}/`), 'utf8'));
  } catch (err) {
    throw new UsageError(`--hooks ${file}: ${(err as Error).message}`);
  }
  const hooks = (json as { hooks?: Record<string, unknown> } | null)?.hooks ?? json;
  const config: HookConfig = {};
  for (const event of ['PreToolUse', 'PostToolUse'] as const) {
    const list = (hooks as Record<string, unknown> | null)?.[event];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new UsageError(`--hooks ${file}: hooks.${event} must be an array`);
    config[event] = list.map((m, i): HookMatcher => {
      const entry = m as { matcher?: unknown; hooks?: unknown };
      if (!Array.isArray(entry.hooks))
        throw new UsageError(`--hooks ${file}: hooks.${event}[${i}].hooks must be an array`);
      return {
        ...(typeof entry.matcher === 'string' ? { matcher: entry.matcher } : {}),
        hooks: entry.hooks.map((h, j): HookHandler => {
          const handler = h as { type?: unknown; command?: unknown; timeout?: unknown };
          if (handler.type !== 'command' || typeof handler.command !== 'string') {
            throw new UsageError(
              `--hooks ${file}: hooks.${event}[${i}].hooks[${j}] must be {"type":"command","command":...}`,
            );
          }
          // Claude Code's hook timeout is in seconds.
          const timeout =
            typeof handler.timeout === 'number' && handler.timeout > 0
              ? { timeoutMs: handler.timeout * 1000 }
              : {};
          return { type: 'command', command: handler.command, ...timeout };
        }),
      };
    });
  }
  return config;
}
