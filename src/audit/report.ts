/**
 * What an auditor wants to know about a decision log, gathered in one streaming pass: whether
 * the chain is intact (verifyLog), totals by behavior, tool, rule, deciding step and mode, the
 * decisions over time, the most denied and most asked commands and targets, the sessions, and
 * (given a candidate policy) what a replay would change. report-html.ts renders it.
 *
 * A log that does not verify is refused unless `allowBroken`: then its readable records are
 * counted anyway, and the report says prominently that they cannot be trusted.
 * Memory stays bounded: the per-command and per-session tables drop their rarest entries when
 * they grow past a limit, and say so (their counts become lower bounds).
 */
import type { Behavior } from '../policy/behavior.js';
import type { CompiledPolicy } from '../policy/compile.js';
import type { Mode } from '../policy/mode.js';
import type { KeyInput } from './checkpoint.js';
import { ruleLabel } from './flips.js';
import type { DecisionRecord } from './record.js';
import { ReplayError, type ReplayReport, replayLog } from './replay.js';
import { type SkippedLine, scanRecords } from './scan.js';
import { subjectOf } from './subject.js';
import { type Timeline, TimelineCounter } from './timeline.js';
import { type VerifyFailure, type VerifyOk, type VerifyResult, verifyLog } from './verify.js';

export interface ReportOptions {
  checkpointPath?: string;
  publicKey?: KeyInput;
  /** Build the report of a log that does not verify (it says so prominently). */
  allowBroken?: boolean;
  /** Add what this policy would decide differently (replay). */
  policy?: CompiledPolicy;
  mode?: Mode;
  /** Rows in the "top" tables (default 15). */
  top?: number;
  /** When the report was made (default: now). */
  now?: Date;
}

export interface Tally {
  key: string;
  total: number;
  allow: number;
  ask: number;
  deny: number;
}

export interface TopEntry {
  tool: string;
  subject: string;
  count: number;
  /** What decided it the last time: the rule (`text (file:line)`), or the step (`(guard)`). */
  decidedBy: string;
  lastSeq: number;
  lastTs: string;
}

export interface SessionRow extends Tally {
  first: string;
  last: string;
  agents: number;
}

export interface AuditReport {
  log: string;
  generatedAt: string;
  verify: VerifyResult;
  /** Records counted (all of them when the log is intact). */
  records: number;
  /** Lines that are not records (only when the log is broken and allowBroken was given). */
  skipped: { count: number; lines: SkippedLine[] };
  span?: { first: string; last: string };
  byBehavior: Record<Behavior, number>;
  byTool: Tally[];
  byRule: Tally[];
  byDecidedBy: Tally[];
  byMode: Tally[];
  /** By the agent program that asked (`name version`); records that name none are `(not named)`. */
  byAgent: Tally[];
  /**
   * By agent and the answer it was sent (`codex → deny`), counted by the decision behind it: an
   * ask that reached Codex as a deny is in `codex → deny`'s ask column. Records written before
   * answers were recorded, and decisions no hook answered, are `→ (not recorded)`.
   */
  bySent: Tally[];
  timeline?: Timeline;
  topDenied: TopEntry[];
  topAsked: TopEntry[];
  /**
   * Calls that were asked and answered by a person (decided by 'user'): their final behavior
   * counts under allow or deny, but they were asked, and an auditor needs to see who said what.
   */
  askedOfPerson: { approved: number; refused: number };
  sessions: { count: number; rows: SessionRow[] };
  /** True when a bounded table dropped entries: its counts are lower bounds. */
  approximate: boolean;
  redacted: number;
  policies: { key: string; count: number }[];
  versions: { key: string; count: number }[];
  replay?: ReplayReport;
  /** With many logs (a fleet: one per machine), the records of each. */
  byLog?: Tally[];
  /**
   * With a policy: each of its rules and how many recorded decisions it made (matched by the
   * rule's text, wherever its file lived then), and the ones that made none.
   */
  rules?: { used: RuleUse[]; neverDecided: RuleUse[] };
}

