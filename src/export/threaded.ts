/**
 * Export on a thread of its own (#18: it cost 0.38–0.72× of --log throughput when the SDK's
 * serialisation, ~70 µs a record, ran on the thread that decides). The deciding thread only
 * posts each batch's lines, as the log wrote them, to worker.ts, which runs the shipper; so a
 * decision never waits for export, whatever the collector does.
 *
 * Nothing here may reach a decision: a thread that fails is said once on stderr and export
 * stops for this process; what was logged stays in the file (the export queue, see shipper.ts),
 * and the next process that writes the log sends it. The thread does not keep a process alive
 * except while close() lets it finish sending (bounded: the shipper gives up after 2 s).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AppendedBatch, LogExport } from '../audit/log.js';
import { packageRoot } from '../package-root.js';
import { logsEndpoint } from './endpoint.js';
import type { ShipperStats } from './shipper.js';
import type { FromWorker, ToWorker, WorkerData } from './thread-messages.js';

/** close() waits this much longer than the shipper's own 2 s deadline, then ends the thread. */
const CLOSE_MARGIN_MS = 1_000;
const SHIPPER_CLOSE_MS = 2_000;

/**
 * The worker's file: the compiled one in dist/ (the library and the bundled CLI both run from
 * there); from the sources (tests, tsx) the TypeScript one, loaded through tsx.
 */
export function workerFile(): { file: string; execArgv: string[] } {
  const root = packageRoot();
  if (import.meta.filename.endsWith('.ts')) {
    return { file: path.join(root, 'src', 'export', 'worker.ts'), execArgv: [] };
  }
  return { file: path.join(root, 'dist', 'export', 'worker.js'), execArgv: [] };
}

export class ThreadedExport implements LogExport {
  private readonly worker: Worker;
  private failed: string | undefined;
  private readonly closedStats: Promise<ShipperStats | undefined>;
  private settle: (stats: ShipperStats | undefined) => void = () => {};

  constructor(
    url: string,
    logPath: string,
    private readonly warn: (message: string) => void,
  ) {
    const { file, execArgv } = workerFile();
    if (!existsSync(file)) throw new Error(`the export thread's file ${file} is missing (run npm run build)`);
    const workerData: WorkerData = { url, logPath };
    this.closedStats = new Promise((resolve) => {
      this.settle = resolve;
    });
    // From the sources, tsx's loader is registered in the thread first (--import does not reach workers on Node 20).
    this.worker = file.endsWith('.ts')
      ? new Worker(
          `import('tsx/esm/api').then((t) => t.register()).then(() => import(${JSON.stringify(pathToFileURL(file).href)}))`,
          { eval: true, workerData, execArgv, stderr: false },
        )
      : new Worker(file, { workerData, execArgv, stderr: false });
    this.worker.unref();
    this.worker.on('message', (m: FromWorker) => {
      if (m.type === 'warn') this.warn(m.message);
      else this.settle(m.stats);
    });
    this.worker.on('error', (err) => this.fail(err instanceof Error ? err.message : String(err)));
    this.worker.on('exit', (code) => {
      this.fail(`its thread ended (exit code ${code})`);
    });
  }

  appended(batch: AppendedBatch): void {
    if (this.failed !== undefined) return;
    const m: ToWorker = {
      type: 'appended',
      ino: batch.ino,
      start: batch.start,
      lines: batch.lines,
      ...(batch.checkpoint !== undefined && { checkpoint: batch.checkpoint }),
    };
    this.worker.postMessage(m);
  }

  /** The shipper's counters, once close() returned (undefined if its thread failed or ended late). */
  stats: ShipperStats | undefined;

  async close(): Promise<void> {
    if (this.failed !== undefined) return;
    this.worker.ref(); // the process waits for the last sends, and no longer than this
    this.worker.postMessage({ type: 'close' } satisfies ToWorker);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), SHIPPER_CLOSE_MS + CLOSE_MARGIN_MS);
    });
    try {
      this.stats = await Promise.race([this.closedStats, late]);
    } finally {
      clearTimeout(timer);
      this.failed = 'closed';
      await this.worker.terminate();
    }
  }

  private fail(why: string): void {
    this.settle(undefined);
    if (this.failed !== undefined) return;
    this.failed = why;
    this.warn(
      `OTLP export stopped in this process: ${why}; what was logged stays in the log for the next export`,
    );
  }
}

/**
 * What a log writer uses. Throws an Error saying why when `url` is no OTLP/HTTP endpoint,
 * before any thread starts.
 */
export function openThreadedExport(url: string, logPath: string, warn: (message: string) => void): LogExport {
  logsEndpoint(url);
  return new ThreadedExport(url, logPath, warn);
}
