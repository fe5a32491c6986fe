/**
 * The export thread (threaded.ts starts it): the shipper, the OpenTelemetry SDK and its
 * serialisation run here, so none of their CPU is spent on the thread that decides. It gets
 * each batch's lines as the log wrote them and reads the records back from them; warnings and,
 * at the end, the counters go back to the deciding thread, which owns stderr.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { AppendedBatch } from '../audit/log.js';
import type { DecisionRecord } from '../audit/record.js';
import { openExport } from './open.js';
import type { FromWorker, ToWorker, WorkerData } from './thread-messages.js';

const port = parentPort;
if (port === null) throw new Error('src/export/worker.ts runs as a worker thread');
const { url, logPath } = workerData as WorkerData;
const say = (m: FromWorker) => port.postMessage(m);
const shipper = openExport(url, logPath, (message) => say({ type: 'warn', message }));

port.on('message', (m: ToWorker) => {
  if (m.type === 'appended') {
    const batch: AppendedBatch = {
      ino: m.ino,
      start: m.start,
      lines: m.lines,
      records: m.lines.map((line) => JSON.parse(line) as DecisionRecord),
      ...(m.checkpoint !== undefined && { checkpoint: m.checkpoint }),
    };
    shipper.appended(batch);
  } else {
    shipper.close().then(
      () => say({ type: 'closed', stats: shipper.stats }),
      (err: unknown) => say({ type: 'closed', stats: { ...shipper.stats, lastError: String(err) } }),
    );
  }
});
