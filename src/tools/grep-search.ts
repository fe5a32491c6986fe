import path from 'node:path';
import { minimatch } from 'minimatch';

/**
 * Grep's JavaScript search, producing ripgrep's output lines: `path:N:text` for a matching
 * line, `path-N-text` for a context line, `--` between separate groups (content mode);
 * `path:count` (count mode); the paths of files with a match (files mode). Binary files (a NUL
 * in the first 8 KiB) and files over 20 MiB are skipped, as ripgrep skips binaries. It searches
 * bytes the caller already read: opening a file safely is the file guard's job, not this one's.
 */
export type OutputMode = 'content' | 'files_with_matches' | 'count';

export interface SearchSpec {
  regex: RegExp;
  multiline: boolean;
  mode: OutputMode;
  lineNumbers: boolean;
  before: number;
  after: number;
}

export const MAX_SEARCH_FILE_BYTES = 20 * 1024 * 1024;
export const MAX_COLUMNS = 500;

export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  js: ['js', 'mjs', 'cjs', 'jsx'],
  ts: ['ts', 'mts', 'cts', 'tsx'],
  py: ['py', 'pyi'],
  rust: ['rs'],
  go: ['go'],
  java: ['java'],
  c: ['c', 'h'],
  cpp: ['cpp', 'cc', 'cxx', 'hpp', 'hh', 'h'],
  json: ['json'],
  md: ['md', 'markdown'],
  yaml: ['yaml', 'yml'],
  sh: ['sh', 'bash', 'zsh'],
  html: ['html', 'htm'],
  css: ['css', 'scss'],
  rb: ['rb'],
  php: ['php'],
};

/** ripgrep's --glob: a pattern without `/` matches the file name at any depth. */
export function globFilter(glob: string | undefined): (rel: string) => boolean {
  if (!glob) return () => true;
  const patterns = glob.split(/[\s,]+/).filter(Boolean);
  return (rel) =>
    patterns.some((p) =>
      p.includes('/')
        ? minimatch(rel, p, { dot: true })
        : minimatch(path.posix.basename(rel), p, { dot: true }),
    );
}

export function typeFilter(type: string | undefined): (rel: string) => boolean {
  if (!type) return () => true;
  const exts = FILE_TYPES[type] ?? [type];
  return (rel) => exts.includes(path.posix.extname(rel).slice(1));
}

export interface FileResult {
  file: string;
  /** Output lines for this file (content mode), already formatted. */
  lines: string[];
  count: number;
}

export function searchText(file: string, buffer: Buffer, spec: SearchSpec): FileResult | undefined {
  if (buffer.subarray(0, 8192).includes(0)) return undefined;
  const text = buffer.toString('utf8');
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const matching = spec.multiline ? multilineMatches(text, spec.regex) : lineMatches(lines, spec.regex);
  if (matching.size === 0) return undefined;
  if (spec.mode !== 'content') return { file, lines: [], count: matching.size };
  return { file, lines: formatContent(file, lines, matching, spec), count: matching.size };
}

function lineMatches(lines: readonly string[], regex: RegExp): Set<number> {
  const out = new Set<number>();
  const re = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ''));
  lines.forEach((line, i) => {
    if (re.test(line.endsWith('\r') ? line.slice(0, -1) : line)) out.add(i);
  });
  return out;
}

function multilineMatches(text: string, regex: RegExp): Set<number> {
  const out = new Set<number>();
  const re = new RegExp(regex.source, `${regex.flags.replace(/[gys]/g, '')}gs`);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const first = lineOf(m.index);
    const last = lineOf(Math.max(m.index, m.index + m[0].length - 1));
    for (let l = first; l <= last; l++) out.add(l);
    if (m[0].length === 0) re.lastIndex++;
  }
  return out;
}

function formatContent(
  file: string,
  lines: readonly string[],
  matching: Set<number>,
  spec: SearchSpec,
): string[] {
  const shown = new Set<number>();
  for (const i of matching) {
    for (let j = Math.max(0, i - spec.before); j <= Math.min(lines.length - 1, i + spec.after); j++)
      shown.add(j);
  }
  const out: string[] = [];
  let previous = -2;
  for (const i of [...shown].sort((a, b) => a - b)) {
    if (previous >= 0 && i > previous + 1 && (spec.before > 0 || spec.after > 0)) out.push('--');
    const sep = matching.has(i) ? ':' : '-';
    let text = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    if (text.length > MAX_COLUMNS) text = `${text.slice(0, MAX_COLUMNS)} [... omitted end of long line]`;
    out.push(spec.lineNumbers ? `${file}${sep}${i + 1}${sep}${text}` : `${file}${sep}${text}`);
    previous = i;
  }
  return out;
}
