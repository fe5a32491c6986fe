/**
 * Decisions over time, in one pass over a log of any length: counts per time bucket, the
 * buckets made coarser whenever there are too many to keep, and at the end regrouped into at
 * most `bars` buckets of a size people read easily (1 s ... 30 days). Rendered as an inline SVG
 * stacked bar chart that needs no script: each bar's counts are in its <title> (a tooltip).
 */
import type { Behavior } from '../policy/behavior.js';
import { esc } from './html.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
export const BUCKET_SIZES = [
  SECOND,
  5 * SECOND,
  15 * SECOND,
  30 * SECOND,
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  7 * DAY,
  30 * DAY,
];

export interface Bucket {
  /** Start of the bucket, ms since the epoch (UTC). */
  t: number;
  allow: number;
  ask: number;
  deny: number;
}

export interface Timeline {
  bucketMs: number;
  /** Every bucket from the first decision to the last, empty ones included. */
  buckets: Bucket[];
}

const MAX_KEPT = 4096;

export class TimelineCounter {
  private size = 0;
  private counts = new Map<number, Bucket>();

  add(ts: number, behavior: Behavior): void {
    if (!Number.isFinite(ts)) return;
    let ms = BUCKET_SIZES[this.size]!;
    let b = this.counts.get(Math.floor(ts / ms) * ms);
    if (b === undefined) {
      if (this.counts.size >= MAX_KEPT && this.size < BUCKET_SIZES.length - 1) {
        this.regroup(this.size + 1);
        ms = BUCKET_SIZES[this.size]!;
        b = this.counts.get(Math.floor(ts / ms) * ms);
      }
      if (b === undefined) {
        b = { t: Math.floor(ts / ms) * ms, allow: 0, ask: 0, deny: 0 };
        this.counts.set(b.t, b);
      }
    }
    b[behavior]++;
  }

  /** At most `bars` buckets, all of one size, from the first decision to the last. */
  result(bars = 60): Timeline | undefined {
    if (this.counts.size === 0) return undefined;
    const ts = [...this.counts.keys()];
    const first = Math.min(...ts);
    const last = Math.max(...ts);
    let size = this.size;
    while (size < BUCKET_SIZES.length - 1 && span(first, last, BUCKET_SIZES[size]!) > bars) size++;
    if (size !== this.size) this.regroup(size);
    const ms = BUCKET_SIZES[this.size]!;
    const start = Math.floor(first / ms) * ms;
    const buckets: Bucket[] = [];
    for (let t = start; t <= last; t += ms)
      buckets.push(this.counts.get(t) ?? { t, allow: 0, ask: 0, deny: 0 });
    return { bucketMs: ms, buckets };
  }

  private regroup(size: number): void {
    const ms = BUCKET_SIZES[size]!;
    const next = new Map<number, Bucket>();
    for (const b of this.counts.values()) {
      const t = Math.floor(b.t / ms) * ms;
      const n = next.get(t);
      if (n === undefined) next.set(t, { ...b, t });
      else {
        n.allow += b.allow;
        n.ask += b.ask;
        n.deny += b.deny;
      }
    }
    this.size = size;
    this.counts = next;
  }
}

function span(first: number, last: number, ms: number): number {
  return Math.floor(last / ms) - Math.floor(first / ms) + 1;
}

export function durationLabel(ms: number): string {
  if (ms >= DAY) return `${ms / DAY} day${ms === DAY ? '' : 's'}`;
  if (ms >= HOUR) return `${ms / HOUR} hour${ms === HOUR ? '' : 's'}`;
  if (ms >= MINUTE) return `${ms / MINUTE} minute${ms === MINUTE ? '' : 's'}`;
  return `${ms / SECOND} second${ms === SECOND ? '' : 's'}`;
}

export const BEHAVIOR_COLORS: Readonly<Record<Behavior, string>> = {
  allow: '#2f7d4a',
  ask: '#c58a12',
  deny: '#c0392b',
};

/** A stacked bar chart (deny at the bottom, then ask, then allow), with axes and a tooltip per bar. */
export function timelineSvg(timeline: Timeline): string {
  const W = 1000;
  const H = 240;
  const left = 48;
  const right = 12;
  const top = 12;
  const bottom = 36;
  const plotW = W - left - right;
  const plotH = H - top - bottom;
  const totals = timeline.buckets.map((b) => b.allow + b.ask + b.deny);
  const tick = niceStep(Math.max(1, ...totals) / 4);
  const max = Math.ceil(Math.max(1, ...totals) / tick) * tick;
  const step = plotW / timeline.buckets.length;
  const barW = Math.max(1, step * 0.8);
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const parts: string[] = [];
  for (let v = 0; v <= max; v += tick) {
    const gy = y(v).toFixed(1);
    parts.push(
      `<line x1="${left}" x2="${W - right}" y1="${gy}" y2="${gy}" class="gridline"/>`,
      `<text x="${left - 6}" y="${gy}" class="axis" text-anchor="end" dominant-baseline="middle">${fmtCount(v)}</text>`,
    );
  }
  timeline.buckets.forEach((b, i) => {
    const x = (left + i * step + (step - barW) / 2).toFixed(1);
    let base = 0;
    const rects: string[] = [];
    for (const behavior of ['deny', 'ask', 'allow'] as const) {
      const v = b[behavior];
      if (v === 0) continue;
      const y1 = y(base + v);
      rects.push(
        `<rect x="${x}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${(y(base) - y1).toFixed(1)}" fill="${BEHAVIOR_COLORS[behavior]}"/>`,
      );
      base += v;
    }
    if (rects.length === 0) return;
    const label = `${isoMinute(b.t)} UTC (${durationLabel(timeline.bucketMs)}): ${b.allow} allow, ${b.ask} ask, ${b.deny} deny`;
    parts.push(`<g><title>${esc(label)}</title>${rects.join('')}</g>`);
  });
  const ticks =
    timeline.buckets.length === 1
      ? [0]
      : [0, Math.floor((timeline.buckets.length - 1) / 2), timeline.buckets.length - 1];
  for (const i of [...new Set(ticks)]) {
    const x = left + i * step + step / 2;
    const anchor =
      timeline.buckets.length === 1
        ? 'middle'
        : i === 0
          ? 'start'
          : i === timeline.buckets.length - 1
            ? 'end'
            : 'middle';
    const tx = anchor === 'start' ? left : anchor === 'end' ? W - right : x;
    parts.push(
      `<text x="${tx.toFixed(1)}" y="${H - 12}" class="axis" text-anchor="${anchor}">${esc(isoMinute(timeline.buckets[i]!.t))}</text>`,
    );
  }
  parts.push(
    `<line x1="${left}" x2="${W - right}" y1="${top + plotH}" y2="${top + plotH}" class="baseline"/>`,
  );
  return `<svg class="timeline" viewBox="0 0 ${W} ${H}" role="img" aria-label="Decisions per ${esc(durationLabel(timeline.bucketMs))}, stacked by behavior" xmlns="http://www.w3.org/2000/svg">${parts.join('')}</svg>`;
}

/** The smallest of 1, 2, 5, 10, 20, 50, ... that is at least `n`: gridlines on round counts. */
function niceStep(n: number): number {
  if (n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

function fmtCount(v: number): string {
  return v.toLocaleString('en-US');
}

function isoMinute(t: number): string {
  return new Date(t).toISOString().slice(0, 19).replace('T', ' ');
}
