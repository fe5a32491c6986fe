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
 * usually see the end (or an exiting init with no child left: see initOver). If they do not (or the PID is unknown, or taken by another process
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
  // been reused, one that came after the init was gone: either way the run is over.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  if (state === 'Z' || state === 'X') return true;
  // Sooner: an init that is exiting forks no more, and every other process of its namespace
  // descends from it (an orphan is handed to it, or to a subreaper that descends from it), so
  // an exiting init with no child left is alone there. That is seen before the kernel tears
  // the jail's mounts down, which comes first in the init's exit and which the zombie waits
  // for (~1-2 ms a run, more with the writing jail's ghosts). A process that is not exiting (the
  // init still running, or a reused PID) is not proof, nor is a list that cannot be read.
  if ((Number(fields[6]) & PF_EXITING) === 0) return false;
  return childless(pid);
}

/** PF_EXITING in /proc/<pid>/stat's flags: set when the task enters do_exit(). */
const PF_EXITING = 0x4;

/** Whether no thread of the process has a child (zombies count as children until reaped). */
function childless(pid: number): boolean {
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      if (fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'latin1').trim() !== '') return false;
    }
    return true;
  } catch {
    // Gone meanwhile (the next look says so) or no children lists in this kernel: not proof.
    return false;
  }
}
