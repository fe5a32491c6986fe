import { protectedWrite } from '../guards.js';
import { pathRuleHit, toolRuleHit } from '../rule-match.js';
import type { ToolCall, Verdict } from './subject.js';
import { guardVerdict, invalidVerdict, ruleVerdict } from './verdict.js';

/**
 * The steps of the decision order for one call of a tool that is not a shell (table.ts puts
 * them in order). Each answers or returns undefined.
 */

/** WebFetch and the like need a URL with a host; everything else was checked on the request. */
export function toolInputInvalid(c: ToolCall): Verdict | undefined {
  if (c.cls !== 'fetch' || c.host !== undefined) return undefined;
  return invalidVerdict(`${c.tool} needs an http(s) URL (got ${JSON.stringify(c.target)})`);
}

/** A deny or ask rule on the tool (its name, parameters, host) or on the file it reads or edits. */
export function toolRule(kind: 'deny' | 'ask' | 'allow'): (c: ToolCall) => Verdict | undefined {
  return (c) => {
    const hit =
      toolRuleHit(kind, c.tool, c.input, c.ctx, c.extract) ??
      (c.file && c.access ? pathRuleHit(kind, c.access, c.file, c.ctx) : undefined);
    return hit ? ruleVerdict(kind, hit, c.display) : undefined;
  };
}

export function toolPlanMode(c: ToolCall): Verdict | undefined {
  if (c.facts.readOnly) return undefined;
  return {
    behavior: 'deny',
    by: 'mode',
    reason: `plan mode runs only read-only tools; ${c.facts.reasons[0] ?? `${c.tool} is not read-only`}`,
  };
}

export function toolProtectedWrite(c: ToolCall): Verdict | undefined {
  if (c.access !== 'edit' || !c.file) return undefined;
  const hit = protectedWrite(c.file, c.workspace.roots, (p) => c.ctx.fs.realpath(p), c.ctx.policy.ownFiles);
  if (!hit) return undefined;
  return guardVerdict('ask', `${c.file} is a protected path (${hit.label}): ${hit.why}`);
}

export function toolAcceptEdits(c: ToolCall): Verdict | undefined {
  if (c.access !== 'edit' || !c.file || !c.workspace.contains(c.file)) return undefined;
  return {
    behavior: 'allow',
    by: 'mode',
    reason: `acceptEdits mode allows edits inside the workspace (${c.file})`,
  };
}

/** What a tool call gets when no rule and no mode settled it. */
export function toolDefault(c: ToolCall): Verdict {
  switch (c.cls) {
    case 'read':
    case 'search':
      if (c.file && c.workspace.contains(c.file))
        return { behavior: 'allow', by: 'default', reason: `read-only, inside the workspace (${c.file})` };
      return {
        behavior: 'ask',
        by: 'default',
        reason: `${c.file} is outside the workspace; no rule allows reading it`,
      };
    case 'harmless':
    case 'isolated':
    case 'agent':
      return {
        behavior: 'allow',
        by: 'default',
        reason: c.facts.reasons[0] ?? `${c.tool} touches nothing outside the agent`,
      };
    case 'edit':
      return { behavior: 'ask', by: 'default', reason: `${c.tool} writes ${c.file}; no rule allows it` };
    default:
      return {
        behavior: 'ask',
        by: 'default',
        reason: `${c.facts.reasons[0] ?? `${c.tool} is not read-only`}; no rule allows it`,
      };
  }
}
