import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { RUN_ID_VARIABLE } from './process-tree.js';

/**
 * What kills a run's processes when toolgate dies in a way no exit hook sees (SIGKILL, the OOM
 * killer): one small shell per toolgate process, in a session of its own, reading a pipe from
 * toolgate. Before a command starts toolgate writes the run's tag, once it has started its
 * process group, and when the run is over it takes both back. The kernel closes toolgate's end
 * of the pipe however toolgate dies; at that end-of-file the shell kills what is left of every
 * run still listed: the group (background `&` and `nohup` children) and every process carrying
 * the run's tag (`setsid` ones), a few rounds, for what forks meanwhile.
 *
 * Only for runs without bubblewrap (sandbox.os off, or auto where it cannot run): a jailed run
 * has --die-with-parent and its own PID namespace, which the kernel tears down as a whole.
 * The pipe is close-on-exec in toolgate, so no command holds it open. Like the sweep in
 * process-tree.ts, it cannot find a process that both left the group and dropped the tag.
 */
const SCRIPT = `
runs=' '; groups=' '
while read -r op id pg; do
  case $op in
    t) runs="$runs$id " ;;
    g) groups="$groups$id:$pg " ;;
    d)
      case $runs in *" $id "*) runs="\${runs%% $id *} \${runs#* $id }" ;; esac
      case $groups in *" $id:"*) post=\${groups#* $id:}; groups="\${groups%% $id:*} \${post#* }" ;; esac
      ;;
  esac
done
[ "$runs" = ' ' ] && exit 0
i=0
while [ $i -lt 5 ]; do
  i=$((i + 1))
  for g in $groups; do kill -s KILL -- "-\${g#*:}" 2>/dev/null; done
  for id in $runs; do
    for f in $(grep -lzx "${RUN_ID_VARIABLE}=$id" /proc/[0-9]*/environ 2>/dev/null); do
      p=\${f#/proc/}; p=\${p%/environ}
      [ "$p" = "$$" ] || kill -s KILL "$p" 2>/dev/null
    done
  done
  sleep 0.05 2>/dev/null || sleep 1
done
`;

let pipe: Writable | null | undefined;

function watchdog(): Writable | undefined {
  if (pipe === undefined) {
    try {
      const child = spawn('/bin/sh', ['-c', SCRIPT], {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
        env: { PATH: '/usr/bin:/bin' },
      });
      child.on('error', () => {
        pipe = null;
      });
      child.unref();
      const stdin = child.stdin!;
      stdin.on('error', () => {
        pipe = null;
      });
      // It must not keep a finished toolgate alive.
      (stdin as Writable & { unref?: () => void }).unref?.();
      pipe = stdin;
    } catch {
      pipe = null;
    }
  }
  return pipe ?? undefined;
}

export interface Watched {
  /** The run's process group, once the command has started. */
  started(pgid: number): void;
  /** The run is over: nothing of it to kill any more. */
  done(): void;
}

/** Lists a run with the watchdog; undefined when no watchdog could be started (say so). */
export function watchRun(runId: string): Watched | undefined {
  const out = watchdog();
  if (out === undefined) return undefined;
  out.write(`t ${runId}\n`);
  return {
    started(pgid) {
      pipe?.write(`g ${runId} ${pgid}\n`);
    },
    done() {
      pipe?.write(`d ${runId}\n`);
    },
  };
}
