import fs from 'node:fs';
import path from 'node:path';
import { listLayerDir, probeLayerFile, whyNot } from './discovery.js';
import type { PolicyProblem } from './policy-file.js';

/**
 * The managed layer is the machine's: `/etc/toolgate/policy.yaml` and `/etc/toolgate/managed.d/*.yaml`
 * are read whenever they exist, and each must be owned by root and writable by nobody else, as
 * must the directories holding it (else the whole policy is refused: someone other than the
 * administrator could have written it). `$TOOLGATE_MANAGED_POLICY` adds one more file under the
 * same conditions; it never removes or replaces the system files. The root directory and the
 * owner are options of the library API only, never read from the environment: tests point them
 * at a directory of their own, and nothing the agent can set moves them.
 */
export interface ManagedOptions {
  /** Default `/etc/toolgate`; null: no system layer (a program embedding toolgate that has none). */
  readonly managedRoot?: string | null;
  /** The uid every managed file and its directory must belong to; default 0 (root). */
  readonly managedOwner?: number;
}

export const MANAGED_ROOT = '/etc/toolgate';

export function managedLayerFiles(
  options: ManagedOptions,
  env: NodeJS.ProcessEnv,
  problems: PolicyProblem[],
): string[] {
  const root = options.managedRoot === undefined ? MANAGED_ROOT : options.managedRoot;
  const owner = options.managedOwner ?? 0;
  const out: string[] = [];
  const take = (file: string, top: string): void => {
    const kind = probeLayerFile(file);
    if (kind === 'absent') return;
    if (kind !== 'file') {
      problems.push(kind);
      return;
    }
    const bad = ownershipProblem(file, top, owner);
    if (bad) problems.push(bad);
    else out.push(file);
  };
  if (root !== null) {
    take(path.join(root, 'policy.yaml'), root);
    const dropIns = listLayerDir(path.join(root, 'managed.d'), ['.yaml', '.yml', '.json']);
    if (Array.isArray(dropIns)) for (const f of dropIns) take(f, root);
    else if (dropIns !== 'absent') problems.push(dropIns);
  }
  const extra = env.TOOLGATE_MANAGED_POLICY;
  if (extra !== undefined && extra !== '') {
    if (!path.isAbsolute(extra)) {
      problems.push({ file: extra, message: 'TOOLGATE_MANAGED_POLICY must be an absolute path' });
    } else if (!out.includes(path.resolve(extra)))
      take(path.resolve(extra), path.dirname(path.resolve(extra)));
  }
  return out;
}

/**
 * The file, its target if it is a symlink, and the directories from it up to `top` (the
 * managed root; for the added file, its own directory) must belong to `owner` (or root) and
 * not be writable by group or others: otherwise someone else could have written or replaced it.
 */
export function ownershipProblem(file: string, top: string, owner: number): PolicyProblem | undefined {
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch (err) {
    return refused(file, whyNot((err as NodeJS.ErrnoException).code, err));
  }
  const chain = [real];
  for (let p = path.dirname(file); ; p = path.dirname(p)) {
    chain.push(p);
    if (p === top || path.dirname(p) === p) break;
  }
  for (const p of chain) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch (err) {
      return refused(file, `${p}: ${whyNot((err as NodeJS.ErrnoException).code, err)}`);
    }
    const isTarget = p === real;
    if (stat.uid !== owner && stat.uid !== 0)
      return refused(
        file,
        `${isTarget ? 'it' : p} is owned by uid ${stat.uid}, not by ${owner === 0 ? 'root' : `uid ${owner}`}`,
      );
    if ((stat.mode & 0o022) !== 0)
      return refused(
        file,
        `${isTarget ? 'it' : p} is writable by ${stat.mode & 0o020 ? 'its group' : 'others'} (mode ${(stat.mode & 0o7777).toString(8)})`,
      );
  }
  return undefined;
}

function refused(file: string, why: string): PolicyProblem {
  return { file, message: `managed policy refused: ${why}` };
}
