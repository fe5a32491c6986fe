import type { Decision } from '../policy/decision.js';

/**
 * toolgate's ask, for an agent that cannot put it to a person from a hook (Codex and Copilot
 * ignore an ask; Gemini headless waits for an answer nobody gives): a deny that says why and how
 * to hand such calls to the agent's own approval instead (`--agent-asks`). Never an allow: a call
 * the policy wants a person to see must not run because the agent could not show it.
 */
export function unaskable(decision: Decision, agent: string, why: string): Decision {
  return {
    ...decision,
    behavior: 'deny',
    reason: `${decision.reason}; a person would have to approve it, but ${why}, so it is denied (toolgate hook --agent-asks leaves such calls to ${agent}'s own approval)`,
  };
}
