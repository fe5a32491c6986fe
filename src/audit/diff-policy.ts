/**
 * diffPolicies(old, next, sources): what a policy change would do before it is rolled out.
 * Every request of the sources (the requests recorded in decision logs, and corpus files of
 * requests as `check --stdin` reads them) is decided under both policies, and the decisions
 * that differ are counted and sampled as replay's flips are (flips.ts: by kind, tool, and rule
 * old -> new). Unlike replay, the recorded decision plays no part: two policies are compared on
 * the same questions, so a log decided under a third policy, by a person or a classifier, still
 * counts. Logs are verified as they are read (a log that does not verify is refused: a rollout
 * should not be judged on questions nobody can vouch for), unless `verify: false`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Mode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';
import { describe } from './error.js';
import { type FlipGroup, FlipTally, type RuleFlipGroup } from './flips.js';
import { snapshotFileSystem } from './fs-snapshot.js';
import { type DecisionRecord, requestOf } from './record.js';
import { decideOnce, type Replayed } from './replay.js';
import { scanRecords } from './scan.js';

export interface DiffSource {
  readonly kind: 'log' | 'corpus';
  readonly path: string;
}

export interface DiffOptions {
  /** Decide every request in this mode instead of the one it was asked in. */
  readonly mode?: Mode;
  /** Default true: refuse a log that does not verify. */
  readonly verify?: boolean;
  /** The cwd of a corpus line that names none. */
  readonly cwd: string;
  readonly samples?: number;
}

export interface DiffReport {
  old: { digest: string; sources: string[] };
  next: { digest: string; sources: string[] };
  sources: { kind: 'log' | 'corpus'; path: string; requests: number }[];
  requests: number;
  flipped: number;
  loosened: number;
  tightened: number;
  /** Same behavior, decided by another rule or step. */
  reattributed: number;
  byKind: FlipGroup[];
  byTool: FlipGroup[];
  byRule: RuleFlipGroup[];
}

export class DiffError extends Error {
  override name = 'DiffError';
}

export async function diffPolicies(
  old: CompiledPolicy,
  next: CompiledPolicy,
  sources: readonly DiffSource[],
  options: DiffOptions,
): Promise<DiffReport> {
  const fs = snapshotFileSystem();
  const tally = new FlipTally(options.samples ?? 5);
  const memos = { old: new Map<string, Replayed>(), next: new Map<string, Replayed>() };
  const many = sources.length > 1;
  const counted: DiffReport['sources'] = [];
  const compare = (request: ToolRequest, record: DecisionRecord, line: number, source: string): void => {
    if (options.mode !== undefined) request.mode = options.mode;
    const from = decideOnce(request, old, fs, memos.old);
    const to = decideOnce(request, next, fs, memos.next);
    tally.add({
      record,
      line,
      from,
      to,
      redacted: record.redacted !== undefined,
      ...(many && { log: source }),
    });
  };
  for (const s of sources) {
    let requests = 0;
    if (s.kind === 'log') {
      const scan = await scanRecords(
        s.path,
        (record, line) => {
          requests++;
          compare(requestOf(record), record, line, s.path);
        },
        { verify: options.verify !== false },
      );
      if (!scan.ok)
        throw new DiffError(
          `${scan.kind === 'missing' ? '' : `${s.path}: `}${scan.kind}: ${scan.message}${scan.kind === 'not-intact' ? ' (run "toolgate verify" for details)' : ''}`,
        );
    } else {
      await readCorpus(s.path, options.cwd, (request, line) => {
        requests++;
        compare(request, pseudoRecord(request, line, s.path), line, s.path);
      });
    }
    counted.push({ kind: s.kind, path: s.path, requests });
  }
  const t = tally.result();
  return {
    old: { digest: old.digest, sources: old.files.map((f) => f.source) },
    next: { digest: next.digest, sources: next.files.map((f) => f.source) },
    sources: counted,
    requests: t.compared,
    flipped: t.flipped,
    loosened: t.loosened,
    tightened: t.tightened,
    reattributed: t.reattributed,
    byKind: t.byKind,
    byTool: t.byTool,
    byRule: t.byRule,
  };
}

/** A corpus: `{"tool", "input", "cwd"?, "mode"?}` per line, as `check --stdin` reads; blank lines skipped. */
async function readCorpus(
  path: string,
  cwd: string,
  visit: (request: ToolRequest, line: number) => void,
): Promise<void> {
  const lines = createInterface({
    input: createReadStream(path, 'utf8'),
    crlfDelay: Number.POSITIVE_INFINITY,
  });
  let n = 0;
  try {
    for await (const text of lines) {
      n++;
      if (text.trim() === '') continue;
      let data: unknown;
      try {
        data = JSON.parse(text);
      } catch {
        throw new DiffError(`${path}:${n}: not JSON`);
      }
      const r = data as { tool?: unknown; input?: unknown; cwd?: unknown; mode?: unknown };
      if (typeof r !== 'object' || r === null || typeof r.tool !== 'string')
        throw new DiffError(`${path}:${n}: a corpus line is {"tool", "input", "cwd"?, "mode"?}`);
      visit(
        {
          tool: r.tool,
          input: r.input ?? {},
          cwd: typeof r.cwd === 'string' ? r.cwd : cwd,
          ...(typeof r.mode === 'string' && { mode: r.mode as Mode }),
        },
        n,
      );
    }
  } catch (err) {
    if (err instanceof DiffError) throw err;
    throw new DiffError(`cannot read the corpus ${path}: ${describe(err)}`);
  }
}

/** What a flip sample reads of a record, for a corpus line (seq = its line number). */
function pseudoRecord(request: ToolRequest, line: number, path: string): DecisionRecord {
  return {
    seq: line,
    id: `${path}:${line}`,
    ts: '',
    request: { tool: request.tool, input: request.input, cwd: request.cwd },
  } as unknown as DecisionRecord;
}
