/**
 * One line of the decision log. The record carries the request exactly as it was asked
 * (tool, input, cwd, the mode as requested, session and agent ids) so that `replay` can ask
 * the same question of another policy, and the decision with everything that explains it.
 *
 * Format version 1. `seq` is 1-based and dense: in an intact log the record with seq N is on
 * line N, and the checkpoint's count equals the seq of the head record.
 */
import { z } from 'zod';
import { DECIDERS } from '../policy/decision.js';
import { MODES } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';

import { FORMAT_VERSION, HEX64 } from './format.js';

export { FORMAT_VERSION, GENESIS, HEX64 } from './format.js';

const Mode = z.enum(MODES);
const Hex64 = z.string().regex(HEX64, 'a lowercase sha256 hex digest');

/**
 * Every object but `request.input` is strict: an unknown member is not part of format v1.
 * That strictness is also what lets the verifier find the top-level `"hash"` member by its
 * first occurrence in a line (see line.ts), so do not loosen it without bumping the version.
 */
export const RecordSchema = z.strictObject({
  v: z.literal(FORMAT_VERSION),
  seq: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  /** When the record was written (ISO 8601, UTC), under the log's lock: non-decreasing on one host. */
  ts: z.iso.datetime(),
  id: z.uuid(),
  sessionId: z.string().optional(),
  agentId: z.string().optional(),
  /**
   * The agent program that asked (`claude-code`, `gemini-cli`, `codex`, `cursor`,
   * `claude-agent-sdk`, ...) and its version when it said; `agentId` is a subagent inside it.
   * Optional: absent in records written before it existed and where the caller did not say.
   */
  agent: z.strictObject({ name: z.string(), version: z.string().optional() }).optional(),
  /**
   * The answer the agent was sent (what it acts on), when a hook answered: `none` is no answer
   * (the agent's own settings decide); `jailed`, the call was sent rewritten to run in the jail.
   * Optional: absent in records written before it existed and outside hooks.
   */
  sent: z
    .strictObject({ answer: z.enum(['allow', 'ask', 'deny', 'none']), jailed: z.literal(true).optional() })
    .optional(),
  request: z.strictObject({
    tool: z.string(),
    input: z.json(),
    cwd: z.string(),
    /** The mode as the caller asked for it; absent when the policy's own mode applied. */
    mode: Mode.optional(),
  }),
  decision: z.strictObject({
    behavior: z.enum(['allow', 'ask', 'deny']),
    decidedBy: z.enum(DECIDERS),
    rule: z
      .strictObject({
        id: z.string().optional(),
        text: z.string(),
        source: z.string(),
        line: z.number().int().optional(),
      })
      .optional(),
    reason: z.string(),
    /** The mode that was in force (the request's, or the policy's default). */
    mode: Mode,
    facts: z.strictObject({
      readOnly: z.boolean(),
      concurrencySafe: z.boolean(),
      destructive: z.boolean(),
      reasons: z.array(z.string()),
    }),
  }),
  policyDigest: z.string(),
  engine: z.string(),
  grammar: z.string(),
  /**
   * JSON pointers (into this record) of the strings in which secrets were replaced by a
   * marker. Present only when something was redacted: replaying such a record decides on the
   * redacted text, not on what the agent sent.
   */
  redacted: z.array(z.string()).min(1).optional(),
  prev: Hex64,
  hash: Hex64,
});

export type DecisionRecord = z.infer<typeof RecordSchema>;

/** A record before it has a place in the chain. */
export type UnchainedRecord = Omit<DecisionRecord, 'seq' | 'ts' | 'prev' | 'hash'>;

/** The question the record answered, as `decide()` takes it: what replay re-asks. */
export function requestOf(record: DecisionRecord): ToolRequest {
  const request: ToolRequest = {
    tool: record.request.tool,
    input: record.request.input,
    cwd: record.request.cwd,
  };
  if (record.request.mode !== undefined) request.mode = record.request.mode;
  if (record.sessionId !== undefined) request.sessionId = record.sessionId;
  if (record.agentId !== undefined) request.agentId = record.agentId;
  return request;
}
