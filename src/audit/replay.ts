/**
 * replayLog(log, policy): re-asks every recorded question of a candidate policy and reports the
 * decisions that would change ("flips"), grouped by kind, tool and rule, with sample records.
 * Streams the log; deterministic for a given log, policy and file system (groups are ordered
 * by count, then key; samples are the first records of their group in log order).
 *
 * Trust: by default the log is verified while it is replayed, and a log that is not intact
 * (edited, inserted, removed, reordered, cut off, a corrupt line) is refused with verify's own
 * diagnosis: flips computed from records nobody can vouch for would mislead an auditor. With a
 * checkpoint, verifyLog checks it first. `verify: false` replays whatever lines are records,
 * lists the lines it skipped, and says in the report that nothing was verified. A record of a
 * newer format is always refused.
 *
 * What cannot be replayed exactly, and is flagged instead of reported as a silent flip:
 * - redacted records (see redact.ts): replayed on the redacted text, counted in `redacted`;
 * - decisions the auto-mode classifier made: when the candidate policy would also hand the
 *   call to the classifier, the verdict cannot be re-derived, so it is counted in `notCompared`;
 *   when the policy now decides it by itself, it is compared like any other record;
 * - decisions made by a hook outside the policy: counted in `notCompared`;
 * - answers a person gave to an ask (decidedBy `user`): when the candidate policy would ask
 *   again, the answer stands and the record is counted in `notCompared`; when the policy now
 *   allows or denies by itself, it is compared like any other record.
 * decide() also consults the file system (symlinks, globs in commands): replay on the machine
 * and tree the agent ran on, or expect flips from the difference. Flips of records that were
 * decided under the candidate's own digest cannot come from the policy; `sameDigest` counts
 * them (a changed engine, grammar or file system).
 */

import type { CompiledPolicy } from '../policy/compile.js';
import { decide } from '../policy/decide.js';
import type { Decision } from '../policy/decision.js';
import type { FileSystemView } from '../policy/fs-view.js';
import type { Mode } from '../policy/mode.js';
import type { ToolRequest } from '../policy/request.js';
import { canonicalToolName } from '../policy/rule.js';
import { toolInfo } from '../policy/tools.js';
import { ENGINE_VERSION } from '../version.js';
import type { KeyInput } from './checkpoint.js';
import { countBy, type FlipGroup, FlipTally, type RuleFlipGroup } from './flips.js';
import { snapshotFileSystem } from './fs-snapshot.js';
import { installedGrammarVersion } from './grammar.js';
import { type DecisionRecord, requestOf } from './record.js';
import { type ScanProgress, type SkippedLine, scanRecords } from './scan.js';
import { type VerifyFailure, type VerifyOk, verifyLog } from './verify.js';

export type { FlipGroup, FlipSample, RuleFlipGroup, Side } from './flips.js';
export type { ScanProgress } from './scan.js';

export interface ReplayOptions {
  /** Decide every record in this mode instead of the mode it was asked in. */
  mode?: Mode;
  /** Default true: refuse a log that is not intact. */
  verify?: boolean;
  /** Also check the log against its checkpoint (a cut-off tail), as `toolgate verify` does. */
  checkpointPath?: string;
  publicKey?: KeyInput;
  /** Called every few thousand records and at the end. */
  onProgress?: (progress: ScanProgress) => void;
  /** What decide() learns about the file system. Default: the real one, each answer remembered for the run. */
  fs?: FileSystemView;
  /** Sample records per group (default 5). */
  samples?: number;
}

export type ReplayErrorKind =
  | 'missing'
  | 'empty'
  | 'io'
  /** The log failed verification; `verify` says how. */
  | 'not-intact'
  /** A line hashes correctly but is not a record replay can read. */
  | 'not-a-record'
  | 'newer-version'
  /** The scan found a problem that verifyLog, run right after, did not: the log changed meanwhile. */
  | 'changed';

export class ReplayError extends Error {
  override name = 'ReplayError';
  constructor(
    readonly kind: ReplayErrorKind,
    message: string,
    readonly verify?: VerifyFailure,
  ) {
    super(message);
  }
}

export type Verification =
  | { verified: true; count: number; head: string; checkpoint?: VerifyOk['checkpoint'] }
  | { verified: false; skipped: SkippedLine[]; skippedCount: number; tornBytes: number };

