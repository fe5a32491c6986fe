import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from './io.js';

/**
 * The logs an audit command reads (`verify`, `replay`, `diff-policy`): each PATH named, and for
 * a directory every `*.jsonl` file below it (a fleet's logs, gathered by machine), in name
 * order, so the same tree always gives the same order. A directory with none is a usage error:
 * an audit over nothing would pass.
 */
export function logFilesOf(paths: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const at = path.resolve(cwd, p);
    const stat = fs.statSync(at, { throwIfNoEntry: false });
    if (stat?.isDirectory() !== true) {
      out.push(at);
      continue;
    }
    const found = jsonlBelow(at);
    if (found.length === 0) throw new UsageError(`${p} holds no *.jsonl decision log`, 'name the log files');
    out.push(...found);
  }
  return [...new Set(out)];
}

function jsonlBelow(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    const entries = fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** "verifying 3/120 host-a/decisions.jsonl" on a terminal's stderr, overwritten in place; nothing otherwise. */
export function fileProgress(stderr: NodeJS.WritableStream, verb: string, total: number) {
  const tty = (stderr as { isTTY?: boolean }).isTTY === true && total > 1;
  let shown = false;
  return {
    at(i: number, file: string): void {
      if (!tty) return;
      shown = true;
      stderr.write(`\r\x1b[K${verb} ${i + 1}/${total} ${file}`);
    },
    done(): void {
      if (shown) stderr.write('\r\x1b[K');
    },
  };
}
