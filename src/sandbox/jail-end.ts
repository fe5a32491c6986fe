import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Knowing that a jailed run has no process left, without reading every process on the machine.
 *
 * Every process of a jailed run lives in the PID namespace bwrap made (--unshare-pid; with
 * every capability dropped none can join another one). When the init of a PID namespace exits,
 * the kernel kills everything else in it and waits until all of it is reaped before the init
 * itself can become a zombie (zap_pid_ns_processes). So: once the init is a zombie or gone, the
 * run is over, with nothing left to kill. bwrap names the init's PID on --info-fd.
 *
 * bwrap exits as soon as its command does, while its init is still exiting; a few short polls
 * usually see the end. If they do not (or the PID is unknown, or taken by another process
 * already), the caller falls back to the sweep of /proc (process-tree.ts).
 */

/** The init's host PID from bwrap's --info-fd JSON (`"child-pid": N`), or undefined. */
export function readJailInit(info: Readable): Promise<number | undefined> {
  return new Promise((resolve) => {
    let text = '';
    info.setEncoding('utf8');
    info.on('data', (chunk: string) => {
      text += chunk;
    });
    const done = () => {
      const pid = Number(/"child-pid"\s*:\s*(\d+)/.exec(text)?.[1]);
      resolve(Number.isInteger(pid) && pid > 1 ? pid : undefined);
    };
    info.once('end', done);
    info.once('close', done);
    info.once('error', () => resolve(undefined));
  });
}

/** How long, at most, to wait for an exiting init before sweeping instead. */
const POLLS = 20;
const POLL_MS = 1;

/** True once the init is a zombie or gone (its namespace is then empty); false to sweep. */
export async function jailEnded(init: number | undefined): Promise<boolean> {
  if (init === undefined) return false;
  for (let i = 0; i < POLLS; i += 1) {
    if (initOver(init)) return true;
    await sleep(POLL_MS);
  }
  return false;
}

function initOver(pid: number): boolean {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ESRCH';
  }
  // A zombie at that PID is the init after its namespace was emptied, or, should the PID have
  // been reused, one that came after the init was gone: either way the run is over. A live
  // process there (the init still exiting, or a reused PID) is not proof: poll again.
  const state = text.slice(text.lastIndexOf(')') + 2, text.lastIndexOf(')') + 3);
  return state === 'Z' || state === 'X';
}
