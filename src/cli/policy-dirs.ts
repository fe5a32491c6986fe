import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { toolgatePolicySchema } from '../policy/schema.js';
import { UsageError } from './io.js';
import { policyPath } from './policy-args.js';

/**
 * What `toolgate test` and `toolgate lint` run on, as OPA users expect from `opa test .`: the
 * files named are one policy, merged as the hook merges layers (first highest); a directory
 * stands for every policy file under it, each one on its own (its `extends` followed), as if
 * named alone. No argument at all is the current directory.
 *
 * A policy file under a directory is one a person would call a toolgate policy: any YAML or
 * JSON file in a `.toolgate/` directory (a broken one there must fail the run, not be
 * skipped), else a mapping with `version: 1` and only toolgate's top-level keys, and, when
 * asked for, Claude Code's `.claude/settings*.json` holding `permissions`.
 */
export interface PolicyRun {
  /** Absolute paths (or builtin: names), first highest. */
  readonly files: readonly string[];
}

const SUFFIXES = ['.yaml', '.yml', '.json'];
/** Never policies, and the largest trees a project holds. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn']);
const MAX_BYTES = 1 << 20;
const TOOLGATE_KEYS = new Set(Object.keys(toolgatePolicySchema.shape));

export function policyRuns(
  positionals: readonly string[],
  cwd: string,
  options: { claudeSettings?: boolean } = {},
): PolicyRun[] {
  const args = positionals.length === 0 ? ['.'] : positionals;
  const named: string[] = [];
  const found: string[] = [];
  for (const arg of args) {
    const file = policyPath(arg, cwd);
    if (file.startsWith('builtin:') || !isDirectory(file)) named.push(file);
    else {
      const under = policyFilesUnder(file, options.claudeSettings === true);
      if (under.length === 0)
        throw new UsageError(
          `no policy file under ${arg}`,
          'name a policy file, or write one with toolgate init',
        );
      found.push(...under);
    }
  }
  const runs: PolicyRun[] = named.length > 0 ? [{ files: named }] : [];
  for (const f of [...new Set(found)]) if (!named.includes(f)) runs.push({ files: [f] });
  return runs;
}

/** The policy files under `dir`, sorted; symlinked directories are not followed. */
export function policyFilesUnder(dir: string, claudeSettings: boolean): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch (err) {
      // A directory that cannot be read may hold a policy: say so rather than pass over it.
      throw new UsageError(`cannot read ${d} (${(err as Error).message})`);
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(p);
      } else if ((e.isFile() || e.isSymbolicLink()) && SUFFIXES.some((s) => e.name.endsWith(s))) {
        if (isPolicyFile(p, claudeSettings)) out.push(p);
      }
    }
  };
  walk(dir);
  return out;
}

function isPolicyFile(file: string, claudeSettings: boolean): boolean {
  const parent = path.basename(path.dirname(file));
  if (parent === '.toolgate') return true;
  let text: string;
  try {
    if (fs.statSync(file).size > MAX_BYTES) return false;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch {
    return false;
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return false;
  const record = data as Record<string, unknown>;
  if (parent === '.claude' && /^settings(\.local)?\.json$/.test(path.basename(file)))
    return claudeSettings && 'permissions' in record;
  return record.version === 1 && Object.keys(record).every((k) => TOOLGATE_KEYS.has(k));
}

function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file).isDirectory();
  } catch {
    return false;
  }
}
