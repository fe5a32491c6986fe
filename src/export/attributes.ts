/**
 * A decision record as an OpenTelemetry log record: the one mapping (README, "Decision logs
 * for auditors", has it as a table with OCSF 6009 beside it).
 *
 * Where an attribute means what Claude Code's `claude_code.tool_decision` event means, it has
 * that event's name (`tool_name`, `decision`, `source`, `session.id`), so a dashboard built
 * for Claude Code's events counts toolgate's too; everything else is `toolgate.*`. The body is
 * the record's line exactly as the log holds it: a collector that keeps it is a witness
 * (`toolgate verify --witness`), since the line carries its own hash.
 */
import type { DecisionRecord } from '../audit/record.js';

export type AttributeValue = string | number | boolean;

/** Claude Code's `decision`: accept / reject; an ask is neither, and says so. */
export function decisionOf(behavior: DecisionRecord['decision']['behavior']): string {
  return behavior === 'allow' ? 'accept' : behavior === 'deny' ? 'reject' : 'ask';
}

/**
 * Claude Code's `source` (config, hook, user_temporary, user_reject): who answered. Everything
 * the policy settles (rules, modes, guards, the default, the classifier, an error) is config;
 * `toolgate.decided_by` keeps the finer answer.
 */
export function sourceOf(record: DecisionRecord): string {
  const { decidedBy, behavior } = record.decision;
  if (decidedBy === 'hook') return 'hook';
  if (decidedBy === 'user') return behavior === 'deny' ? 'user_reject' : 'user_temporary';
  return 'config';
}

/** `source:line` of the rule that decided, as the Decision's reason names it. */
export function ruleSourceOf(rule: NonNullable<DecisionRecord['decision']['rule']>): string {
  return rule.line === undefined ? rule.source : `${rule.source}:${rule.line}`;
}

export function recordAttributes(record: DecisionRecord, log: string): Record<string, AttributeValue> {
  const d = record.decision;
  const a: Record<string, AttributeValue> = {
    tool_name: record.request.tool,
    decision: decisionOf(d.behavior),
    source: sourceOf(record),
    'toolgate.log': log,
    'toolgate.seq': record.seq,
    'toolgate.hash': record.hash,
    'toolgate.prev': record.prev,
    'toolgate.record_id': record.id,
    'toolgate.behavior': d.behavior,
    'toolgate.decided_by': d.decidedBy,
    'toolgate.reason': d.reason,
    'toolgate.mode': d.mode,
    'toolgate.read_only': d.facts.readOnly,
    'toolgate.destructive': d.facts.destructive,
    'toolgate.policy_digest': record.policyDigest,
    'toolgate.engine': record.engine,
    'toolgate.cwd': record.request.cwd,
  };
  const toolUseId = (record.request.input as { tool_use_id?: unknown } | null)?.tool_use_id;
  if (typeof toolUseId === 'string') a.tool_use_id = toolUseId;
  if (record.sessionId !== undefined) a['session.id'] = record.sessionId;
  if (record.agentId !== undefined) a['toolgate.agent_id'] = record.agentId;
  const agent = (record as { agent?: { name?: unknown; version?: unknown } }).agent;
  if (typeof agent?.name === 'string') a['toolgate.agent'] = agent.name;
  if (typeof agent?.version === 'string') a['toolgate.agent_version'] = agent.version;
  if (d.rule !== undefined) {
    a['toolgate.rule'] = d.rule.text;
    a['toolgate.rule.source'] = ruleSourceOf(d.rule);
    if (d.rule.id !== undefined) a['toolgate.rule.id'] = d.rule.id;
  }
  if (record.redacted !== undefined) a['toolgate.redacted'] = record.redacted.join(',');
  return a;
}

export function checkpointAttributes(
  count: number,
  head: string,
  log: string,
): Record<string, AttributeValue> {
  return { 'toolgate.log': log, 'toolgate.seq': count, 'toolgate.hash': head };
}
