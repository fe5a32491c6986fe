import type { Behavior } from './behavior.js';
import type { Mode } from './mode.js';
import type { SandboxProfile } from './obligations.js';

export type DecidedBy = 'rule' | 'mode' | 'default' | 'hook' | 'classifier' | 'guard' | 'error';

export interface RuleRef {
  id?: string;
  /** The rule as written, e.g. `Bash(git push --force *)`. */
  text: string;
  /** The file (or layer name) the rule came from. */
  source: string;
  line?: number;
}

export interface DecisionFacts {
  readOnly: boolean;
  concurrencySafe: boolean;
  destructive: boolean;
  reasons: string[];
}

/** The answer to a ToolRequest. Always says why. */
export interface Decision {
  behavior: Behavior;
  /** A sentence for people, shown to the model on deny. */
  reason: string;
  decidedBy: DecidedBy;
  rule?: RuleRef;
  mode: Mode;
  facts: DecisionFacts;
  /** sha256 of the canonical merged policy. */
  policyDigest: string;
  /** The limits the executor must enforce when the call runs (present when behavior is allow). */
  sandbox?: SandboxProfile;
}
