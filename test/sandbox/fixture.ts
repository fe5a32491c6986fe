import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxProfile } from '../../src/policy/obligations.js';
import { RUN_ID_VARIABLE } from '../../src/sandbox/process-tree.js';

/** Shared by the sandbox tests: temp trees that are always removed, and a default profile. */
export interface TempTree {
  /** Real (symlink-free) path of the tree's root. */
  root: string;
  dir(name: string): string;
  file(name: string, content?: string): string;
  cleanup(): void;
}

export function tempTree(prefix = 'toolgate-test-'): TempTree {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  return {
    root,
    dir(name) {
      const p = path.join(root, name);
      fs.mkdirSync(p, { recursive: true });
      return p;
    },
    file(name, content = '') {
      const p = path.join(root, name);
      fs.mkdirSync(path.dirname(p), { recursive: true });
      fs.writeFileSync(p, content);
      return p;
    },
    cleanup() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

export function profileFor(writableRoots: string[], overrides: Partial<SandboxProfile> = {}): SandboxProfile {
  return {
    timeoutMs: 20_000,
    maxOutputChars: 30_000,
    maxOutputBytes: 10_000_000,
    writableRoots,
    readableRoots: [],
    readDeny: [],
    writeDeny: [],
    network: false,
    envAllow: [],
    os: 'off',
    ...overrides,
  };
}

/**
 * Whether a pid is a live process. Zombies are dead (they only wait to be reaped), and so is a
 * task inside exit() (PF_EXITING, 0x4 in the stat flags): it can never run user code again.
 * A PID namespace's init, for one, stays in that state until the kernel has reaped the rest.
 */
export function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    return state !== 'Z' && state !== 'X' && (Number(fields[6]) & 0x4) === 0;
  } catch {
    return false;
  }
}

/** Live pids whose environment contains `NAME=value`, found independently of the code under test. */
export function pidsWithEnv(name: string, value: string): number[] {
  const needle = Buffer.from(`${name}=${value}\0`);
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    try {
      const environ = fs.readFileSync(`/proc/${pid}/environ`);
      const at = environ.indexOf(needle);
      if ((at === 0 || (at > 0 && environ[at - 1] === 0)) && isAlive(pid)) pids.push(pid);
    } catch {
      // gone, or not readable
    }
  }
  return pids;
}

/** The command name of a pid, or '' once it is gone. */
export function commandOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}

/**
 * A run's live processes once signals already sent have been delivered: polls (bounded) while
 * any are left, so a kill in flight is not mistaken for a survivor, and a survivor still is.
 */
export async function settledPids(runId: string): Promise<number[]> {
  for (let i = 0; i < 100 && pidsWithEnv(RUN_ID_VARIABLE, runId).length > 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return pidsWithEnv(RUN_ID_VARIABLE, runId);
}
