/**
 * Reading a decision log record by record, for replay and report: streams the file (memory
 * stays at one read chunk whatever the size of the log) and hands each record, parsed, to a
 * visitor.
 *
 * `verify: true` checks every line as `verifyLog` does while it is read (its bytes hash to its
 * `hash`; its seq and prev follow the record before it) and stops at the first line that does
 * not, or at a cut-off last line. It does not say what is wrong: the caller asks `verifyLog`,
 * so that every command names a broken log in the same words.
 * `verify: false` skips lines that are not records and lists them (the first few), and
 * ignores a cut-off last line.
 * Either way a record of a newer format stops the scan: this engine cannot know what it says.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { DECIDERS } from '../policy/decision.js';
import { lineHash } from './chain.js';
import { describe } from './error.js';
import { checkLine } from './line.js';
import { readLines } from './reader.js';
import { type DecisionRecord, FORMAT_VERSION, GENESIS } from './record.js';

export interface ScanProgress {
  records: number;
  bytes: number;
  totalBytes: number;
}

export interface ScanOptions {
  verify: boolean;
  onProgress?: (progress: ScanProgress) => void;
}

export interface SkippedLine {
  line: number;
  message: string;
}

export interface ScanOk {
  ok: true;
  /** Records handed to the visitor. */
  records: number;
  /** With verify: the hash of the last record (GENESIS when there was none). */
  head: string;
  /** Without verify: lines that are not records (the first MAX_SKIPPED of them) and how many in all. */
  skipped: SkippedLine[];
  skippedCount: number;
  /** Without verify: bytes after the last newline, ignored. */
  tornBytes: number;
}

export type ScanStopKind =
  /** No such file, not a regular file, or a read failure. */
  | 'missing'
  | 'io'
  | 'empty'
  /** With verify: a line that does not check or does not follow; ask verifyLog what is wrong. */
  | 'not-intact'
  /** A line that hashes correctly but does not have the shape of a v1 record. */
  | 'not-a-record'
  | 'newer-version';

export interface ScanStopped {
  ok: false;
  kind: ScanStopKind;
  message: string;
  line?: number;
}

export type ScanResult = ScanOk | ScanStopped;

export type RecordVisitor = (record: DecisionRecord, line: number) => void;

const MAX_SKIPPED = 20;
const PROGRESS_EVERY = 4096;

export async function scanRecords(
  path: string,
  visit: RecordVisitor,
  options: ScanOptions,
): Promise<ScanResult> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return stop('missing', `${path} does not exist`);
    return stop('io', `cannot read ${path}: ${describe(err)}`);
  }
  try {
    const st = await file.stat();
    if (!st.isFile()) return stop('io', `${path} is not a regular file`);
    if (st.size === 0) return stop('empty', `${path} is empty: it holds no records`);
    return await walk(file, st.size, visit, options);
  } catch (err) {
    return stop('io', `cannot read ${path}: ${describe(err)}`);
  } finally {
    await file.close();
  }
}

async function walk(
  file: FileHandle,
  totalBytes: number,
  visit: RecordVisitor,
  { verify, onProgress }: ScanOptions,
): Promise<ScanResult> {
  let records = 0;
  let bytes = 0;
  let prev = GENESIS;
  const skipped: SkippedLine[] = [];
  let skippedCount = 0;
  let stopped: ScanStopped | undefined;

  const summary = await readLines(file, (line, n) => {
    bytes += line.length + 1;
    const read = verify ? verifiedRecord(line, records + 1, prev) : parsedRecord(line);
    if (read.kind !== 'record') {
      if (read.kind === 'skip' || (!verify && read.kind === 'not-a-record')) {
        skippedCount++;
        if (skipped.length < MAX_SKIPPED) skipped.push({ line: n, message: read.message });
        return true;
      }
      stopped = { ok: false, kind: read.kind, message: `line ${n}: ${read.message}`, line: n };
      return false;
    }
    records++;
    prev = read.record.hash;
    visit(read.record, n);
    if (onProgress !== undefined && records % PROGRESS_EVERY === 0)
      onProgress({ records, bytes, totalBytes });
    return true;
  });
  if (stopped !== undefined) return stopped;
  if (verify && summary.tornBytes > 0)
    return stop('not-intact', `the last line is incomplete (${summary.tornBytes} bytes)`, summary.lines + 1);
  onProgress?.({ records, bytes: totalBytes, totalBytes });
  return { ok: true, records, head: prev, skipped, skippedCount, tornBytes: summary.tornBytes };
}

