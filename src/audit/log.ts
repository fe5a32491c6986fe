/**
 * The decision log: one JSON line per decision, append-only, hash-chained (see chain.ts),
 * optionally checkpointed (checkpoint.ts) and redacted (redact.ts).
 *
 * Appends from one process go through a FIFO queue and leave in batches: one lock, one tail
 * read and one write(2) per batch, so concurrent append() calls never interleave, never lose
 * a record, and land in call order. With `durable`, a batch is acknowledged (its append()
 * promises resolve) only once fdatasync(2) says it is on disk; the flush runs off the event
 * loop, so the appends that arrive meanwhile leave together in the next batch (group commit:
 * one flush for all of them, instead of one per record). Appends from several processes are serialized by the
 * file lock (lock.ts) around "read the tail record, write the new lines".
 *
 * Fail closed: a log whose last line is torn, or whose last record does not check, is never
 * extended; the append is refused with an AuditError whose kind says why. Only the tail is
 * checked on append (reading the whole log per decision would not scale); `verifyLog`
 * checks everything.
 */
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fdatasync as fdatasyncCallback,
  fstatSync,
  ftruncateSync,
  openSync,
  type Stats,
  statSync,
  writeSync,
} from 'node:fs';
import { ENGINE_VERSION } from '../version.js';
import { type SealedRecord, seal } from './chain.js';
import {
  type Checkpoint,
  type KeyInput,
  makeCheckpoint,
  signingKeyOf,
  writeCheckpoint,
} from './checkpoint.js';
import { type Entry, toUnchainedRecord } from './entry.js';
import { AuditError, describe } from './error.js';
import { GENESIS } from './format.js';
import { installedGrammarVersion } from './grammar.js';
import { fastLink } from './line-link.js';
import { FileLock, type LockOptions } from './lock.js';
import type { DecisionRecord, UnchainedRecord } from './record.js';
import { readTail } from './tail.js';

export type { Entry } from './entry.js';

export interface DecisionLogOptions {
  /** Rewritten after every append with the record count and head hash. */
  checkpointPath?: string;
  /** Ed25519 private key (KeyObject or PEM) that signs each checkpoint. Needs checkpointPath. */
  signingKey?: KeyInput;
  /** Replace secrets in inputs and reasons by hashed markers (see redact.ts for the replay caveat). */
  redact?: boolean;
  /** The tree-sitter-bash version that classified the commands. Default: the installed one. */
  grammarVersion?: string;
  /** Default: this package's version. */
  engineVersion?: string;
  lock?: LockOptions;
  /**
   * Acknowledge a batch only once fdatasync(2) has put it on disk (survives power loss; one
   * disk flush per batch, batches grow while a flush runs). The checkpoint is replaced after
   * the flush and atomically, but not flushed itself: after a power loss it may be an older
   * one, never one ahead of the records.
   */
  durable?: boolean;
  /** Told of every batch once it is in the file; closed with the log (src/export ships records off the machine). */
  export?: LogExport;
}

/** What one batch put in the file. */
export interface AppendedBatch {
  /** The file's inode, and the byte offset of the batch's first line in it. */
  ino: number;
  start: number;
  records: DecisionRecord[];
  /** Each record's line as written, without its newline. */
  lines: string[];
  /** The checkpoint written after the batch, if the log keeps one. */
  checkpoint?: Checkpoint;
}

/** An exporter of the log's records. It must not throw, nor make an append wait for the network. */
export interface LogExport {
  appended(batch: AppendedBatch): void;
  /** Ships what it can before the process ends (bounded in time). */
  close(): Promise<void>;
}

interface Pending {
  body: UnchainedRecord;
  resolve: (record: DecisionRecord) => void;
  reject: (err: unknown) => void;
}

/** Where the chain ends, as last seen by this process. */
interface Head {
  seq: number;
  hash: string;
  /** File identity and size right after that record: if both still hold, nobody appended since. */
  ino: number;
  size: number;
}

const MAX_BATCH = 256;

