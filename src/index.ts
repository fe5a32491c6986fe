/**
 * toolgate as a library. The policy decides, the sandbox enforces, the pipeline runs tool
 * calls through both, and the decision log records what was decided.
 */

// Drop-in: an Anthropic SDK agent loop with toolgate in the middle; decisions over HTTP;
// Claude Code's PreToolUse and PermissionRequest hook protocols, in the registry of hook protocols.
export { type AgentRun, type RunAgentOptions, runAgent } from './adapters/agent-loop.js';
// The Claude Agent SDK's query(): a PreToolUse hook callback that decides every call, and canUseTool.
export {
  type AgentSdkCanUseTool,
  type AgentSdkGuard,
  type AgentSdkGuardOptions,
  type AgentSdkHookCallback,
  type AgentSdkHookInput,
  type AgentSdkHookMatcher,
  type AgentSdkPermissionResult,
  agentSdkGuard,
  canUseToolFrom,
  preToolUseHookFrom,
} from './adapters/agent-sdk.js';
export {
  CLAUDE_PROTOCOLS,
  type ClaudeHookEvent,
  claudePermissionRequest,
  claudePreToolUse,
  type HookOutput,
  hookFailure,
  hookMode,
  hookOutput,
  type ParsedHook,
  type PermissionRequestOutput,
  parseHookInput,
} from './adapters/claude-hook.js';
export {
  type HookAnswer,
  type HookPayload,
  type HookProtocol,
  readHookPayload,
} from './adapters/hook-protocol.js';
export { HOOK_PROTOCOLS } from './adapters/hook-protocols.js';
export { createDecisionServer, type DecisionServerOptions } from './adapters/http-server.js';
// MCP: a proxy that guards an MCP server, and MCP servers' tools inside the pipeline.
export {
  connectMcpServer,
  connectMcpServers,
  McpConnectError,
  type McpConnection,
  type McpConnectOptions,
  type McpServerSpec,
  type McpServers,
} from './adapters/mcp-client.js';
export type { AskHandling } from './adapters/mcp-gate.js';
export { isMcpServerName, mcpToolName, sanitizeMcpServerName } from './adapters/mcp-names.js';
export {
  type McpProxy,
  type McpProxyEnd,
  type McpProxyOptions,
  McpUpstreamError,
  startMcpProxy,
} from './adapters/mcp-proxy.js';
export { mcpResourceTools } from './adapters/mcp-resource-tools.js';
export { callToolResultBlock, type McpToolInfo, mcpTool } from './adapters/mcp-tool.js';
export { type OpencodePluginOptions, opencodePlugin } from './adapters/opencode-plugin.js';
// The decision log.
export { DecisionLog, type DecisionLogOptions } from './audit/log.js';
export { type DecisionRecord, requestOf } from './audit/record.js';
export { ReplayError, type ReplayOptions, type ReplayReport, replayLog } from './audit/replay.js';
export { type AuditReport, buildAuditReport, ReportError, type ReportOptions } from './audit/report.js';
export { renderReportHtml } from './audit/report-html.js';
export { type VerifyResult, verifyLog } from './audit/verify.js';
// The Bash classifier.
export { classifyBash } from './bash/classify.js';
export type { BashFacts } from './bash/facts.js';
// The tool pipeline and the built-in tools.
export type {
  DocumentBlock,
  ImageBlock,
  ResultContentBlock,
  TextBlock,
  ToolResultBlock,
  ToolResultContent,
  ToolUseBlock,
} from './pipeline/blocks.js';
export { buildTool, type ToolDef } from './pipeline/build-tool.js';
export { headlessCanUseTool, terminalCanUseTool } from './pipeline/can-use-tool.js';
export { maxToolUseConcurrency } from './pipeline/concurrency.js';
export {
  type ContextInit,
  createToolUseContext,
  type DecisionSink,
  type McpClientRef,
  type PermissionContext,
  type ScheduleEvent,
  type ToolUseContext,
  type ToolUseOptions,
} from './pipeline/context.js';
export type { FailureKind, ToolFailure } from './pipeline/failure.js';
export type {
  HookConfig,
  HookFunction,
  HookHandler,
  HookInput,
  HookJsonOutput,
  HookMatcher,
  PostToolUseHookInput,
  PreToolUseHookInput,
} from './pipeline/hooks.js';
export { type Batch, partitionToolCalls } from './pipeline/partition.js';
export { type ApiToolSchema, RegistryError, ToolRegistry } from './pipeline/registry.js';
export { type RunToolUseOptions, runToolUse, type ToolUseOutcome } from './pipeline/run-tool-use.js';
export { type RunToolsOptions, runTools, type ToolUpdate } from './pipeline/run-tools.js';
export { StreamingToolExecutor } from './pipeline/streaming-executor.js';
export type {
  AnyTool,
  CanUseTool,
  ContextModifier,
  InterruptBehavior,
  PermissionAnswer,
  PermissionCheck,
  Tool,
  ToolCallContext,
  ToolProgress,
  ToolResult,
  ValidationResult,
} from './pipeline/tool.js';
// The policy engine.
export {
  type AutoClassifier,
  anthropicClassifier,
  decideWithClassifier,
  offlineClassifier,
} from './policy/auto.js';
export type { CompiledPolicy } from './policy/compile.js';
export { type DecideOptions, decide } from './policy/decide.js';
export type { Decision, DecisionFacts, RuleRef } from './policy/decision.js';
export { type FileSystemView, nodeFileSystem } from './policy/fs-view.js';
export { discoverPolicyFiles, type LayerOptions } from './policy/layers.js';
export { type LintFinding, type LintOptions, lintPolicy, lintPolicyFiles } from './policy/lint.js';
export { formatProblem, PolicyError, type PolicyProblem } from './policy/load.js';
export { MODES, type Mode, parseMode } from './policy/mode.js';
export type { SandboxProfile } from './policy/obligations.js';
export { loadPolicy, policyFromText } from './policy/policy.js';
export type { ToolRequest } from './policy/request.js';
export { parseRule, RuleError } from './policy/rule.js';
export { runPolicyTests, type TestReport } from './policy/test.js';
// The sandbox.
export { type RunRequest, type RunResult, runSandboxed } from './sandbox/run.js';
export { builtinTools } from './tools/index.js';