type Read =
  | { kind: 'record'; record: DecisionRecord }
  | { kind: 'skip'; message: string }
  | { kind: Exclude<ScanStopKind, 'missing' | 'io' | 'empty'>; message: string };

/** The verifier's fast path (exact bytes, then the link), with its full check as the fallback. */
function verifiedRecord(line: Buffer, seq: number, prev: string): Read {
  const hashed = lineHash(line);
  if (hashed === undefined || hashed.claimed !== hashed.actual) {
    const check = checkLine(line);
    if (!check.ok) {
      return check.problem.kind === 'newer-version'
        ? { kind: 'newer-version', message: check.problem.message }
        : { kind: 'not-intact', message: check.problem.message };
    }
  }
  const parsed = parsedRecord(line);
  if (parsed.kind === 'skip') return { kind: 'not-intact', message: parsed.message };
  if (parsed.kind !== 'record') return parsed;
  const r = parsed.record;
  if (hashed !== undefined && hashed.claimed === hashed.actual && r.hash !== hashed.claimed)
    return { kind: 'not-intact', message: 'the record does not carry the hash its bytes show' };
  if (r.seq !== seq || r.prev !== prev)
    return { kind: 'not-intact', message: `seq ${r.seq} does not follow the record before it` };
  return parsed;
}

function parsedRecord(line: Buffer): Read {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch (err) {
    return { kind: 'skip', message: `not JSON (${describe(err)})` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { kind: 'skip', message: 'not a decision record (not a JSON object)' };
  const v = (value as { v?: unknown }).v;
  if (typeof v === 'number' && Number.isInteger(v) && v > FORMAT_VERSION) {
    return {
      kind: 'newer-version',
      message: `the record is format v${v}, written by a newer toolgate; this engine reads v${FORMAT_VERSION}`,
    };
  }
  if (v !== FORMAT_VERSION) return { kind: 'skip', message: 'not a decision record (no valid "v")' };
  const problem = shapeProblem(value as Record<string, unknown>);
  if (problem !== undefined) return { kind: 'not-a-record', message: `not a v1 decision record: ${problem}` };
  return { kind: 'record', record: value as DecisionRecord };
}

const BEHAVIORS = new Set(['allow', 'ask', 'deny']);
const DECIDED_BY: ReadonlySet<string> = new Set(DECIDERS);

/**
 * The members replay and report read, checked by hand: RecordSchema (zod) would cost more than
 * a decision. `toolgate verify --deep` checks the whole schema.
 */
function shapeProblem(r: Record<string, unknown>): string | undefined {
  if (typeof r.seq !== 'number' || !Number.isSafeInteger(r.seq) || r.seq < 1) return 'seq';
  if (typeof r.id !== 'string') return 'id';
  if (typeof r.ts !== 'string') return 'ts';
  if (typeof r.hash !== 'string') return 'hash';
  if (typeof r.prev !== 'string') return 'prev';
  if (r.sessionId !== undefined && typeof r.sessionId !== 'string') return 'sessionId';
  if (r.agentId !== undefined && typeof r.agentId !== 'string') return 'agentId';
  const req = r.request as Record<string, unknown> | undefined;
  if (typeof req !== 'object' || req === null) return 'request';
  if (typeof req.tool !== 'string') return 'request.tool';
  if (typeof req.cwd !== 'string') return 'request.cwd';
  if (req.mode !== undefined && typeof req.mode !== 'string') return 'request.mode';
  const d = r.decision as Record<string, unknown> | undefined;
  if (typeof d !== 'object' || d === null) return 'decision';
  if (!BEHAVIORS.has(d.behavior as string)) return 'decision.behavior';
  if (!DECIDED_BY.has(d.decidedBy as string)) return 'decision.decidedBy';
  if (typeof d.reason !== 'string') return 'decision.reason';
  if (typeof d.mode !== 'string') return 'decision.mode';
  const rule = d.rule as Record<string, unknown> | undefined;
  if (rule !== undefined && (typeof rule !== 'object' || rule === null || typeof rule.text !== 'string'))
    return 'decision.rule';
  if (typeof r.policyDigest !== 'string') return 'policyDigest';
  if (typeof r.engine !== 'string') return 'engine';
  if (typeof r.grammar !== 'string') return 'grammar';
  if (r.redacted !== undefined && !Array.isArray(r.redacted)) return 'redacted';
  return undefined;
}

function stop(kind: ScanStopKind, message: string, line?: number): ScanStopped {
  return { ok: false, kind, message, ...(line === undefined ? {} : { line }) };
}
