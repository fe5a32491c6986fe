/**
 * The witness: what left the machine. Every record a log writer appends, and its checkpoints,
 * are exported (OTLP, see src/export/); whatever the collector keeps of them, as JSON Lines, is
 * a witness that `toolgate verify LOG --witness FILE|URL` holds the local log against. The
 * local file can then be edited, cut, re-chained, replaced or deleted by someone who controls
 * the machine, and the difference still shows.
 *
 * A witness line is one of:
 * - a decision record, exactly as the log holds it (its own hash is checked);
 * - `{"checkpoint": {...}}`, a checkpoint as the writer made it (signature checked with a key);
 * - an OTLP/JSON export request (`{"resourceLogs": [...]}`, what an OpenTelemetry collector's
 *   file exporter writes, one request per line), whose log record bodies are the two above.
 * Each entry may name the log it came from (`toolgate.log`, "host:path"): a collector gathers
 * the logs of a fleet, and one log is checked against its own entries.
 *
 * Memory: one seq -> hash entry per witnessed record (about 150 bytes each).
 */
import type { KeyObject } from 'node:crypto';
import { open } from 'node:fs/promises';
import { type Checkpoint, checkCheckpoint } from './checkpoint.js';
import { describe } from './error.js';
import { checkLine } from './line.js';
import { readLines } from './reader.js';

/** The OTLP attribute naming the log an exported entry belongs to. */
export const LOG_ATTRIBUTE = 'toolgate.log';
/** OTLP event names of the two kinds of entry. */
export const RECORD_EVENT = 'toolgate.tool_decision';
export const CHECKPOINT_EVENT = 'toolgate.checkpoint';

/** The body of an exported checkpoint, as a witness line holds it. */
export function checkpointLine(checkpoint: Checkpoint): string {
  return JSON.stringify({ checkpoint });
}

export interface WitnessedCheckpoint {
  count: number;
  head: string;
  ts: string;
  verified: boolean;
}

export interface Witness {
  /** seq -> hash of every witnessed record. */
  records: Map<number, string>;
  checkpoints: WitnessedCheckpoint[];
  /** The highest seq the witness vouches for (a record's, or a checkpoint's count); 0 if none. */
  covers: number;
}

export type WitnessRead = { ok: true; witness: Witness } | { ok: false; message: string };

export interface WitnessOptions {
  /** Checkpoints in the witness must carry a valid signature by this key. */
  publicKey?: KeyObject;
  /** Only entries of this log ("host:path"); needed when the witness holds several. */
  log?: string;
}

interface Entry {
  body: string;
  log?: string;
  where: string;
}