export interface ReplayReport {
  log: string;
  policy: { digest: string; sources: string[] };
  /** The mode every record was decided in, when it was overridden. */
  mode?: Mode;
  verification: Verification;
  /** Records read. */
  records: number;
  /** Records whose recorded decision was compared with the new one. */
  compared: number;
  unchanged: number;
  /** Same behavior, but another rule (by its text) or step decides it now. */
  reattributed: number;
  flipped: number;
  loosened: number;
  tightened: number;
  /** Decisions made outside the policy, which replay cannot re-derive (see the module comment). */
  notCompared: { classifier: number; hook: number; user: number };
  byKind: FlipGroup[];
  byTool: FlipGroup[];
  byRule: RuleFlipGroup[];
  /** Records that were redacted before they were written: replayed on the redacted text. */
  redacted: { records: number; flipped: number; samples: number[] };
  /** Records decided under the candidate's own digest: their flips are not the policy's doing. */
  sameDigest: { records: number; flipped: number };
  /** The policies the records were decided under (digest, records), most records first. */
  recordedUnder: { key: string; count: number }[];
  /** Engine and grammar versions of the records, against the ones replaying them. */
  versions: { recorded: { key: string; count: number }[]; current: { engine: string; grammar: string } };
}

export async function replayLog(
  logPath: string,
  policy: CompiledPolicy,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const verify = options.verify !== false;
  const checkpoint = {
    ...(options.checkpointPath !== undefined && { checkpointPath: options.checkpointPath }),
    ...(options.publicKey !== undefined && { publicKey: options.publicKey }),
  };
  let checked: VerifyOk | undefined;
  if (verify && options.checkpointPath !== undefined) {
    const v = await verifyLog(logPath, checkpoint);
    if (!v.ok) throw notIntact(logPath, v);
    checked = v;
  }
  const fs = options.fs ?? snapshotFileSystem();
  const tally = new FlipTally(options.samples ?? 5);
  const memo = new Map<string, Replayed>();
  const digests = new Map<string, number>();
  const versions = new Map<string, number>();
  const sameDigest = { records: 0, flipped: 0 };
  const redacted = { records: 0, flipped: 0, samples: [] as number[] };
  const notCompared = { classifier: 0, hook: 0, user: 0 };
  let records = 0;
  // Records of one log nearly always share their versions: the key is built once per change.
  let lastVersions = { engine: '', grammar: '', key: '' };
  const versionKey = (engine: string, grammar: string): string => {
    if (engine !== lastVersions.engine || grammar !== lastVersions.grammar || lastVersions.key === '')
      lastVersions = { engine, grammar, key: `engine ${engine}, grammar ${grammar}` };
    return lastVersions.key;
  };

  const visit = (record: DecisionRecord, line: number): void => {
    records++;
    countBy(digests, record.policyDigest);
    countBy(versions, versionKey(record.engine, record.grammar));
    const isRedacted = record.redacted !== undefined && record.redacted.length > 0;
    if (isRedacted) redacted.records++;
    const same = record.policyDigest === policy.digest;
    if (same) sameDigest.records++;
    const was = record.decision;
    if (was.decidedBy === 'hook') {
      notCompared.hook++;
      return;
    }
    const request = requestOf(record);
    if (options.mode !== undefined) request.mode = options.mode;
    const now = decideOnce(request, policy, fs, memo);
    if (was.decidedBy === 'classifier' && now.behavior === 'ask' && now.mode === 'auto') {
      notCompared.classifier++;
      return;
    }
    if (was.decidedBy === 'user' && now.behavior === 'ask') {
      notCompared.user++;
      return;
    }
    const flipped = tally.add({ record, line, from: was, to: now, redacted: isRedacted });
    if (!flipped) return;
    if (same) sameDigest.flipped++;
    if (isRedacted) {
      redacted.flipped++;
      if (redacted.samples.length < (options.samples ?? 5)) redacted.samples.push(record.seq);
    }
  };

  const scan = await scanRecords(logPath, visit, {
    verify,
    ...(options.onProgress !== undefined && { onProgress: options.onProgress }),
  });
  if (!scan.ok) {
    if (scan.kind === 'not-intact') {
      const v = await verifyLog(logPath, checkpoint);
      if (!v.ok) throw notIntact(logPath, v);
      throw new ReplayError(
        'changed',
        `${logPath} changed while it was replayed (${scan.message}); it verifies now: replay it again`,
      );
    }
    throw new ReplayError(scan.kind, scan.kind === 'missing' ? scan.message : `${logPath}: ${scan.message}`);
  }
  if (records === 0) {
    throw new ReplayError(
      'empty',
      scan.skippedCount > 0
        ? `${logPath} holds no readable records (${scan.skippedCount} line(s) skipped, the first: line ${scan.skipped[0]?.line}: ${scan.skipped[0]?.message})`
        : `${logPath} holds no records`,
    );
  }
  const verification: Verification = verify
    ? {
        verified: true,
        count: scan.records,
        head: scan.head,
        ...(checked?.checkpoint !== undefined && { checkpoint: checked.checkpoint }),
      }
    : { verified: false, skipped: scan.skipped, skippedCount: scan.skippedCount, tornBytes: scan.tornBytes };
  const t = tally.result();
  return {
    log: logPath,
    policy: { digest: policy.digest, sources: policy.files.map((f) => f.source) },
    ...(options.mode !== undefined && { mode: options.mode }),
    verification,
    records,
    compared: t.compared,
    unchanged: t.compared - t.flipped,
    reattributed: t.reattributed,
    flipped: t.flipped,
    loosened: t.loosened,
    tightened: t.tightened,
    notCompared,
    byKind: t.byKind,
    byTool: t.byTool,
    byRule: t.byRule,
    redacted,
    sameDigest,
    recordedUnder: sortedCounts(digests),
    versions: {
      recorded: sortedCounts(versions),
      current: { engine: ENGINE_VERSION, grammar: installedGrammarVersion() },
    },
  };
}

