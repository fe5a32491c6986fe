import fs from 'node:fs';
import path from 'node:path';
import type { PolicyProblem } from './policy-file.js';

/**
 * Where a project's policy lives, and whether a layer path is there at all. The hook is called
 * with the agent's cwd, which moves with `cd`: the project is found from it, never assumed to
 * be it. A path that exists in any form but cannot be read as a file is a problem, never a
 * layer silently skipped (a policy that cannot be read must not be a policy that allows).
 */

/**
 * The project root: $CLAUDE_PROJECT_DIR (Claude Code sets it for every hook) when it names a
 * directory, else the nearest ancestor of `cwd` (itself included) holding `.toolgate/` or
 * `.git`, else `cwd`.
 */
export function projectRoot(cwd: string, env: NodeJS.ProcessEnv): string {
  const given = env.CLAUDE_PROJECT_DIR;
  if (given !== undefined && path.isAbsolute(given) && isDirectory(given)) return path.resolve(given);
  const start = path.resolve(cwd);
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (present(path.join(dir, '.toolgate')) || present(path.join(dir, '.git'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}

/**
 * Whether a layer file is there: 'absent' only when nothing exists at the path (ENOENT);
 * a regular file (symlinks followed) is 'file'; anything else is a problem naming the path.
 */
export function probeLayerFile(file: string): 'absent' | 'file' | PolicyProblem {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      // A dangling symlink is a layer someone meant to have: it is not "absent".
      if (lstatQuiet(file)?.isSymbolicLink()) return problem(file, 'a symlink to nothing');
      return 'absent';
    }
    return problem(file, whyNot(code, err));
  }
  if (!stat.isFile()) return problem(file, stat.isDirectory() ? 'is a directory' : 'is not a regular file');
  return 'file';
}

/** The entries of a layer directory (`managed.d/`), sorted; absent = []; unreadable = a problem. */
export function listLayerDir(dir: string, suffixes: readonly string[]): string[] | 'absent' | PolicyProblem {
  const kind = probeDir(dir);
  if (kind !== 'dir') return kind;
  try {
    return fs
      .readdirSync(dir)
      .filter((n) => suffixes.some((s) => n.endsWith(s)))
      .sort()
      .map((n) => path.join(dir, n));
  } catch (err) {
    return problem(dir, whyNot((err as NodeJS.ErrnoException).code, err));
  }
}

function probeDir(dir: string): 'absent' | 'dir' | PolicyProblem {
  try {
    return fs.statSync(dir).isDirectory() ? 'dir' : problem(dir, 'is not a directory');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' && !lstatQuiet(dir)?.isSymbolicLink()
      ? 'absent'
      : problem(dir, whyNot(code, err));
  }
}

export function whyNot(code: string | undefined, err: unknown): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ELOOP':
      return 'a symlink loop';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ENAMETOOLONG':
      return 'the path is too long';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

function problem(file: string, why: string): PolicyProblem {
  return { file, message: `cannot read the policy layer: ${why}` };
}

function present(p: string): boolean {
  return lstatQuiet(p) !== undefined;
}

function lstatQuiet(p: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(p);
  } catch {
    return undefined;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
