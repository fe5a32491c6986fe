import type { FileSystemView } from './fs-view.js';
import type { PathAnchors } from './match/path.js';

/**
 * The anchors path rules are read against (workspace root, home, the rule's policy root), as
 * given and, when any of them is a symlink, as resolved: a pattern is tried under both. They
 * are the same for every rule of one policy file and every path of one decision, so one
 * decision resolves them once per policy root instead of once per candidate rule.
 */
export class AnchorSet {
  private readonly byRoot = new Map<string, readonly PathAnchors[]>();

  constructor(
    private readonly fs: FileSystemView,
    private readonly workspaceRoot: string,
  ) {}

  /** `[as given]`, or `[as given, resolved]` when resolving changes any anchor. */
  variants(policyRoot: string): readonly PathAnchors[] {
    let v = this.byRoot.get(policyRoot);
    if (v === undefined) {
      v = this.resolve(policyRoot);
      this.byRoot.set(policyRoot, v);
    }
    return v;
  }

  private resolve(policyRoot: string): readonly PathAnchors[] {
    const base = { cwd: this.workspaceRoot, home: this.fs.home, policyRoot };
    const real = {
      cwd: this.anchor(this.workspaceRoot),
      home: this.anchor(this.fs.home),
      policyRoot: this.anchor(policyRoot),
    };
    return real.cwd === base.cwd && real.home === base.home && real.policyRoot === base.policyRoot
      ? [base]
      : [base, real];
  }

  private anchor(p: string): string {
    return this.fs.realpathAnchor ? this.fs.realpathAnchor(p) : this.fs.realpath(p);
  }
}