const MEMO_LIMIT = 20_000;

/** What replay compares of a decision (FlipTally's Side) and the mode it was made in. */
export type Replayed = Pick<Decision, 'behavior' | 'decidedBy' | 'rule' | 'reason' | 'mode'>;

/**
 * decide() is a function of the request (for one policy and one file-system snapshot): a Bash
 * line, whose decision parses it (~70 µs), is decided once and remembered, and so is every
 * request under a policy with `when:` conditions (they run in an isolate). Other requests are
 * decided each time: their decision costs a few µs, about what the memo's key and bookkeeping
 * cost, so remembering them only paid on logs where most records repeat exactly (measured on
 * 100k records: distinct ones ~67k -> ~83k records/s without it, twelve requests repeated
 * ~155k -> ~105k). The memo keeps only what is compared, not the whole decision (its facts,
 * digest, notes): a log of distinct lines keeps it full for the whole replay.
 */
export function decideOnce(
  request: ToolRequest,
  policy: CompiledPolicy,
  fs: FileSystemView,
  memo: Map<string, Replayed>,
): Replayed {
  // Replay compares behavior, rule and reason: the sandbox profile would be thrown away.
  const options = { fs, sandboxProfile: false };
  if (!policy.hasConditions && toolInfo(canonicalToolName(request.tool)).class !== 'shell')
    return decide(request, policy, options);
  const key = JSON.stringify(request);
  let d = memo.get(key);
  if (d === undefined) {
    const full = decide(request, policy, options);
    d = {
      behavior: full.behavior,
      decidedBy: full.decidedBy,
      ...(full.rule !== undefined && { rule: full.rule }),
      reason: full.reason,
      mode: full.mode,
    };
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(key, d);
  }
  return d;
}

function notIntact(logPath: string, v: VerifyFailure): ReplayError {
  const where =
    v.line === undefined ? '' : ` at line ${v.line}${v.seq === undefined ? '' : ` (seq ${v.seq})`}`;
  const kind =
    v.kind === 'missing' || v.kind === 'empty' || v.kind === 'newer-version' ? v.kind : 'not-intact';
  const advice =
    kind === 'not-intact'
      ? '; a log that does not verify is not replayed (run "toolgate verify" for details, or replay without verification at your own risk)'
      : '';
  return new ReplayError(kind, `${logPath}: ${v.kind}${where}: ${v.message}${advice}`, v);
}

function sortedCounts(map: Map<string, number>): { key: string; count: number }[] {
  return [...map]
    .map(([key, count]) => ({ key, count }))
    .sort((a, b) => b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
