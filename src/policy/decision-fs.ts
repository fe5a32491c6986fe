import type { FileSystemView, TreeWalk, WalkEntry } from './fs-view.js';

/**
 * The file-system view of one decision: it asks for the same realpath several times (the
 * workspace check, each rule list, the protected-path guard), and the deny pass, the ask pass
 * and the tree guard of a Bash line look at the same trees, so each answer is kept for the
 * decision. A class, not a bundle of closures: one is made for every decision (replay makes
 * one per record), and its maps are only made when something is asked.
 */
export class DecisionFs implements FileSystemView {
  readonly home: string;
  private real: Map<string, string> | undefined;
  private trees: Map<string, readonly WalkEntry[] | undefined> | undefined;

  constructor(private readonly base: FileSystemView) {
    this.home = base.home;
    // A view without walk makes recursive reads unknown: keep it without one.
    if (base.walk === undefined) this.walk = undefined;
  }

  realpath(absolutePath: string): string {
    this.real ??= new Map();
    let r = this.real.get(absolutePath);
    if (r === undefined) {
      r = this.base.realpath(absolutePath);
      this.real.set(absolutePath, r);
    }
    return r;
  }

  realpathAnchor(absolutePath: string): string {
    const known = this.real?.get(absolutePath);
    if (known !== undefined) return known;
    return this.base.realpathAnchor ? this.base.realpathAnchor(absolutePath) : this.realpath(absolutePath);
  }

  glob(pattern: string, cwd: string): readonly string[] | undefined {
    return this.base.glob(pattern, cwd);
  }

  walk?(root: string, how: TreeWalk, limit: number): readonly WalkEntry[] | undefined {
    this.trees ??= new Map();
    const key = `${root}\0${how.skipsHidden}${how.followsLinks}${limit}`;
    if (!this.trees.has(key)) this.trees.set(key, this.base.walk!(root, how, limit));
    return this.trees.get(key);
  }
}
