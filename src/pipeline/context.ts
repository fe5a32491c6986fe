import type { Entry } from '../audit/entry.js';
import type { AutoClassifier } from '../policy/auto.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { FileSystemView } from '../policy/fs-view.js';
import type { Mode } from '../policy/mode.js';
import type { HookConfig } from './hooks.js';
import type { ToolRegistry } from './registry.js';
import type { AnyTool } from './tool.js';

/**
 * What a call needs from the session it runs in. A context is a value: a tool that changes the
 * session returns a modifier that makes a new one, and the scheduler applies modifiers in block
 * order, so no call sees a half-applied change.
 */
export interface PermissionContext {
  readonly policy: CompiledPolicy;
  readonly mode: Mode;
  /** The working directory calls run in (absolute). */
  readonly cwd: string;
  /** auto mode's classifier (default: the offline one). */
  readonly classifier?: AutoClassifier;
  readonly sessionId?: string;
  readonly agentId?: string;
  /** The file system decisions look at (tests pass their own). */
  readonly fs?: FileSystemView;
}

/** Anything that records decisions: a DecisionLog, or a test double. */
export interface DecisionSink {
  append(entry: Entry): Promise<unknown>;
}

/** One scheduling event, for `--trace` and for tests that prove a schedule by event order. */
export interface ScheduleEvent {
  readonly event: 'start' | 'end';
  readonly id: string;
  /** Milliseconds since the process started (performance.now()). */
  readonly t: number;
}

export interface ToolUseOptions {
  /** Every decision is appended here before its call runs; a failed append stops the call. */
  readonly decisionLog?: DecisionSink;
  readonly hooks?: HookConfig;
  /** Where results over a tool's maxResultSizeChars are written (default: the OS temp dir). */
  readonly resultDir?: string;
  /** Overrides the environment's TOOLGATE_MAX_TOOL_USE_CONCURRENCY. */
  readonly maxConcurrency?: number;
  /**
   * How long past the sandbox profile's timeout a call may take before the pipeline gives up on
   * it (the sandbox stops its own processes at the timeout; this catches tools that hang).
   */
  readonly deadlineGraceMs?: number;
  readonly onEvent?: (event: ScheduleEvent) => void;
  /** Whether the session can ask a person (decides nothing by itself; canUseTool does). */
  readonly isNonInteractive?: boolean;
  /** The environment read for the concurrency cap (default process.env). */
  readonly env?: NodeJS.ProcessEnv;
}

export interface McpClientRef {
  readonly name: string;
  /** Tools the server offers, as toolgate Tools (already wrapped). */
  readonly tools?: readonly AnyTool[];
}

export interface ToolUseContext {
  readonly tools: ToolRegistry;
  readonly mcpClients: readonly McpClientRef[];
  readonly permission: PermissionContext;
  /** The conversation so far, as the agent loop keeps it (opaque to the pipeline). */
  readonly messages: readonly unknown[];
  /** Session state tools may read and change through context modifiers. */
  readonly appState: Readonly<Record<string, unknown>>;
  readonly abortController: AbortController;
  readonly options: ToolUseOptions;
}

export interface ContextInit {
  tools: ToolRegistry;
  policy: CompiledPolicy;
  cwd: string;
  mode?: Mode;
  classifier?: AutoClassifier;
  sessionId?: string;
  agentId?: string;
  fs?: FileSystemView;
  mcpClients?: readonly McpClientRef[];
  messages?: readonly unknown[];
  appState?: Record<string, unknown>;
  abortController?: AbortController;
  options?: ToolUseOptions;
}

export function createToolUseContext(init: ContextInit): ToolUseContext {
  return {
    tools: init.tools,
    mcpClients: init.mcpClients ?? [],
    permission: {
      policy: init.policy,
      mode: init.mode ?? init.policy.mode,
      cwd: init.cwd,
      ...(init.classifier ? { classifier: init.classifier } : {}),
      ...(init.sessionId ? { sessionId: init.sessionId } : {}),
      ...(init.agentId ? { agentId: init.agentId } : {}),
      ...(init.fs ? { fs: init.fs } : {}),
    },
    messages: init.messages ?? [],
    appState: init.appState ?? {},
    abortController: init.abortController ?? new AbortController(),
    options: init.options ?? {},
  };
}
