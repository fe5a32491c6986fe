import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Ghosts are the empty directories bwrap creates on the host as mount points for protected
 * paths that did not exist (protected-mounts.ts). They are removed when the run is over — but
 * not while another jail still uses one: removing a mount point on the host detaches that
 * mount in every other namespace, which would lift the other jail's protection mid-run. Runs of
 * this process count their ghosts in memory; runs of other toolgate processes (each hook call
 * starts `toolgate jail`) list theirs in a file named after their pid in a directory only this
 * user can write. A ghost is removed only with `rmdir`, which never removes anything that was
 * put inside it.
 */
const held = new Map<string, number>();

function registryDir(): string {
  const uid = typeof process.getuid === 'function' ? process.getuid() : 'user';
  return path.join(os.tmpdir(), `toolgate-jails-${uid}`);
}

/**
 * Records, before a jail is built, the ghosts it creates and every other protected mount point
 * it relies on (another run's ghost may be among them, seen as an existing empty directory);
 * the returned function releases them and removes the ghosts no one else holds.
 */
export function holdGhosts(
  runId: string,
  ghosts: readonly string[],
  mountPoints: readonly string[],
): () => void {
  if (ghosts.length === 0 && mountPoints.length === 0) return () => undefined;
  const all = [...new Set([...ghosts, ...mountPoints])];
  for (const g of all) held.set(g, (held.get(g) ?? 0) + 1);
  const file = path.join(registryDir(), `${process.pid}-${runId}.json`);
  let registered = false;
  try {
    fs.mkdirSync(registryDir(), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, JSON.stringify(all), { mode: 0o600 });
    registered = true;
  } catch {
    // Without the registry a ghost is only left behind (an empty directory), never removed early.
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (registered) fs.rmSync(file, { force: true });
    for (const g of all) {
      const count = (held.get(g) ?? 1) - 1;
      if (count > 0) held.set(g, count);
      else held.delete(g);
    }
    const free = ghosts.filter((g) => !held.has(g));
    if (!registered) return;
    const elsewhere = heldByOtherProcesses();
    // Deepest first, so that a ghost's parent (when it is one too) is empty when its turn comes.
    for (const g of free.sort((a, b) => b.length - a.length)) {
      if (elsewhere === undefined || elsewhere.has(g)) continue;
      try {
        fs.rmdirSync(g);
      } catch {
        // Not empty, not a directory, or gone: then it is not ours to remove.
      }
    }
  };
}

/** Ghosts listed by live toolgate processes other than this one; undefined when unreadable. */
function heldByOtherProcesses(): Set<string> | undefined {
  const dir = registryDir();
  const out = new Set<string>();
  let files: string[];
  try {
    files = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const name of files) {
    const pid = Number(name.split('-')[0]);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const file = path.join(dir, name);
    if (!isAlive(pid)) {
      fs.rmSync(file, { force: true });
      continue;
    }
    try {
      for (const g of JSON.parse(fs.readFileSync(file, 'utf8')) as string[]) out.add(g);
    } catch {
      // Being written right now, or damaged: keep every ghost rather than guess.
      return undefined;
    }
  }
  return out;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