export class DecisionLog {
  private fd: number | undefined;
  private head: Head | undefined;
  private readonly queue: Pending[] = [];
  private draining: Promise<void> | undefined;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly options: DecisionLogOptions,
    private readonly signingKey: ReturnType<typeof signingKeyOf> | undefined,
    private readonly versions: { engine: string; grammar: string },
  ) {}

  static async open(path: string, options: DecisionLogOptions = {}): Promise<DecisionLog> {
    if (path === '' || options.checkpointPath === '') {
      throw new AuditError('config', 'the log and checkpoint paths must not be empty');
    }
    if (options.signingKey !== undefined && options.checkpointPath === undefined) {
      throw new AuditError('config', 'a signing key signs checkpoints: give checkpointPath too');
    }
    const key = options.signingKey === undefined ? undefined : signingKeyOf(options.signingKey);
    const versions = {
      engine: options.engineVersion ?? ENGINE_VERSION,
      grammar: options.grammarVersion ?? installedGrammarVersion(),
    };
    const log = new DecisionLog(path, options, key, versions);
    log.reopen(); // surface a missing directory or a permission problem now, not at the first decision
    return log;
  }

  /** Resolves with the record as written, once it is in the file (and the checkpoint updated). */
  append(entry: Entry): Promise<DecisionRecord> {
    if (this.closed) return Promise.reject(new AuditError('closed', `${this.path}: the log is closed`));
    let body: UnchainedRecord;
    try {
      body = toUnchainedRecord(entry, {
        engine: this.versions.engine,
        grammar: this.versions.grammar,
        redact: this.options.redact === true,
        id: randomUUID,
      });
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ body, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  /** Waits for queued appends, then releases the file. Appends after close() are refused. */
  async close(): Promise<void> {
    this.closed = true;
    await this.draining;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    await this.options.export?.close();
  }

  private async drain(): Promise<void> {
    // Yield once so that appends made in the same tick leave in one batch.
    await Promise.resolve();
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_BATCH);
      try {
        const records = await this.writeBatch(batch.map((p) => p.body));
        for (const [i, p] of batch.entries()) p.resolve(records[i]!);
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    }
    // Cleared in the same synchronous step as the final length check, so an append() that
    // comes after it starts a new drain instead of waiting on one that has finished.
    this.draining = undefined;
  }

  private async writeBatch(bodies: UnchainedRecord[]): Promise<DecisionRecord[]> {
    const lock = await FileLock.acquire(`${this.path}.lock`, this.options.lock);
    try {
      const { fd, st } = this.currentFile();
      const head =
        this.head !== undefined && this.head.ino === st.ino && this.head.size === st.size
          ? this.head
          : await this.readHead(fd, st.ino, st.size);
      let prev = head.hash;
      let seq = head.seq;
      const sealed: SealedRecord[] = bodies.map((body) => {
        const s = seal(body, { seq: ++seq, prev, ts: new Date().toISOString() });
        prev = s.record.hash;
        return s;
      });
      selfCheck(sealed);
      const data = Buffer.from(sealed.map((s) => `${s.line}\n`).join(''));
      if (!lock.holds()) {
        throw new AuditError(
          'lock-lost',
          `${this.path}: the lock was taken over as stale before we wrote; nothing was written`,
        );
      }
      this.writeAll(fd, data, st.size);
      if (this.options.durable) await flush(fd, this.path, seq - bodies.length + 1, seq);
      this.head = { seq, hash: prev, ino: st.ino, size: st.size + data.length };
      const checkpoint =
        this.options.checkpointPath === undefined
          ? undefined
          : this.checkpoint(this.options.checkpointPath, seq, prev, bodies.length);
      const records = sealed.map((s) => s.record);
      this.options.export?.appended({
        ino: st.ino,
        start: st.size,
        records,
        lines: sealed.map((s) => s.line),
        ...(checkpoint !== undefined && { checkpoint }),
      });
      return records;
    } catch (err) {
      throw err instanceof AuditError ? err : io(this.path, err);
    } finally {
      lock.release();
    }
  }

  /** The chain's end as the file says, refusing a tail we must not extend. */
  private async readHead(fd: number, ino: number, size: number): Promise<Head> {
    const tail = readTail(fd, size);
    if (tail.kind === 'empty') return { seq: 0, hash: GENESIS, ino, size };
    if (tail.kind === 'torn') {
      throw new AuditError(
        'torn-tail',
        `${this.path} does not end in a newline: a write was cut off (a crashed writer?). Refusing to append; run "toolgate verify" and repair the log by hand`,
      );
    }
    // The common case needs no schema; a tail that fails it is judged by the full definition.
    const link = fastLink(tail.line);
    if (link !== undefined) return { seq: link.seq, hash: link.hash, ino, size };
    const { checkLine } = await import('./line.js');
    const check = checkLine(tail.line);
    if (!check.ok) {
      const kind = check.problem.kind === 'newer-version' ? 'newer-version' : 'corrupt-tail';
      throw new AuditError(
        kind,
        `${this.path}: the last record cannot be extended: ${check.problem.message}`,
      );
    }
    return { seq: check.link.seq, hash: check.link.hash, ino, size };
  }

  /** Our descriptor for the file now at `path` (reopened if it was replaced or removed), and its stat. */
  private currentFile(): { fd: number; st: Stats } {
    if (this.fd !== undefined) {
      try {
        const now = statSync(this.path);
        const ours = fstatSync(this.fd);
        if (now.ino === ours.ino && now.dev === ours.dev) return { fd: this.fd, st: ours };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw io(this.path, err);
      }
    }
    const fd = this.reopen();
    return { fd, st: fstatSync(fd) };
  }

  private reopen(): number {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.head = undefined;
    try {
      this.fd = openSync(this.path, 'a+', 0o600);
    } catch (err) {
      throw io(this.path, err);
    }
    return this.fd;
  }

  /** One write(2) in the common case; a short write is completed, a failed one rolled back. */
  private writeAll(fd: number, data: Buffer, sizeBefore: number): void {
    let done = 0;
    try {
      while (done < data.length) done += writeSync(fd, data, done, data.length - done);
    } catch (err) {
      try {
        ftruncateSync(fd, sizeBefore);
      } catch (undo) {
        throw new AuditError(
          'io',
          `${this.path}: write failed (${describe(err)}) and could not be rolled back (${describe(undo)}): the log now ends in a torn line`,
          { cause: err },
        );
      }
      throw new AuditError('io', `${this.path}: write failed, nothing was appended: ${describe(err)}`, {
        cause: err,
      });
    }
  }

  private checkpoint(path: string, count: number, head: string, batchSize: number): Checkpoint {
    try {
      const c = makeCheckpoint(count, head, this.signingKey);
      writeCheckpoint(path, c);
      return c;
    } catch (err) {
      const first = count - batchSize + 1;
      throw new AuditError(
        'checkpoint',
        `records ${first}..${count} were appended to ${this.path}, but checkpoint ${path} could not be updated: ${describe(err)}`,
        { cause: err },
      );
    }
  }
}

