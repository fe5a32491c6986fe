import type { Behavior } from './behavior.js';
import type { Mode } from './mode.js';
import type { SandboxProfile } from './obligations.js';

/** Who settled it. `user` is a person (or the SDK's canUseTool callback) answering an ask. */
export const DECIDERS = ['rule', 'mode', 'default', 'hook', 'classifier', 'user', 'guard', 'error'] as const;
export type DecidedBy = (typeof DECIDERS)[number];

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
  /**
   * The limits the executor must enforce when the call runs: present on an allow, and on an
   * ask (the limits the call runs under once approved), absent on a deny.
   */
  sandbox?: SandboxProfile;
  /** Set on a deny that dontAsk mode made out of an ask: approval would have let it run. */
  dontAskDenied?: true;
  /** What the policy says about itself, e.g. a workspace file that is not trusted (policy.notes). */
  policyNotes?: string[];
  /** The signed policy bundles (`name@version`) whose files are layers of the policy (src/bundle). */
  policyBundles?: string[];
}