/** Reads a witness from a file, or from an http(s) URL (GET, the whole body). */
export async function readWitness(source: string, options: WitnessOptions = {}): Promise<WitnessRead> {
  const entries: Entry[] = [];
  const problems: string[] = [];
  const take = (text: string, n: number) => {
    if (text.trim() === '') return;
    const where = `${source} line ${n}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      problems.push(`${where} is not JSON`);
      return;
    }
    if (isObject(value) && Array.isArray(value.resourceLogs)) otlpEntries(value, where, entries, problems);
    else entries.push({ body: text, where });
  };
  try {
    if (/^https?:\/\//.test(source)) {
      const response = await fetch(source);
      if (!response.ok) return { ok: false, message: `witness ${source}: HTTP ${response.status}` };
      for (const [i, line] of (await response.text()).split('\n').entries()) take(line, i + 1);
    } else {
      const file = await open(source, 'r');
      try {
        const summary = await readLines(file, (line, n) => {
          take(line.toString('utf8'), n);
          return problems.length === 0;
        });
        if (summary.tornBytes > 0) problems.push(`${source}: the last line is incomplete`);
      } finally {
        await file.close();
      }
    }
  } catch (err) {
    return { ok: false, message: `cannot read witness ${source}: ${describe(err)}` };
  }
  if (problems.length > 0) return { ok: false, message: problems[0]! };
  return collect(entries, source, options);
}

async function collect(entries: Entry[], source: string, options: WitnessOptions): Promise<WitnessRead> {
  const logs = new Set(entries.map((e) => e.log).filter((l) => l !== undefined));
  let chosen = entries;
  if (options.log !== undefined) {
    chosen = entries.filter((e) => e.log === options.log);
    if (chosen.length === 0) {
      return {
        ok: false,
        message: `witness ${source} holds nothing of log ${options.log} (it holds: ${[...logs].join(', ') || 'entries naming no log'})`,
      };
    }
  } else if (logs.size > 1) {
    return {
      ok: false,
      message: `witness ${source} holds ${logs.size} logs (${[...logs].join(', ')}): name one with --witness-log`,
    };
  }
  const witness: Witness = { records: new Map(), checkpoints: [], covers: 0 };
  for (const e of chosen) {
    const problem = await addEntry(witness, e, options.publicKey);
    if (problem !== undefined) return { ok: false, message: problem };
  }
  if (witness.covers === 0)
    return { ok: false, message: `witness ${source} holds no records and no checkpoints` };
  return { ok: true, witness };
}

async function addEntry(w: Witness, e: Entry, key: KeyObject | undefined): Promise<string | undefined> {
  let value: unknown;
  try {
    value = JSON.parse(e.body);
  } catch {
    return `${e.where}: the exported body is not JSON`;
  }
  if (isObject(value) && 'checkpoint' in value) {
    const read = await checkCheckpoint(value.checkpoint, `the checkpoint at ${e.where}`, key);
    if (!read.ok) return read.message;
    const c = read.checkpoint;
    w.checkpoints.push({ count: c.count, head: c.head, ts: c.ts, verified: read.verified });
    w.covers = Math.max(w.covers, c.count);
    return undefined;
  }
  const check = checkLine(Buffer.from(e.body, 'utf8'));
  if (!check.ok) return `${e.where}: not a record the witness can vouch for: ${check.problem.message}`;
  const { seq, hash } = check.link;
  const seen = w.records.get(seq);
  if (seen !== undefined && seen !== hash) {
    return `${e.where}: the witness holds two different records with seq ${seq} (two logs mixed up? name one with --witness-log)`;
  }
  w.records.set(seq, hash);
  w.covers = Math.max(w.covers, seq);
  return undefined;
}

/** OTLP/JSON: resourceLogs[].scopeLogs[].logRecords[] with a string body. */
function otlpEntries(
  request: Record<string, unknown>,
  where: string,
  out: Entry[],
  problems: string[],
): void {
  for (const rl of request.resourceLogs as unknown[]) {
    if (!isObject(rl)) continue;
    const resourceLog = attribute(isObject(rl.resource) ? rl.resource.attributes : undefined, LOG_ATTRIBUTE);
    for (const sl of Array.isArray(rl.scopeLogs) ? rl.scopeLogs : []) {
      if (!isObject(sl)) continue;
      for (const lr of Array.isArray(sl.logRecords) ? sl.logRecords : []) {
        if (!isObject(lr)) continue;
        const event =
          typeof lr.eventName === 'string' ? lr.eventName : attribute(lr.attributes, 'event.name');
        if (event !== RECORD_EVENT && event !== CHECKPOINT_EVENT) continue; // someone else's telemetry
        const body = isObject(lr.body) ? lr.body.stringValue : undefined;
        if (typeof body !== 'string') {
          problems.push(`${where}: a ${event} log record without a string body`);
          return;
        }
        const log = attribute(lr.attributes, LOG_ATTRIBUTE) ?? resourceLog;
        out.push({ body, where, ...(log !== undefined && { log }) });
      }
    }
  }
}

function attribute(attributes: unknown, key: string): string | undefined {
  if (!Array.isArray(attributes)) return undefined;
  for (const a of attributes) {
    if (isObject(a) && a.key === key && isObject(a.value) && typeof a.value.stringValue === 'string')
      return a.value.stringValue;
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