/**
 * Every line must pass the verifier's fast path. If it ever did not (a member sorting before
 * "hash" that the format does not expect), writing would create records only the slow path
 * accepts; refuse instead. The fast path (lineHash) cuts the line's first `"hash":"…",` out
 * and hashes the rest; seal cut its line from the very text it hashed, at `hashAt`. So when
 * the first `"hash":"` of the line is at `hashAt`, the fast path hashes that same text and the
 * line verifies on its bytes: checked so, not by hashing every line again (~12 µs a record).
 * A character offset and a byte offset find the same first occurrence: in UTF-8 the bytes of
 * an ASCII character never occur inside another character.
 */
function selfCheck(sealed: SealedRecord[]): void {
  for (const s of sealed) {
    if (s.hashAt < 1 || s.line.indexOf(HASH_MEMBER) !== s.hashAt) {
      throw new AuditError(
        'invalid-record',
        `record ${s.record.seq} would not verify on its bytes; refusing to write it`,
      );
    }
  }
}

const HASH_MEMBER = '"hash":"';

/** fdatasync(2) on the thread pool, so that the event loop takes new appends meanwhile. */
async function flush(fd: number, path: string, first: number, last: number): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) =>
      fdatasyncCallback(fd, (err) => (err ? reject(err) : resolve())),
    );
  } catch (err) {
    throw new AuditError(
      'io',
      `${path}: records ${first}..${last} were written but could not be flushed to disk (${describe(err)}); they are not acknowledged`,
      { cause: err },
    );
  }
}

function io(path: string, err: unknown): AuditError {
  return new AuditError('io', `${path}: ${describe(err)}`, { cause: err });
}