export interface RuleUse {
  kind: 'allow' | 'ask' | 'deny';
  text: string;
  source: string;
  line?: number;
  id?: string;
  decided: number;
}

export type ReportErrorKind = 'missing' | 'empty' | 'io' | 'newer-version' | 'not-intact' | 'not-a-record';

export class ReportError extends Error {
  override name = 'ReportError';
  constructor(
    readonly kind: ReportErrorKind,
    message: string,
    readonly verify?: VerifyFailure,
  ) {
    super(message);
  }
}

export async function buildAuditReport(
  logPaths: string | readonly string[],
  options: ReportOptions = {},
): Promise<AuditReport> {
  const logs = typeof logPaths === 'string' ? [logPaths] : [...logPaths];
  const top = options.top ?? 15;
  const c = new Collector();
  const results: VerifyResult[] = [];
  let skipped = { count: 0, lines: [] as SkippedLine[] };
  for (const logPath of logs) {
    const verify = await verifyOrRefuse(logPath, options);
    results.push(verify);
    c.log = logs.length > 1 ? logPath : undefined;
    const before = c.records;
    const scan = await scanRecords(logPath, (r) => c.add(r), { verify: false });
    if (!scan.ok) throw new ReportError(scan.kind === 'not-intact' ? 'io' : scan.kind, scan.message);
    if (c.records === before) throw new ReportError('empty', `${logPath} holds no readable records`);
    if (scan.skippedCount > 0 && skipped.count === 0)
      skipped = { count: scan.skippedCount, lines: scan.skipped };
    else skipped.count += scan.skippedCount;
  }
  // Many logs: the first that does not verify speaks for them all, else every one verified.
  const verify: VerifyResult =
    results.find((v) => !v.ok) ??
    (results.length === 1
      ? results[0]!
      : {
          ok: true,
          count: results.reduce((n, v) => n + (v.ok ? v.count : 0), 0),
          head: (results.at(-1) as VerifyOk).head,
        });

  let replay: ReplayReport | undefined;
  if (options.policy !== undefined && logs.length === 1) {
    try {
      replay = await replayLog(logs[0]!, options.policy, {
        verify: verify.ok,
        ...(options.mode !== undefined && { mode: options.mode }),
        samples: 5,
      });
    } catch (err) {
      if (err instanceof ReplayError) throw new ReportError('not-intact', err.message, err.verify);
      throw err;
    }
  }
  const timeline = c.timeline.result();
  return {
    log: logs.length === 1 ? logs[0]! : `${logs.length} logs`,
    generatedAt: (options.now ?? new Date()).toISOString(),
    verify,
    records: c.records,
    skipped,
    ...(c.first !== undefined && c.last !== undefined && { span: { first: c.first, last: c.last } }),
    byBehavior: c.behaviors,
    byTool: sorted(c.tools),
    byRule: sorted(c.rules),
    byDecidedBy: sorted(c.decidedBy),
    byMode: sorted(c.modes),
    byAgent: sorted(c.agents),
    bySent: sorted(c.sent),
    ...(timeline !== undefined && { timeline }),
    topDenied: topOf(c.denied, top),
    topAsked: topOf(c.asked, top),
    askedOfPerson: { ...c.personAnswers },
    sessions: { count: c.sessionCount, rows: sessionRows(c.sessions, top) },
    approximate: c.approximate,
    redacted: c.redacted,
    policies: counts(c.digests),
    versions: counts(c.versions),
    ...(replay !== undefined && { replay }),
    ...(logs.length > 1 && { byLog: sorted(c.logs) }),
    ...(options.policy !== undefined && { rules: ruleUse(options.policy, c.ruleTexts) }),
  };
}

