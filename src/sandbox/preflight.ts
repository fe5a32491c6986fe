import fs from 'node:fs';
import path from 'node:path';
import type { SandboxProfile } from '../policy/obligations.js';
import { type SandboxError, sandboxError } from './error.js';
import { checkProfile } from './profile.js';

/**
 * Everything that can be known to be wrong before a process exists. A call that fails here
 * never starts, so a bad cwd or a missing root is an error the model can read, not a command
 * that ran somewhere unexpected (or, under bwrap, a mount that silently failed).
 */
export function preflight(cwd: string, profile: SandboxProfile): SandboxError | undefined {
  const invalid = checkProfile(profile);
  if (invalid) return invalid;
  if (!path.isAbsolute(cwd)) {
    return sandboxError('invalid-cwd', `The working directory "${cwd}" is not an absolute path.`, cwd);
  }
  const cwdProblem = directoryProblem(cwd, fs.constants.R_OK | fs.constants.X_OK);
  if (cwdProblem) return sandboxError('invalid-cwd', `The working directory "${cwd}" ${cwdProblem}.`, cwd);
  for (const root of profile.writableRoots) {
    const problem = directoryProblem(root, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
    if (problem) return sandboxError('invalid-root', `The writable root "${root}" ${problem}.`, root);
  }
  for (const root of profile.readableRoots) {
    const problem = directoryProblem(root, fs.constants.R_OK | fs.constants.X_OK);
    if (problem) return sandboxError('invalid-root', `The readable root "${root}" ${problem}.`, root);
  }
  return undefined;
}

function directoryProblem(dir: string, mode: number): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'does not exist';
    if (code === 'ENOTDIR') return 'is not a directory (a component of it is a file)';
    if (code === 'EACCES') return 'cannot be reached by this process (permission denied on a parent)';
    if (code === 'ELOOP') return 'is a symbolic link loop';
    return `cannot be inspected (${code ?? 'error'})`;
  }
  if (!stat.isDirectory()) return 'is not a directory';
  try {
    fs.accessSync(dir, mode);
  } catch {
    const needs = mode & fs.constants.W_OK ? 'read, written and entered' : 'read and entered';
    return `cannot be ${needs} by this process (permission denied)`;
  }
  return undefined;
}
