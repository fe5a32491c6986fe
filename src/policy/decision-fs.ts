import { type FileSystemView, joinName, type TreeWalk, type WalkEntry } from './fs-view.js';
import { isPlain } from './plain-path.js';

/**
 * The file-system view of one decision: it asks for the same realpath several times (the
 * workspace check, each rule list, the protected-path guard), and the deny pass, the ask pass
 * and the tree guard of a Bash line look at the same trees, so each answer is kept for the
 * decision. A class, not a bundle of closures: one is made for every decision (replay makes
 * one per record), and its maps are only made when something is asked.
 *
 * Where the view can lstat (FileSystemView.lstatKind), a path that is not a link resolves as
 * its directory's realpath plus its name, and a missing one as its missing parent's: one lstat
 * per path and one realpath per directory per decision, where a realpath per path walked every
 * component and a path not there yet threw. A link goes to the view's realpath. The answer is
 * the view's realpath (a path whose directory resolves to R and is not a link is R/name; one
 * under a missing directory is missing too), held equal by a property over links, dangling
 * links, files on the way and missing paths (test/policy/decide-lean.test.ts). Nothing is kept
 * past the decision: an edit between two calls is seen by the next.
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
      r = this.resolve(absolutePath);
      this.real.set(absolutePath, r);
    }
    return r;
  }

  private resolve(p: string): string {
    const kind = this.base.lstatKind !== undefined && isPlain(p) ? this.base.lstatKind(p) : undefined;
    if (kind !== 'entry' && kind !== 'missing') return this.base.realpath(p);
    const slash = p.lastIndexOf('/');
    const dir = slash === 0 ? '/' : p.slice(0, slash);
    // The directory of something there exists: one realpath. A missing path's may be missing too.
    return joinName(kind === 'entry' ? this.directory(dir) : this.realpath(dir), p, slash);
  }

  private directory(dir: string): string {
    let r = this.real!.get(dir);
    if (r === undefined) {
      r = this.base.realpath(dir);
      this.real!.set(dir, r);
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
