import type { BashPart } from '../bash-parts.js';
import type { Behavior } from '../behavior.js';
import type { DecidedBy, DecisionFacts } from '../decision.js';
import type { Mode } from '../mode.js';
import type { MatchContext, RuleHit } from '../rule-match.js';
import type { ToolClass } from '../tools.js';
import type { Workspace } from '../workspace.js';

/** What one step of the decision order answers about a subject. */
export interface Verdict {
  readonly behavior: Behavior;
  readonly by: DecidedBy;
  readonly reason: string;
  readonly hit?: RuleHit | undefined;
}

/** What every subject carries: the policy's view of the call, the mode, the workspace. */
interface Common {
  readonly ctx: MatchContext;
  readonly mode: Mode;
  readonly facts: DecisionFacts;
}

/** A request that cannot be decided on its merits (bad input, unknown mode, relative cwd). */
export interface InvalidCall {
  readonly kind: 'invalid';
  readonly mode: Mode;
  readonly reason: string;
}

/** One call of a tool that is not a shell. */
export interface ToolCall extends Common {
  readonly kind: 'tool';
  readonly workspace: Workspace;
  readonly tool: string;
  readonly cls: ToolClass;
  readonly input: Record<string, unknown>;
  /** The value of the tool's primary field (file_path, url, ...), as given. */
  readonly target: unknown;
  /** The file it reads or edits, absolute; undefined for tools that name none. */
  readonly file: string | undefined;
  readonly access: 'read' | 'edit' | undefined;
  /** For WebFetch: the URL's host; undefined when the URL has none (invalid input). */
  readonly host: string | undefined;
  /** What the tool's rule patterns match (host, agent, primary field). */
  readonly extract: { host?: string; agent?: string; primary?: string };
  /** How a reason names the call: its file, its host, or the tool. */
  readonly display: string;
}

/** A Bash line: the line as a whole, and each simple command it runs (its parts). */
export interface BashLine extends Common {
  readonly kind: 'bash';
  readonly workspace: Workspace;
  readonly parts: readonly BashPart[];
  /** Why the line as a whole is not understood (parse problems...); undefined when it is. */
  readonly notUnderstood: string | undefined;
  readonly complete: boolean;
  /** Whether any Bash pattern or path rule could match what the line contains. */
  readonly contentRules: boolean;
  /** Whether what cannot be seen into matters: content rules, or WebFetch domain rules. */
  readonly hiddenMatters: boolean;
}

export type Subject = InvalidCall | ToolCall | BashLine;
