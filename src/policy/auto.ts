import { analyzeBash } from '../bash/classify.js';
import type { CompiledPolicy } from './compile.js';
import { type DecideOptions, decide } from './decide.js';
import type { Decision } from './decision.js';
import type { ToolRequest } from './request.js';

/**
 * auto mode: what would ask a person goes to a classifier instead. The classifier only ever
 * answers allow or deny; any failure (no answer, a malformed answer, a timeout) is a deny.
 * Deny rules and everything decided before step 8 never reach it.
 */
export interface AutoVerdict {
  readonly behavior: 'allow' | 'deny';
  readonly reason: string;
}

export interface AutoClassifier {
  readonly name: string;
  classify(request: ToolRequest, decision: Decision): Promise<AutoVerdict>;
}

/**
 * Offline default: allows what cannot do lasting harm by the facts toolgate has (not
 * destructive, sends nothing, runs no code it cannot see, no guard involved); denies the rest.
 */
export const offlineClassifier: AutoClassifier = {
  name: 'offline',
  async classify(request, decision) {
    if (decision.decidedBy === 'guard')
      return { behavior: 'deny', reason: `Blocked by classifier: ${decision.reason}` };
    if (decision.decidedBy === 'rule')
      return {
        behavior: 'deny',
        reason: `Blocked by classifier: an ask rule applies (${decision.rule?.text ?? ''})`,
      };
    if (decision.facts.destructive) {
      return {
        behavior: 'deny',
        reason: `Blocked by classifier: ${decision.facts.reasons[0] ?? 'it can destroy data or run unknown code'}`,
      };
    }
    if (request.tool === 'Bash') {
      const command = (request.input as { command?: unknown })?.command;
      const analysis = analyzeBash(typeof command === 'string' ? command : '');
      const unknown = analysis.reports.find((r) => r.unknownCode.length > 0 || r.lingers.length > 0);
      if (unknown)
        return {
          behavior: 'deny',
          reason: `Blocked by classifier: ${unknown.unknownCode[0] ?? unknown.lingers[0]}`,
        };
    }
    return {
      behavior: 'allow',
      reason: `Allowed by the offline classifier: ${decision.facts.reasons[0] ?? 'not destructive'}`,
    };
  },
};

export interface AnthropicClassifierOptions {
  /** An @anthropic-ai/sdk client; built from apiKey/baseURL when absent. */
  readonly client?: { messages: { create(body: unknown, options?: unknown): Promise<unknown> } };
  readonly apiKey?: string;
  readonly baseURL?: string;
  readonly model?: string;
  readonly prompt?: string;
  readonly maxTokens?: number;
  readonly timeoutMs?: number;
}

export const DEFAULT_AUTO_MODEL = 'claude-haiku-4-5';

export const DEFAULT_AUTO_PROMPT = `You review one action an AI coding agent wants to take. The user is away; you decide.
Allow ordinary development work inside the project: reading, building, testing, formatting, committing locally.
Block what can cause lasting harm or leaves the machine without clear intent: deleting or overwriting data
outside the project, force pushes, publishing, deploying, changing permissions, credentials or secrets,
sending data to the network, running code downloaded from the network, disabling safety checks.
Answer with one JSON object and nothing else: {"decision": "allow" | "block", "reason": "<one sentence>"}.`;

export function anthropicClassifier(options: AnthropicClassifierOptions = {}): AutoClassifier {
  let client = options.client;
  const model = options.model ?? DEFAULT_AUTO_MODEL;
  return {
    name: `anthropic:${model}`,
    async classify(request, decision) {
      try {
        if (client === undefined) {
          const { default: Anthropic } = await import('@anthropic-ai/sdk');
          client = new Anthropic({
            ...(options.apiKey ? { apiKey: options.apiKey } : {}),
            ...(options.baseURL ? { baseURL: options.baseURL } : {}),
            maxRetries: 0,
          }) as unknown as NonNullable<typeof client>;
        }
        const body = {
          model,
          max_tokens: options.maxTokens ?? 300,
          system: options.prompt ?? DEFAULT_AUTO_PROMPT,
          messages: [
            {
              role: 'user',
              content: JSON.stringify({
                tool: request.tool,
                input: request.input,
                cwd: request.cwd,
                toolgate: { facts: decision.facts, reason: decision.reason },
              }),
            },
          ],
        };
        const response = (await client.messages.create(body, { timeout: options.timeoutMs ?? 30_000 })) as {
          content?: { type: string; text?: string }[];
        };
        const text = (response.content ?? [])
          .filter((b) => b.type === 'text')
          .map((b) => b.text ?? '')
          .join('');
        return parseVerdict(text);
      } catch (err) {
        return {
          behavior: 'deny',
          reason: `Blocked: the classifier could not be asked (${err instanceof Error ? err.message : String(err)})`,
        };
      }
    },
  };
}

/** The first JSON object in the answer; anything unclear is a block. */
export function parseVerdict(text: string): AutoVerdict {
  const match = /\{[\s\S]*?\}/.exec(text);
  if (match) {
    try {
      const v = JSON.parse(match[0]) as { decision?: unknown; reason?: unknown };
      const reason =
        typeof v.reason === 'string' && v.reason.trim() !== '' ? v.reason.trim() : 'no reason given';
      if (v.decision === 'allow') return { behavior: 'allow', reason: `Allowed by classifier: ${reason}` };
      if (v.decision === 'block' || v.decision === 'deny')
        return { behavior: 'deny', reason: `Blocked by classifier: ${reason}` };
    } catch {
      // fall through
    }
  }
  return { behavior: 'deny', reason: 'Blocked: the classifier gave no clear answer' };
}

/** decide(), then step 8 for auto mode: an ask goes to the classifier. */
export async function decideWithClassifier(
  request: ToolRequest,
  policy: CompiledPolicy,
  options: DecideOptions & { classifier?: AutoClassifier } = {},
): Promise<Decision> {
  const decision = decide(request, policy, options);
  if (decision.behavior !== 'ask' || decision.mode !== 'auto') return decision;
  const classifier = options.classifier ?? offlineClassifier;
  const verdict = await classifier.classify(request, decision);
  const out: Decision = {
    ...decision,
    behavior: verdict.behavior,
    reason: verdict.reason,
    decidedBy: 'classifier',
  };
  // The ask carried the limits an approved call runs under; a deny runs nothing.
  if (verdict.behavior === 'deny') delete out.sandbox;
  return out;
}
