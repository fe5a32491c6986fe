/**
 * Ships a decision log's records (and its checkpoints) to an OTLP/HTTP collector, after they
 * are in the file, never in the way of a decision: `appended()` only queues, the sending runs
 * later, and whatever goes wrong with the collector costs a counter and a warning.
 *
 * The log file is the queue. The cursor (cursor.ts) says what the collector has acknowledged;
 * a shipper sends what follows it, from memory when it wrote those records itself (the common
 * case: no re-reading), else from the file, at most BATCH records at a time, so memory is
 * bounded whatever the outage, and records written by other processes (hooks) go out too.
 * Only one process ships a log at a time (LOG.exported.lock, never waited for: a busy lock
 * means someone else is shipping). A failed send moves nothing and backs off (1 s doubling to
 * 60 s, kept in the cursor so other processes wait too); a crash between the collector's
 * acknowledgement and the cursor's move sends those records again (at least once: a witness
 * takes a record twice, see witness.ts).
 *
 * A log that no longer continues what was exported (replaced, cut, re-chained: the next
 * line's `prev` is not the cursor's hash, the inode changed, the file is shorter) is not
 * exported any further, with a warning: what the collector holds is the witness that
 * `toolgate verify LOG --witness` holds the local file against.
 */
import { closeSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import type { Checkpoint } from '../audit/checkpoint.js';
import { AuditError, describe } from '../audit/error.js';
import { FileLock } from '../audit/lock.js';
import type { AppendedBatch, LogExport } from '../audit/log.js';
import type { DecisionRecord } from '../audit/record.js';
import { CHECKPOINT_EVENT, checkpointLine, RECORD_EVENT } from '../audit/witness.js';
import { checkpointAttributes, recordAttributes } from './attributes.js';
import { type Cursor, cursorPathOf, readCursor, writeCursor } from './cursor.js';
import type { OtlpItem, Sender } from './otlp.js';

export interface ShipperOptions {
  logPath: string;
  /** The log's name in the collector: "host:path". */
  logName: string;
  sender: Sender;
  /** Where warnings go (stderr at the CLI). */
  warn: (message: string) => void;
  /** What the warnings call the collector. */
  endpoint: string;
  /** Wait this long after an append before sending, so records leave in batches. Default 200 ms. */
  delayMs?: number;
  /** close() gives up sending after this long. Default 2 s. */
  closeDeadlineMs?: number;
  /** The time, for the backoff (tests). */
  now?: () => number;
}

export interface ShipperStats {
  exported: number;
  checkpoints: number;
  failedSends: number;
  lastError?: string;
  /** Why export stopped for good, if it did. */
  stopped?: string;
}

interface Queued {
  record: DecisionRecord;
  line: string;
  /** Byte offset right after the line. */
  end: number;
  ino: number;
}

const BATCH = 512;
const MAX_QUEUE = 8192;
const MAX_READ_BYTES = 4 << 20;
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
/** Longer than a send can take (the exporter's own timeout is 10 s by default). */
const LOCK_STALE_MS = 60_000;
const BUSY_RETRY_MS = 250;

type Outcome = 'done' | 'more' | 'busy' | 'failed' | 'stopped' | 'waiting';

export class LogShipper implements LogExport {
  private queue: Queued[] = [];
  private latestCheckpoint: Checkpoint | undefined;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closing = false;
  private failing = false;
  private readonly cursorPath: string;
  private readonly lockPath: string;
  private readonly now: () => number;
  readonly stats: ShipperStats = { exported: 0, checkpoints: 0, failedSends: 0 };

  constructor(private readonly o: ShipperOptions) {
    this.cursorPath = cursorPathOf(o.logPath);
    this.lockPath = `${this.cursorPath}.lock`;
    this.now = o.now ?? Date.now;
  }

  appended(batch: AppendedBatch): void {
    if (this.stats.stopped !== undefined) return;
    let end = batch.start;
    for (const [i, record] of batch.records.entries()) {
      const line = batch.lines[i]!;
      end += Buffer.byteLength(line) + 1;
      this.queue.push({ record, line, end, ino: batch.ino });
    }
    // The file holds them all: past the bound, memory lets go and the file is read instead.
    if (this.queue.length > MAX_QUEUE) this.queue = this.queue.slice(-MAX_QUEUE);
    if (batch.checkpoint !== undefined) this.latestCheckpoint = batch.checkpoint;
    this.schedule(this.o.delayMs ?? 200);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = this.o.closeDeadlineMs ?? 2_000;
    let timeout: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timeout = setTimeout(() => resolve('late'), deadline);
      timeout.unref();
    });
    try {
      const finished = await Promise.race([this.flush(), late]);
      if (finished === 'late') {
        this.o.warn(
          `OTLP export to ${this.o.endpoint} did not finish within ${deadline} ms; what was not acknowledged stays in ${this.o.logPath} and goes with the next export`,
        );
      }
    } finally {
      clearTimeout(timeout);
    }
    await Promise.race([this.o.sender.shutdown().catch(() => {}), late]);
  }

  /** Sends until nothing is left, the collector fails, or export stopped. */
  private async flush(): Promise<void> {
    await this.running;
    this.running = this.pump();
    await this.running;
  }

  private schedule(ms: number): void {
    if (this.closing || this.timer !== undefined || this.stats.stopped !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running === undefined) this.running = this.pump();
    }, ms);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const outcome = await this.shipOnce();
        if (outcome === 'more') continue;
        if (outcome === 'busy' && !this.closing) this.schedule(BUSY_RETRY_MS);
        if (outcome === 'waiting' && !this.closing) this.schedule(1_000);
        if (outcome === 'failed' && !this.closing) this.schedule(BACKOFF_FIRST_MS);
        return;
      }
    } catch (err) {
      // Nothing here may reach a decision: an unexpected failure is said and export stops.
      this.stop(`internal error: ${describe(err)}`);
    } finally {
      this.running = undefined;
    }
  }

  private async shipOnce(): Promise<Outcome> {
    let lock: FileLock;
    try {
      lock = await FileLock.acquire(this.lockPath, { timeoutMs: 0, staleMs: LOCK_STALE_MS });
    } catch (err) {
      if (err instanceof AuditError && err.kind === 'lock-timeout') return 'busy';
      throw err;
    }
    try {
      const cursor = readCursor(this.cursorPath);
      if (cursor.retryAt !== undefined && this.now() < cursor.retryAt && !this.closing) return 'waiting';
      if (cursor.retryAt !== undefined && this.now() < cursor.retryAt) return 'failed';
      let st: { ino: number; size: number };
      try {
        st = statSync(this.o.logPath);
      } catch (err) {
        return this.stop(`cannot read ${this.o.logPath}: ${describe(err)}`);
      }
      if (cursor.seq > 0 && cursor.ino !== st.ino)
        return this.stop(`${this.o.logPath} is not the file that was exported (replaced?)`);
      if (st.size < cursor.offset)
        return this.stop(`${this.o.logPath} is shorter than what was exported (cut?)`);
      const batch = st.size === cursor.offset ? [] : this.next(cursor, st.ino);
      if (batch === undefined) return 'stopped';
      const last = batch.at(-1);
      const upTo = last?.record.seq ?? cursor.seq;
      const checkpoint = this.checkpointFor(cursor, upTo);
      if (batch.length === 0 && checkpoint === undefined) {
        this.queue = [];
        return 'done';
      }
      const items: OtlpItem[] = batch.map((q) => ({
        eventName: RECORD_EVENT,
        body: q.line,
        attributes: recordAttributes(q.record, this.o.logName),
        timeMs: Date.parse(q.record.ts),
        warn: q.record.decision.behavior === 'deny',
      }));
      if (checkpoint !== undefined) {
        items.push({
          eventName: CHECKPOINT_EVENT,
          body: checkpointLine(checkpoint),
          attributes: checkpointAttributes(checkpoint.count, checkpoint.head, this.o.logName),
          timeMs: Date.parse(checkpoint.ts),
          warn: false,
        });
      }
      try {
        await this.o.sender.send(items);
      } catch (err) {
        return this.failed(cursor, err, st.size - cursor.offset);
      }
      const next: Cursor = {
        v: 1,
        seq: upTo,
        hash: last?.record.hash ?? cursor.hash,
        offset: last?.end ?? cursor.offset,
        ino: st.ino,
        checkpoint: checkpoint?.count ?? cursor.checkpoint,
      };
      writeCursor(this.cursorPath, next);
      this.stats.exported += batch.length;
      if (checkpoint !== undefined) this.stats.checkpoints++;
      this.dropThrough(upTo);
      if (this.failing) {
        this.failing = false;
        this.o.warn(`OTLP export to ${this.o.endpoint} works again`);
      }
      return next.offset < st.size ? 'more' : 'done';
    } finally {
      lock.release();
    }
  }

  /** The records after the cursor: from memory when they continue it, else from the file. */
  private next(cursor: Cursor, ino: number): Queued[] | undefined {
    this.dropThrough(cursor.seq);
    const first = this.queue[0];
    if (
      first !== undefined &&
      first.ino === ino &&
      first.record.seq === cursor.seq + 1 &&
      first.record.prev === cursor.hash
    ) {
      return this.queue.slice(0, BATCH);
    }
    return this.readFile(cursor, ino);
  }

  private readFile(cursor: Cursor, ino: number): Queued[] | undefined {
    const fd = openSync(this.o.logPath, 'r');
    try {
      for (let size = 1 << 20; ; size *= 4) {
        const buf = Buffer.allocUnsafe(size);
        const n = readSync(fd, buf, 0, size, cursor.offset);
        const out = this.lines(buf.subarray(0, n), cursor, ino);
        if (out === undefined || out.length > 0 || n < size) return out; // n < size: a line still being written
        if (size >= MAX_READ_BYTES) {
          this.stop(`${this.o.logPath} has a record after ${cursor.seq} longer than ${MAX_READ_BYTES} bytes`);
          return undefined;
        }
      }
    } finally {
      closeSync(fd);
    }
  }

  /** The complete lines in `view` (read from the cursor's offset), checked to continue the chain. */
  private lines(view: Buffer, cursor: Cursor, ino: number): Queued[] | undefined {
    const out: Queued[] = [];
    let at = 0;
    let prev = cursor.hash;
    let seq = cursor.seq;
    while (out.length < BATCH) {
      const nl = view.indexOf(0x0a, at);
      if (nl < 0) break;
      const line = view.toString('utf8', at, nl);
      let record: DecisionRecord;
      try {
        record = JSON.parse(line) as DecisionRecord;
      } catch {
        this.stop(`${this.o.logPath} has a line after record ${seq} that is not JSON`);
        return undefined;
      }
      if (record.seq !== seq + 1 || record.prev !== prev) {
        this.stop(
          `${this.o.logPath} does not continue the exported chain after record ${seq} (rewritten or re-chained?)`,
        );
        return undefined;
      }
      at = nl + 1;
      out.push({ record, line, end: cursor.offset + at, ino });
      prev = record.hash;
      seq = record.seq;
    }
    return out;
  }

  /** The newest checkpoint not yet exported that the records up to `upTo` cover. */
  private checkpointFor(cursor: Cursor, upTo: number): Checkpoint | undefined {
    let c = this.latestCheckpoint;
    if (c === undefined || c.count > upTo) c = this.checkpointFile();
    if (c === undefined || c.count > upTo || c.count <= cursor.checkpoint) return undefined;
    return c;
  }

  private checkpointFile(): Checkpoint | undefined {
    try {
      const c = JSON.parse(readFileSync(`${this.o.logPath}.checkpoint`, 'utf8')) as Checkpoint;
      return typeof c.count === 'number' ? c : undefined;
    } catch {
      return undefined;
    }
  }

  private dropThrough(seq: number): void {
    let i = 0;
    while (i < this.queue.length && this.queue[i]!.record.seq <= seq) i++;
    if (i > 0) this.queue = this.queue.slice(i);
  }

  private failed(cursor: Cursor, err: unknown, waitingBytes: number): Outcome {
    this.stats.failedSends++;
    const failures = (cursor.failures ?? 0) + 1;
    const backoff = Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
    writeCursor(this.cursorPath, { ...cursor, failures, retryAt: this.now() + backoff });
    this.stats.lastError = describe(err);
    if (!this.failing) {
      this.failing = true;
      this.o.warn(
        `OTLP export to ${this.o.endpoint} failed (${this.stats.lastError}); ${waitingBytes} bytes of records wait in ${this.o.logPath}, retrying in ${backoff / 1000} s`,
      );
    }
    return 'failed';
  }

  private stop(why: string): 'stopped' {
    if (this.stats.stopped === undefined) {
      this.stats.stopped = why;
      this.queue = [];
      this.o.warn(
        `OTLP export of ${this.o.logPath} stopped: ${why}. Check it with toolgate verify ${this.o.logPath} --witness <what the collector holds>`,
      );
    }
    return 'stopped';
  }
}
