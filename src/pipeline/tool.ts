import type { z } from 'zod';
import type { Decision } from '../policy/decision.js';
import type { SandboxProfile } from '../policy/obligations.js';
import type { ToolResultBlock } from './blocks.js';
import type { ToolUseContext } from './context.js';

/**
 * The Tool contract, after Claude Code's Tool.ts, grouped by purpose: lifecycle
 * (validateInput, checkPermissions, call), capability flags (functions of the input, because
 * `ls` and `rm` are the same Bash tool), what the model sees (prompt, description, the result
 * mapping) and what a person sees (the render group, plain terminal text).
 *
 * Tools are built with `buildTool()`, which fills every optional member with a default that
 * fails closed, so the pipeline never writes `tool.isReadOnly?.(x) ?? false`.
 */
export type InterruptBehavior = 'cancel' | 'block';

export type ValidationResult = { result: true } | { result: false; message: string };

/**
 * A tool's own opinion on a call, on top of the policy. It can only make a call stricter:
 * there is no "allow" here, the policy is the one that allows.
 */
export type PermissionCheck = { behavior: 'passthrough' } | { behavior: 'ask' | 'deny'; message: string };

/** Changes a call makes to the session (e.g. a new cwd); applied in block order. */
export type ContextModifier = (ctx: ToolUseContext) => ToolUseContext;

export interface ToolResult<Output> {
  data: Output;
  contextModifier?: ContextModifier;
}

export interface ToolProgress<Progress> {
  toolUseId: string;
  data: Progress;
}

/** The assistant message the tool_use block came in, when the caller has it. */
export interface ParentMessage {
  id?: string;
  role: 'assistant';
  content?: unknown;
}

/** What a call gets beyond the session context: its id, its decision and the limits it runs under. */
export interface ToolCallContext extends ToolUseContext {
  readonly toolUseId: string;
  /** The final permission decision for this call (behavior is always allow here). */
  readonly decision: Decision;
  /** The limits this call must run under: exactly these, computed by the policy. */
  readonly sandbox: SandboxProfile;
  /** Aborts on the session's abort, the call's deadline, and an interrupt of a cancellable call. */
  readonly signal: AbortSignal;
  /** The working directory of the call (absolute). */
  readonly cwd: string;
}

/** An answer to "may this call run?" from a person or a program, for calls the policy leaves open. */
export type PermissionAnswer =
  | { behavior: 'allow'; updatedInput?: Record<string, unknown>; message?: string }
  | { behavior: 'deny'; message: string };

export interface PermissionQuestion {
  readonly toolUseId: string;
  /** The decision that asked (behavior 'ask'), with the reason to show. */
  readonly decision: Decision;
  readonly signal: AbortSignal;
}

export type CanUseTool = (
  tool: AnyTool,
  input: Record<string, unknown>,
  ctx: ToolUseContext,
  question: PermissionQuestion,
) => Promise<PermissionAnswer>;

export interface RenderOptions {
  verbose?: boolean;
  /** Terminal width; renderers wrap or cut to it when they care. */
  columns?: number;
}

export interface Tool<Input = unknown, Output = unknown, Progress = unknown> {
  readonly name: string;
  /** Deprecated names that still find this tool (and only these: no fuzzy lookup). */
  readonly aliases: readonly string[];
  /** Words ToolSearch matches besides the name and description. */
  readonly searchHint: string;
  readonly inputSchema: z.ZodType<Input>;
  /** Results longer than this go to a file; the model gets a preview and the path. */
  readonly maxResultSizeChars: number;
  /** Sent to the API with `defer_loading`, found through ToolSearch. */
  readonly shouldDefer: boolean;
  /** Never deferred, even when the session defers tools. */
  readonly alwaysLoad: boolean;

  // ---------------------------------------------------------------- capability flags
  isEnabled(): boolean;
  isReadOnly(input: Input): boolean;
  isConcurrencySafe(input: Input): boolean;
  isDestructive(input: Input): boolean;
  /** What a user interrupt does to a running call: cancel it, or let it finish. */
  interruptBehavior(input: Input): InterruptBehavior;

  // ---------------------------------------------------------------- lifecycle
  validateInput(input: Input, ctx: ToolUseContext): Promise<ValidationResult>;
  checkPermissions(input: Input, ctx: ToolUseContext): Promise<PermissionCheck>;
  /**
   * Adds derived fields (e.g. an absolute file_path) to a clone of the input that hooks and the
   * policy see. The call's own input never changes here.
   */
  backfillObservableInput(input: Record<string, unknown>, ctx: ToolUseContext): void;
  call(
    args: Input,
    ctx: ToolCallContext,
    canUseTool: CanUseTool,
    parentMessage: ParentMessage | undefined,
    onProgress: (progress: ToolProgress<Progress>) => void,
  ): Promise<ToolResult<Output>>;

  // ---------------------------------------------------------------- what the model sees
  prompt(options: { tools: readonly AnyTool[] }): string | Promise<string>;
  description(input: Input): string | Promise<string>;
  userFacingName(input: Partial<Input> | undefined): string;
  mapToolResultToToolResultBlockParam(output: Output, toolUseId: string): ToolResultBlock;
  /** A compact form of the input for the auto-mode classifier. */
  toAutoClassifierInput(input: Input): unknown;

  // ---------------------------------------------------------------- what a person sees
  renderToolUseMessage(input: Partial<Input>, options: RenderOptions): string;
  renderToolUseProgressMessage(progress: readonly ToolProgress<Progress>[], options: RenderOptions): string;
  renderToolResultMessage(output: Output, options: RenderOptions): string;
  renderGroupedToolUse(uses: readonly { input: Input; output?: Output }[], options: RenderOptions): string;
  renderToolUseRejectedMessage(input: Partial<Input>, reason: string, options: RenderOptions): string;
  renderToolUseErrorMessage(message: string, options: RenderOptions): string;
}

/**
 * Any tool, whatever its types. Every member that takes the input is a method, and TypeScript
 * checks method parameters bivariantly, so a `Tool<ReadInput>` is assignable to this.
 */
export type AnyTool = Tool<unknown, unknown, unknown>;
