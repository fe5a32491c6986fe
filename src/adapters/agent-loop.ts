import type Anthropic from '@anthropic-ai/sdk';
import type { ToolResultBlock, ToolUseBlock } from '../pipeline/blocks.js';
import { headlessCanUseTool } from '../pipeline/can-use-tool.js';
import { type ContextInit, createToolUseContext, type ToolUseContext } from '../pipeline/context.js';
import { ToolRegistry } from '../pipeline/registry.js';
import type { ToolUseOutcome } from '../pipeline/run-tool-use.js';
import { StreamingToolExecutor } from '../pipeline/streaming-executor.js';
import type { AnyTool, CanUseTool } from '../pipeline/tool.js';
import type { CompiledPolicy } from '../policy/compile.js';
import { builtinTools } from '../tools/index.js';

/**
 * An agent loop on the Anthropic SDK with toolgate in the middle: stream the model's message,
 * hand each tool_use block to the StreamingToolExecutor the moment it completes (reads start
 * while the model is still writing), send the paired tool_results back, repeat until the model
 * ends its turn or the turn limit is reached.
 */
export interface RunAgentOptions {
  client: Pick<Anthropic, 'messages'>;
  model: string;
  policy: CompiledPolicy;
  cwd: string;
  /** The first user message, or a whole conversation to continue. */
  prompt: string | Anthropic.MessageParam[];
  system?: string;
  /** Default: the built-in tools. */
  tools?: readonly AnyTool[];
  maxTurns?: number;
  maxTokens?: number;
  /** Answers asks (default: headless, which denies them with the reason). */
  canUseTool?: CanUseTool;
  /** Everything else the pipeline takes: mode, decision log, hooks, events, ... */
  context?: Omit<ContextInit, 'tools' | 'policy' | 'cwd'>;
  signal?: AbortSignal;
  /** Called with every tool outcome as it is paired, and every model message as it completes. */
  onOutcome?: (outcome: ToolUseOutcome) => void;
  onMessage?: (message: Anthropic.Message) => void;
}

export interface AgentRun {
  messages: Anthropic.MessageParam[];
  turns: number;
  stopReason: 'end_turn' | 'max_turns' | 'stopped' | 'aborted' | string;
  outcomes: ToolUseOutcome[];
  context: ToolUseContext;
}

export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const registry = new ToolRegistry(options.tools ?? builtinTools());
  const tools = (await registry.apiSchemas()) as unknown as Anthropic.ToolUnion[];
  let context = createToolUseContext({
    ...options.context,
    tools: registry,
    policy: options.policy,
    cwd: options.cwd,
  });
  const canUseTool = options.canUseTool ?? headlessCanUseTool;
  const messages: Anthropic.MessageParam[] =
    typeof options.prompt === 'string' ? [{ role: 'user', content: options.prompt }] : [...options.prompt];
  const outcomes: ToolUseOutcome[] = [];
  const maxTurns = options.maxTurns ?? 25;
  let turns = 0;
  const abort = (): void => context.abortController.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', abort, { once: true });
  try {
    while (turns < maxTurns) {
      if (context.abortController.signal.aborted)
        return { messages, turns, stopReason: 'aborted', outcomes, context };
      turns++;
      const executor = new StreamingToolExecutor({ ...context, messages }, canUseTool);
      const stream = options.client.messages.stream(
        {
          model: options.model,
          max_tokens: options.maxTokens ?? 4096,
          messages,
          tools,
          ...(options.system ? { system: options.system } : {}),
        },
        { signal: context.abortController.signal },
      );
      let sawTool = false;
      stream.on('contentBlock', (block) => {
        if (block.type !== 'tool_use') return;
        sawTool = true;
        executor.addTool({
          type: 'tool_use',
          id: block.id,
          name: block.name,
          input: block.input,
        } satisfies ToolUseBlock);
      });
      let message: Anthropic.Message;
      try {
        message = await stream.finalMessage();
      } finally {
        executor.finish();
      }
      options.onMessage?.(message);
      messages.push({ role: 'assistant', content: message.content });
      const results: ToolResultBlock[] = [];
      let stop: string | undefined;
      const updates = executor.results();
      for (;;) {
        const next = await updates.next();
        if (next.done) {
          context = next.value;
          break;
        }
        if (next.value.type !== 'result') continue;
        const outcome = next.value.outcome;
        outcomes.push(outcome);
        options.onOutcome?.(outcome);
        results.push(outcome.result);
        stop ??= outcome.stop;
      }
      if (results.length > 0)
        messages.push({ role: 'user', content: results as unknown as Anthropic.ToolResultBlockParam[] });
      if (stop !== undefined) return { messages, turns, stopReason: 'stopped', outcomes, context };
      if (!sawTool || message.stop_reason !== 'tool_use') {
        return { messages, turns, stopReason: message.stop_reason ?? 'end_turn', outcomes, context };
      }
    }
    return { messages, turns, stopReason: 'max_turns', outcomes, context };
  } finally {
    options.signal?.removeEventListener('abort', abort);
  }
}
