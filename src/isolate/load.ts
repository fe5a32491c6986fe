import type IsolatedVm from 'isolated-vm';

/**
 * isolated-vm is an optional native dependency: policies without conditions and hosts without
 * a compiler must work without it. It is loaded on first use, and every way it can be missing
 * becomes a value, so the caller can fail closed instead of running code outside an isolate.
 */
export type IvmModule = typeof IsolatedVm;

export type IvmLoad = { ok: true; ivm: IvmModule } | { ok: false; message: string };

let loading: Promise<IvmLoad> | undefined;

/**
 * On Node 20 and later isolated-vm needs `--no-node-snapshot` (its README; without it V8's
 * shared snapshot heap can crash the process on some platforms). A crash cannot be caught, so
 * without the flag the runner is unavailable instead. The vitest config passes the flag to test
 * workers; the CLI entry adds it when it starts node.
 */
export function hasNoSnapshotFlag(): boolean {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) return true;
  return (
    process.execArgv.includes('--no-node-snapshot') ||
    (process.env.NODE_OPTIONS ?? '').includes('--no-node-snapshot')
  );
}

export function loadIsolatedVm(): Promise<IvmLoad> {
  loading ??= load();
  return loading;
}

async function load(): Promise<IvmLoad> {
  if (!hasNoSnapshotFlag()) {
    return {
      ok: false,
      message: 'isolated-vm needs node to be started with --no-node-snapshot on Node 20 and later',
    };
  }
  try {
    const mod = (await import('isolated-vm')) as { default?: IvmModule } & IvmModule;
    const ivm = mod.default ?? mod;
    if (typeof ivm.Isolate !== 'function')
      return { ok: false, message: 'isolated-vm loaded without an Isolate class' };
    return { ok: true, ivm };
  } catch (err) {
    return {
      ok: false,
      message: `isolated-vm could not be loaded: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
}
