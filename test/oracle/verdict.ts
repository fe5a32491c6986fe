import type { OracleResult } from './jail.js';

/** The oracle's answer for a fixture: read-only or not, and the effects that say why (short, stable). */
export interface Verdict {
  readOnly: boolean;
  effects: string[];
}

/** Effects as kind: detail strings, with the jail's pids left out so a fixture does not churn. */
export function verdictOf(r: OracleResult): Verdict {
  const effects: string[] = [];
  const e = r.effects;
  for (const w of e.writes) effects.push(`write: ${w}`);
  for (const c of r.changed) if (!e.writes.some((w) => w.includes(c))) effects.push(`changed: ${c}`);
  for (const x of r.hiddenExecs) effects.push(`exec: ${x}`);
  for (const n of e.network) effects.push(`network: ${n}`);
  for (const s of e.sockets) effects.push(`socket: ${s}`);
  for (const k of e.kills) effects.push(`kill: ${k.replace(/ \/\* \d+ in strace's PID NS \*\//g, '')}`);
  for (const s of e.system) effects.push(`system: ${s}`);
  for (const l of e.leftovers) effects.push(`left running: ${l.replace(/ \(pid \d+\)$/, '')}`);
  if (r.timedOut) effects.push('timed out');
  return { readOnly: r.readOnly, effects };
}