async function verifyOrRefuse(logPath: string, options: ReportOptions): Promise<VerifyResult> {
  const verify = await verifyLog(logPath, {
    ...(options.checkpointPath !== undefined && { checkpointPath: options.checkpointPath }),
    ...(options.publicKey !== undefined && { publicKey: options.publicKey }),
  });
  if (verify.ok) return verify;
  if (
    verify.kind === 'missing' ||
    verify.kind === 'empty' ||
    verify.kind === 'io' ||
    verify.kind === 'newer-version'
  )
    throw new ReportError(verify.kind, verify.message, verify);
  if (!options.allowBroken) {
    const where =
      verify.line === undefined
        ? ''
        : ` at line ${verify.line}${verify.seq === undefined ? '' : ` (seq ${verify.seq})`}`;
    throw new ReportError(
      'not-intact',
      `${logPath} is not intact: ${verify.kind}${where}: ${verify.message}`,
      verify,
    );
  }
  return verify;
}

/** Each rule of the policy, with the recorded decisions it made; those that made none. */
function ruleUse(
  policy: CompiledPolicy,
  texts: ReadonlyMap<string, number>,
): { used: RuleUse[]; neverDecided: RuleUse[] } {
  const used = policy.rules.map((r) => ({
    kind: r.kind,
    text: r.ref.text,
    source: r.ref.source,
    ...(r.ref.line !== undefined && { line: r.ref.line }),
    ...(r.ref.id !== undefined && { id: r.ref.id }),
    decided: texts.get(r.ref.text) ?? 0,
  }));
  return { used, neverDecided: used.filter((u) => u.decided === 0) };
}

const MAX_DISTINCT = 50_000;

class Collector {
  records = 0;
  redacted = 0;
  first: string | undefined;
  last: string | undefined;
  approximate = false;
  sessionCount = 0;
  readonly behaviors: Record<Behavior, number> = { allow: 0, ask: 0, deny: 0 };
  readonly tools = new Map<string, Tally>();
  readonly rules = new Map<string, Tally>();
  readonly decidedBy = new Map<string, Tally>();
  readonly modes = new Map<string, Tally>();
  readonly agents = new Map<string, Tally>();
  readonly sent = new Map<string, Tally>();
  readonly sessions = new Map<string, SessionRow & { agentIds: Set<string> }>();
  readonly denied = new Map<string, TopEntry>();
  readonly asked = new Map<string, TopEntry>();
  readonly personAnswers = { approved: 0, refused: 0 };
  readonly digests = new Map<string, number>();
  readonly versions = new Map<string, number>();
  readonly timeline = new TimelineCounter();
  readonly logs = new Map<string, Tally>();
  /** Decisions by the text of the rule that made them (rules are few: never pruned). */
  readonly ruleTexts = new Map<string, number>();
  /** The log being read, when there are many. */
  log: string | undefined;

  add(r: DecisionRecord): void {
    this.records++;
    const d = r.decision;
    const b = d.behavior;
    this.behaviors[b]++;
    if (this.log !== undefined) tally(this.logs, this.log, b);
    if (d.rule !== undefined) this.ruleTexts.set(d.rule.text, (this.ruleTexts.get(d.rule.text) ?? 0) + 1);
    tally(this.tools, r.request.tool, b);
    if (d.rule !== undefined) tally(this.rules, ruleLabel(d), b);
    tally(this.decidedBy, d.decidedBy, b);
    tally(this.modes, d.mode, b);
    tally(this.agents, agentLabel(r.agent), b);
    tally(this.sent, `${agentLabel(r.agent)} → ${sentLabel(r.sent)}`, b);
    if (r.redacted !== undefined && r.redacted.length > 0) this.redacted++;
    if (this.first === undefined || r.ts < this.first) this.first = r.ts;
    if (this.last === undefined || r.ts > this.last) this.last = r.ts;
    this.timeline.add(Date.parse(r.ts), b);
    this.digests.set(r.policyDigest, (this.digests.get(r.policyDigest) ?? 0) + 1);
    const version = `engine ${r.engine}, grammar ${r.grammar}`;
    this.versions.set(version, (this.versions.get(version) ?? 0) + 1);
    this.session(r, b);
    // a person's answer ends as allow or deny, but the call was asked: it belongs with the asks
    const byPerson = d.decidedBy === 'user';
    if (byPerson) this.personAnswers[b === 'allow' ? 'approved' : 'refused']++;
    if (byPerson) this.top(this.asked, r);
    else if (b !== 'allow') this.top(b === 'deny' ? this.denied : this.asked, r);
  }

