import type { CommandLine } from './command-line.js';

/**
 * Whether a redirection anywhere in the line makes fd 1 or 2 a file opened for reading or a copy
 * of another descriptor (`1<f`, `2>&0`, `>&3`): then `>/dev/stdout` re-opens that file for
 * writing (and truncates it), so it is no longer the caller's output.
 */
export function movesStandardOutput(line: CommandLine): boolean {
  for (const c of line.commands) {
    for (const rd of c.redirects) {
      const fd = rd.fd ?? (rd.op === '<' || rd.op === '<&' ? 0 : 1);
      if (fd !== 1 && fd !== 2) continue;
      if (rd.op === '<') return true;
      if ((rd.op === '>&' || rd.op === '<&') && !/^[12-]$/.test(rd.target?.value ?? '')) return true;
    }
  }
  return false;
}
