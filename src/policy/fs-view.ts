import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Minimatch } from 'minimatch';
import { isPlain } from './plain-path.js';

/**
 * What a decision may learn from the file system: where symlinks lead and which files a glob
 * names. decide() is deterministic for a given file system; tests pass a view of their own.
 */
export interface FileSystemView {
  readonly home: string;
  /** The path with every existing symlink in it resolved (the longest existing prefix, then the rest). */
  realpath(absolutePath: string): string;
  /** The files a bash glob names, in bash's order; undefined when there are too many to check. */
  glob(pattern: string, cwd: string): readonly string[] | undefined;
  /**
   * realpath for the directories rules are anchored to (workspace roots, home, policy roots).
   * These are configuration, not what a call names, so a view may cache them; paths a call
   * names always go through realpath().
   */
  realpathAnchor?(absolutePath: string): string;
  /**
   * Every file and directory below a directory a command reads recursively (`grep -r`, `rg`,
   * `tar -c`), as absolute paths under `root` as given; undefined when there are more than
   * `limit` or the tree cannot be read. A view without it makes such reads unknown (ask).
   */
  walk?(root: string, how: TreeWalk, limit: number): readonly WalkEntry[] | undefined;
  /**
   * What is at a plain path, a final symlink not followed: a link, something else, or nothing
   * (nothing there, or a file on the way); undefined when it cannot be told (no permission).
   * With it, a decision resolves a path that is not a link as its directory's realpath plus its
   * name: one lstat, the directory once per decision (decision-fs.ts), and no exception for a
   * path that does not exist yet.
   */
  lstatKind?(absolutePath: string): 'link' | 'entry' | 'missing' | undefined;
}

export interface TreeWalk {
  /** Leave out names starting with a dot, as rg does by default. */
  readonly skipsHidden: boolean;
  /** Descend into symlinks to directories, as grep -R does. */
  readonly followsLinks: boolean;
}

export interface WalkEntry {
  readonly path: string;
  /** A symlink: where it leads has to be looked at too. */
  readonly link: boolean;
}

const MAX_GLOB_RESULTS = 1000;
const MAX_GLOB_DIRECTORIES = 2000;

export function nodeFileSystem(home: string = os.homedir()): FileSystemView {
  const anchors = new Map<string, { real: string; at: number }>();
  return {
    home,
    realpath: realpathOfLongestPrefix,
    glob: (pattern, cwd) => expandGlob(pattern, cwd),
    walk: walkTree,
    lstatKind(p) {
      let st: fs.Stats | undefined;
      try {
        // No exception for a missing path (nor for ENOTDIR, a file on the way).
        st = fs.lstatSync(p, { throwIfNoEntry: false });
      } catch {
        return undefined;
      }
      return st === undefined ? 'missing' : st.isSymbolicLink() ? 'link' : 'entry';
    },
    realpathAnchor(p) {
      // A few seconds of caching: a warm process (serve) still sees a re-pointed workspace soon.
      const now = Date.now();
      const hit = anchors.get(p);
      if (hit && now - hit.at < ANCHOR_CACHE_MS) return hit.real;
      const real = realpathOfLongestPrefix(p);
      if (anchors.size > 256) anchors.clear();
      anchors.set(p, { real, at: now });
      return real;
    },
  };
}

const ANCHOR_CACHE_MS = 2000;

/** `dir` (a realpath) joined with the name after `p`'s last slash (at `slash`), without normalizing a plain `dir`. */
export function joinName(dir: string, p: string, slash: number): string {
  if (dir === '/') return p.slice(slash);
  return isPlain(dir) ? dir + p.slice(slash) : path.join(dir, p.slice(slash + 1));
}

export function realpathOfLongestPrefix(p: string): string {
  const full = path.resolve(p);
  // Most paths a call names exist: one realpath answers. Only a missing one walks up.
  try {
    return fs.realpathSync.native(full);
  } catch {
    // Missing (or unresolvable): find the longest prefix that exists.
  }
  let head = full;
  const tail: string[] = [];
  for (;;) {
    // existsSync answers "missing" without throwing: an exception per missing level was most of
    // what a decision about a file that does not exist yet (or on an auditor's machine) cost.
    if (fs.existsSync(head)) {
      try {
        const real = fs.realpathSync.native(head);
        return tail.length === 0 ? real : path.join(real, ...tail.reverse());
      } catch {
        // It exists but does not resolve (a symlink loop, no permission): as if missing.
      }
    }
    const parent = path.dirname(head);
    if (parent === head) return full;
    tail.push(path.basename(head));
    head = parent;
  }
}

/**
 * Ignore files rg (and ag, and git's own rules that rg follows) read in a directory. A line
 * `!PATTERN` in one whitelists what it matches, and a whitelisted hidden file is searched
 * (checked with ripgrep 13: `.rgignore` with `!.env` makes `rg TOKEN` print .env); which names
 * a pattern matches is not modelled: any whitelist shows every hidden file below it.
 */
