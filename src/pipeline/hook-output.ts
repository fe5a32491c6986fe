import { z } from 'zod';

/**
 * Claude Code's hook JSON output, as a command hook prints it or a function hook returns it,
 * read into what the pipeline acts on. Only the members that matter to PreToolUse and
 * PostToolUse are read; the rest is allowed (hooks written for Claude Code print more).
 */
const Decision = z.enum(['allow', 'deny', 'ask', 'defer']);

const HookJsonSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  systemMessage: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  /** Deprecated PreToolUse form: approve -> allow, block -> deny. PostToolUse: block = feedback. */
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: Decision.optional(),
      permissionDecisionReason: z.string().optional(),
      updatedInput: z.record(z.string(), z.unknown()).optional(),
      additionalContext: z.string().optional(),
    })
    .optional(),
});

export type HookJsonOutput = z.input<typeof HookJsonSchema>;

export type HookPermission = z.infer<typeof Decision>;

/** What one hook said, normalized. */
export interface HookOpinion {
  permission?: HookPermission;
  reason?: string;
  updatedInput?: Record<string, unknown>;
  additionalContext?: string;
  /** `continue: false`: stop the run, with this reason. */
  stop?: string;
  systemMessage?: string;
  /** PostToolUse `decision: "block"`: feedback for the model (the tool already ran). */
  block?: string;
}

export type ParsedHookOutput = { ok: true; opinion: HookOpinion } | { ok: false; message: string };

export function parseHookOutput(value: unknown, event: 'PreToolUse' | 'PostToolUse'): ParsedHookOutput {
  if (value === undefined || value === null) return { ok: true, opinion: {} };
  const parsed = HookJsonSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || 'output'}: ${i.message}`).join('; ');
    return { ok: false, message: `the hook's JSON output is not valid (${issues})` };
  }
  const out = parsed.data;
  const specific = out.hookSpecificOutput;
  const opinion: HookOpinion = {};
  if (event === 'PreToolUse') {
    const legacy = out.decision === 'approve' ? 'allow' : out.decision === 'block' ? 'deny' : undefined;
    const permission = specific?.permissionDecision ?? legacy;
    if (permission) opinion.permission = permission;
    const reason = specific?.permissionDecisionReason ?? out.reason;
    if (reason !== undefined && reason !== '') opinion.reason = reason;
    if (specific?.updatedInput) opinion.updatedInput = specific.updatedInput;
  } else if (out.decision === 'block') {
    opinion.block = out.reason ?? 'a PostToolUse hook flagged this result';
  }
  if (specific?.additionalContext) opinion.additionalContext = specific.additionalContext;
  if (out.continue === false) opinion.stop = out.stopReason ?? 'a hook stopped the run';
  if (out.systemMessage) opinion.systemMessage = out.systemMessage;
  return { ok: true, opinion };
}

/** Command hook stdout: JSON when it starts with `{`, otherwise plain text (no opinion). */
export function parseHookStdout(stdout: string, event: 'PreToolUse' | 'PostToolUse'): ParsedHookOutput {
  const text = stdout.trim();
  if (!text.startsWith('{')) return { ok: true, opinion: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, message: `the hook printed JSON that does not parse: ${(err as Error).message}` };
  }
  return parseHookOutput(value, event);
}