  private session(r: DecisionRecord, b: Behavior): void {
    const id = r.sessionId ?? '(no session id)';
    let s = this.sessions.get(id);
    if (s === undefined) {
      this.sessionCount++;
      if (this.sessions.size >= MAX_DISTINCT) this.prune(this.sessions);
      s = {
        key: id,
        total: 0,
        allow: 0,
        ask: 0,
        deny: 0,
        first: r.ts,
        last: r.ts,
        agents: 0,
        agentIds: new Set(),
      };
      this.sessions.set(id, s);
    }
    s.total++;
    s[b]++;
    if (r.ts < s.first) s.first = r.ts;
    if (r.ts > s.last) s.last = r.ts;
    if (r.agentId !== undefined && s.agentIds.size < 100) {
      s.agentIds.add(r.agentId);
      s.agents = s.agentIds.size;
    }
  }

  private top(map: Map<string, TopEntry>, r: DecisionRecord): void {
    const subject = subjectOf(r.request.tool, r.request.input);
    const key = `${r.request.tool}\0${subject}`;
    let e = map.get(key);
    if (e === undefined) {
      if (map.size >= MAX_DISTINCT) this.prune(map);
      e = { tool: r.request.tool, subject, count: 0, decidedBy: '', lastSeq: r.seq, lastTs: r.ts };
      map.set(key, e);
    }
    e.count++;
    e.lastSeq = r.seq;
    e.lastTs = r.ts;
    e.decidedBy =
      r.decision.decidedBy === 'user'
        ? `a person: ${r.decision.behavior === 'allow' ? 'approved' : 'refused'}`
        : ruleLabel(r.decision);
  }

  /** Drops the entries seen once (the tail of a long log's distribution). */
  private prune<T extends { count?: number; total?: number }>(map: Map<string, T>): void {
    this.approximate = true;
    for (const [k, v] of map) if ((v.count ?? v.total ?? 0) <= 1) map.delete(k);
  }
}

function tally(map: Map<string, Tally>, key: string, b: Behavior): void {
  let t = map.get(key);
  if (t === undefined) {
    t = { key, total: 0, allow: 0, ask: 0, deny: 0 };
    map.set(key, t);
  }
  t.total++;
  t[b]++;
}

const byKey = (a: { key: string }, b: { key: string }) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function sorted(map: Map<string, Tally>): Tally[] {
  return [...map.values()].sort((a, b) => b.total - a.total || byKey(a, b));
}

/** The busiest sessions; among equally busy ones, the earliest first. */
function sessionRows(map: Map<string, SessionRow & { agentIds: Set<string> }>, n: number): SessionRow[] {
  return [...map.values()]
    .sort((a, b) => b.total - a.total || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0) || byKey(a, b))
    .slice(0, n)
    .map(({ agentIds: _, ...row }) => row);
}

function topOf(map: Map<string, TopEntry>, n: number): TopEntry[] {
  return [...map.values()]
    .sort(
      (a, b) =>
        b.count - a.count ||
        (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0) ||
        byKey({ key: a.tool }, { key: b.tool }),
    )
    .slice(0, n);
}

function counts(map: Map<string, number>): { key: string; count: number }[] {
  return [...map].map(([key, count]) => ({ key, count })).sort((a, b) => b.count - a.count || byKey(a, b));
}

export const UNNAMED_AGENT = '(not named)';

function sentLabel(sent: DecisionRecord['sent']): string {
  if (sent === undefined) return '(not recorded)';
  return sent.jailed === true ? `${sent.answer}, jailed` : sent.answer;
}

function agentLabel(agent: DecisionRecord['agent']): string {
  if (agent === undefined) return UNNAMED_AGENT;
  return agent.version === undefined ? agent.name : `${agent.name} ${agent.version}`;
}
