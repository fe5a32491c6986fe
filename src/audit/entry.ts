/**
 * From what the caller hands to `append()` to the record body: picks exactly the members
 * format v1 defines (so nothing unplanned reaches the hashed text), applies redaction, and
 * refuses anything that could not be written exactly.
 */
import type { Decision } from '../policy/decision.js';
import { parseMode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';
import { bodyProblem } from './body-check.js';
import { CanonicalError, canonicalize } from './canonical.js';
import { AuditError } from './error.js';
import type { UnchainedRecord } from './record.js';
import { redactJson } from './redact.js';

export interface Entry {
  request: ToolRequest;
  decision: Decision;
  /** Defaults to `request.sessionId`; when both are given they must agree. */
  sessionId?: string;
  agentId?: string;
  /** The agent program that asked (its hook protocol's agent), and its version if it said. */
  agent?: AgentName;
  /** What the agent was answered, where that differs in kind from the decision (see SentAnswer). */
  sent?: SentAnswer;
}

/**
 * The answer toolgate sent the agent, which is what the agent acts on: not always the decision.
 * Codex cannot be asked, so toolgate's ask reaches it as a deny, and its allow as no answer at
 * all (`none`: the agent's own settings decide); under enforced mode an allowed call is sent
 * rewritten to run in toolgate's jail (`jailed`).
 */
export interface SentAnswer {
  readonly answer: 'allow' | 'ask' | 'deny' | 'none';
  readonly jailed?: true;
}

export interface AgentName {
  readonly name: string;
  readonly version?: string;
}

export interface EntryContext {
  engine: string;
  grammar: string;
  redact: boolean;
  /** A fresh record id. */
  id: () => string;
}

export function toUnchainedRecord(entry: Entry, ctx: EntryContext): UnchainedRecord {
  const { request, decision } = entry;
  const sessionId = pick('sessionId', entry.sessionId, request.sessionId);
  const agentId = pick('agentId', entry.agentId, request.agentId);
  let input: unknown;
  try {
    // Refuse non-JSON input before redaction could turn it into something that looks fine, and
    // take a copy: the record is written a few ticks later and must not see later mutations.
    input = JSON.parse(canonicalize(request.input));
  } catch (err) {
    if (err instanceof CanonicalError) {
      throw new AuditError('invalid-record', `request.input cannot be recorded exactly: ${err.message}`, {
        cause: err,
      });
    }
    throw err;
  }
  const rule = decision.rule && {
    text: decision.rule.text,
    source: decision.rule.source,
    ...(decision.rule.id !== undefined && { id: decision.rule.id }),
    ...(decision.rule.line !== undefined && { line: decision.rule.line }),
  };
  let body: UnchainedRecord = {
    v: 1,
    id: ctx.id(),
    ...(sessionId !== undefined && { sessionId }),
    ...(agentId !== undefined && { agentId }),
    ...(entry.agent !== undefined && {
      agent: {
        name: entry.agent.name,
        ...(entry.agent.version !== undefined && { version: entry.agent.version }),
      },
    }),
    ...(entry.sent !== undefined && {
      sent: { answer: entry.sent.answer, ...(entry.sent.jailed === true && { jailed: true as const }) },
    }),
    request: {
      tool: request.tool,
      input: input as UnchainedRecord['request']['input'],
      cwd: request.cwd,
      // 'bypass' is an alias of 'bypassPermissions' wherever a mode is read; the record uses one spelling.
      ...(request.mode !== undefined && { mode: parseMode(request.mode) ?? request.mode }),
    },
    decision: {
      behavior: decision.behavior,
      decidedBy: decision.decidedBy,
      ...(rule !== undefined && { rule }),
      reason: decision.reason,
      mode: parseMode(decision.mode) ?? decision.mode,
      facts: {
        readOnly: decision.facts.readOnly,
        concurrencySafe: decision.facts.concurrencySafe,
        destructive: decision.facts.destructive,
        reasons: [...decision.facts.reasons],
      },
    },
    policyDigest: decision.policyDigest,
    engine: ctx.engine,
    grammar: ctx.grammar,
  };
  if (ctx.redact) body = redacted(body);
  const problem = bodyProblem(body);
  if (problem !== undefined)
    throw new AuditError('invalid-record', `the decision cannot be recorded: ${problem}`);
  return body;
}

function pick(
  name: string,
  explicit: string | undefined,
  fromRequest: string | undefined,
): string | undefined {
  if (explicit !== undefined && fromRequest !== undefined && explicit !== fromRequest) {
    // Replay rebuilds the request from the record; two different ids would make that a guess.
    throw new AuditError(
      'invalid-record',
      `${name} "${explicit}" differs from request.${name} "${fromRequest}"`,
    );
  }
  return explicit ?? fromRequest;
}

/** The input, and the texts a policy may have copied from it (reasons), lose their secrets. */
function redacted(body: UnchainedRecord): UnchainedRecord {
  const input = redactJson(body.request.input, ['request', 'input']);
  const reason = redactJson(body.decision.reason, ['decision', 'reason']);
  const reasons = redactJson(body.decision.facts.reasons, ['decision', 'facts', 'reasons']);
  const pointers = [...input.pointers, ...reason.pointers, ...reasons.pointers];
  if (pointers.length === 0) return body;
  return {
    ...body,
    request: { ...body.request, input: input.value },
    decision: {
      ...body.decision,
      reason: reason.value,
      facts: { ...body.decision.facts, reasons: reasons.value },
    },
    redacted: pointers,
  };
}