const IGNORE_FILES = ['.ignore', '.rgignore', '.gitignore', '.agignore', '.git/info/exclude'];

function whitelists(dir: string): boolean {
  for (const name of IGNORE_FILES) {
    let text: string;
    try {
      text = fs.readFileSync(`${dir}/${name}`, 'utf8');
    } catch {
      continue;
    }
    if (/^[ \t]*!/m.test(text)) return true;
  }
  return false;
}

/** Whether an ignore file of a directory above `root`, or git's global one, whitelists. */
function whitelistsAbove(root: string): boolean {
  const home = os.homedir();
  const globals = [path.join(process.env.XDG_CONFIG_HOME || path.join(home, '.config'), 'git', 'ignore')];
  for (const g of globals) {
    try {
      if (/^[ \t]*!/m.test(fs.readFileSync(g, 'utf8'))) return true;
    } catch {
      // none
    }
  }
  for (let d = path.dirname(root); ; d = path.dirname(d)) {
    if (whitelists(d)) return true;
    if (d === path.dirname(d)) return false;
  }
}

/**
 * The tree below `root`, depth first, without following symlinks unless asked (and then never
 * twice into the same directory). A root that is a file is its own only entry.
 */
export function walkTree(root: string, how: TreeWalk, limit: number): readonly WalkEntry[] | undefined {
  const entries: WalkEntry[] = [];
  let top: fs.Stats | undefined;
  try {
    top = fs.statSync(root, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
  if (top === undefined) return entries;
  if (!top.isDirectory()) return [{ path: root, link: false }];
  const seen = new Set<string>();
  // A whitelist in an ignore file above the root lets hidden files in everywhere below it.
  const shownAbove = how.skipsHidden && whitelistsAbove(root);
  const stack: [string, boolean][] = [[root, !how.skipsHidden || shownAbove]];
  while (stack.length > 0) {
    const [dir, above] = stack.pop()!;
    const hiddenShown = above || (how.skipsHidden && whitelists(dir));
    if (how.followsLinks) {
      let real: string;
      try {
        real = fs.realpathSync.native(dir);
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
    }
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      // A directory the command could not read either: nothing of it is read.
      continue;
    }
    for (const d of names) {
      if (!hiddenShown && d.name.startsWith('.')) continue;
      const p = dir.endsWith('/') ? dir + d.name : `${dir}/${d.name}`;
      const link = d.isSymbolicLink();
      entries.push({ path: p, link });
      if (entries.length > limit) return undefined;
      if (d.isDirectory()) stack.push([p, hiddenShown]);
      else if (link && how.followsLinks) {
        try {
          if (fs.statSync(p).isDirectory()) stack.push([p, hiddenShown]);
        } catch {
          // A dangling link leads nowhere.
        }
      }
    }
  }
  return entries;
}

/**
 * Bash pathname expansion with its defaults: `*` and `?` do not match a leading dot, `**` is
 * `*` (globstar is off), and a pattern that matches nothing stays as written.
 */
export function expandGlob(pattern: string, cwd: string): readonly string[] | undefined {
  const absolute = path.isAbsolute(pattern);
  const segments = pattern.split('/').filter((s, i) => s !== '' || i === 0);
  let current: string[] = [absolute ? '/' : cwd];
  let visited = 0;
  const start = absolute ? 1 : 0;
  for (let i = start; i < segments.length; i++) {
    const seg = segments[i]!;
    const next: string[] = [];
    if (!/[*?[]/.test(seg)) {
      for (const dir of current) next.push(path.join(dir, seg));
    } else {
      const mm = new Minimatch(seg.replace(/\*\*/g, '*'), { dot: false, nocomment: true, nonegate: true });
      for (const dir of current) {
        if (++visited > MAX_GLOB_DIRECTORIES) return undefined;
        let names: string[];
        try {
          names = fs.readdirSync(dir);
        } catch {
          continue;
        }
        for (const name of names.sort()) {
          if (mm.match(name)) next.push(path.join(dir, name));
          if (next.length > MAX_GLOB_RESULTS) return undefined;
        }
      }
      if (i < segments.length - 1) {
        // Only directories can hold the rest of the pattern.
        current = next.filter((p) => {
          try {
            return fs.statSync(p).isDirectory();
          } catch {
            return false;
          }
        });
        continue;
      }
    }
    current = next;
  }
  if (current.length === 0) return [path.resolve(cwd, pattern)];
  return current.filter((p) => {
    try {
      fs.lstatSync(p);
      return true;
    } catch {
      return false;
    }
  }).length === 0
    ? [path.resolve(cwd, pattern)]
    : current.filter((p) => {
        try {
          fs.lstatSync(p);
          return true;
        } catch {
          return false;
        }
      });
}
