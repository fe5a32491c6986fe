import { spawnSync } from 'node:child_process';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolCallContext, ToolResult } from '../pipeline/tool.js';
import { removeSpill } from '../sandbox/output.js';
import type { PathGuard } from '../sandbox/paths.js';
import { runSandboxed } from '../sandbox/run.js';
import { absoluteField, guardOf, openApprovedForRead } from './file-guard.js';
import {
  type FileResult,
  globFilter,
  MAX_COLUMNS,
  MAX_SEARCH_FILE_BYTES,
  type OutputMode,
  type SearchSpec,
  searchText,
  typeFilter,
} from './grep-search.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';
import { walkFiles } from './walk.js';

/**
 * Grep: searches file contents with a regular expression. ripgrep when it is installed (run
 * through the sandbox with the call's profile), else a JavaScript search with the same output;
 * `TOOLGATE_GREP=js` forces the latter. ripgrep runs only in a jail: with `sandbox.os: off`, or
 * where bubblewrap cannot run, the JavaScript search runs instead, and it opens every file as
 * Read does (checked path, no symlink anywhere on it, no hard link where reads are denied).
 * Either way, files the call may not read are dropped.
 * The JavaScript search reads JavaScript regex syntax, a near superset of what models write
 * for ripgrep (differences: no `(?i)` inline flags, and lookaround is allowed).
 */
const inputSchema = z.strictObject({
  pattern: z.string().min(1).describe('The regular expression to search for'),
  path: z.string().optional().describe('File or directory to search (default: the working directory)'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts"'),
  type: z.string().optional().describe('Only files of this type, e.g. ts, py, rust'),
  output_mode: z.enum(['content', 'files_with_matches', 'count']).default('files_with_matches'),
  '-i': z.boolean().optional().describe('Case-insensitive'),
  '-n': z.boolean().optional().describe('Line numbers in content mode (default true)'),
  '-A': z.number().int().min(0).optional(),
  '-B': z.number().int().min(0).optional(),
  '-C': z.number().int().min(0).optional(),
  head_limit: z.number().int().min(0).optional().describe('Only the first N lines or files'),
  offset: z.number().int().min(0).optional().describe('Skip the first N lines or files'),
  multiline: z.boolean().optional().describe('Let patterns span lines (. matches newline)'),
});

type GrepInput = z.output<typeof inputSchema>;

export type GrepOutput =
  | { mode: OutputMode; lines: string[]; files: number; total: number; engine: 'js' | 'rg' }
  | Refusal;

let ripgrep: string | null | undefined;

function ripgrepPath(): string | null {
  if (process.env.TOOLGATE_GREP === 'js') return null;
  if (ripgrep === undefined) {
    const probe = spawnSync('rg', ['--version'], { stdio: 'ignore' });
    ripgrep = probe.status === 0 ? 'rg' : null;
  }
  return ripgrep;
}

export const GrepTool = buildTool({
  name: 'Grep',
  searchHint: 'search grep ripgrep regex find text in files',
  inputSchema,
  maxResultSizeChars: 20_000,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => 'cancel',
  prompt: () =>
    'Searches file contents with a regular expression. output_mode: files_with_matches (default; newest first), content (matching lines, with -A/-B/-C context and -n line numbers), count. Filter with glob or type.',
  description: (input) => `Search for ${input.pattern}`,
  validateInput: async (input) => {
    try {
      new RegExp(input.pattern, input['-i'] ? 'i' : '');
      return { result: true };
    } catch (err) {
      return {
        result: false,
        message: `The pattern is not a valid regular expression: ${(err as Error).message}`,
      };
    }
  },
  backfillObservableInput: (input, ctx) => absoluteField(input, 'path', ctx),
  async call(input, ctx): Promise<ToolResult<GrepOutput>> {
    return { data: await grep(input, ctx) };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    let content: string;
    if (output.mode === 'files_with_matches') {
      content =
        output.files === 0
          ? 'No files found'
          : `Found ${output.files} file${output.files === 1 ? '' : 's'}\n${output.lines.join('\n')}`;
    } else if (output.mode === 'count') {
      content =
        output.files === 0
          ? 'No matches found'
          : `${output.lines.join('\n')}\n\nFound ${output.total} total occurrence${output.total === 1 ? '' : 's'} across ${output.files} file${output.files === 1 ? '' : 's'}.`;
    } else {
      content = output.lines.length === 0 ? 'No matches found' : output.lines.join('\n');
    }
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
  renderToolUseMessage: (input) => `Grep(${input.pattern ?? ''}${input.path ? ` in ${input.path}` : ''})`,
  renderToolResultMessage: (output) =>
    isRefusal(output) ? `✗ ${output.message}` : `Found ${output.files} files`,
});

async function grep(input: GrepInput, ctx: ToolCallContext): Promise<GrepOutput> {
  const guard = guardOf(ctx);
  if (isRefusal(guard)) return guard;
  const root = guard.check(input.path ?? ctx.cwd, 'read');
  if (!root.ok) return refuse('path-denied', root.reason);
  if (!root.exists) return refuse('not-found', `Path does not exist: ${root.literal}.`);
  const mode = input.output_mode;
  const context = input['-C'];
  const spec: SearchSpec = {
    regex: new RegExp(input.pattern, input['-i'] ? 'i' : ''),
    multiline: input.multiline === true,
    mode,
    lineNumbers: input['-n'] !== false,
    before: input['-B'] ?? context ?? 0,
    after: input['-A'] ?? context ?? 0,
  };
  // ripgrep reads the files itself: only a jail holds its reads to the profile (read-deny
  // masks), so without one the search runs here, where each open is checked as Read's is.
  let rg = ctx.sandbox.os === 'off' ? null : ripgrepPath();
  let found = rg
    ? await ripgrepSearch(rg, input, spec, root.path, ctx)
    : await jsSearch(input, spec, root.path, guard, ctx);
  if (found === NO_JAIL) {
    rg = null;
    found = await jsSearch(input, spec, root.path, guard, ctx);
  }
  // The jail masks read-denied paths by name; a hard link to one has another name, so jailed
  // ripgrep may have searched it. Read refuses such files where reads are denied; so does Grep.
  const readable = (file: string) =>
    guard.check(file, 'read').ok && !(ctx.sandbox.readDeny.length > 0 && hardLinked(file));
  if (isRefusal(found)) return found;
  const results = found.filter((r) => readable(r.file));
  let lines: string[];
  if (mode === 'files_with_matches') {
    const dated = await Promise.all(
      results.map(async (r) => ({ file: r.file, mtime: await mtimeOf(r.file) })),
    );
    lines = dated.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file)).map((d) => d.file);
  } else if (mode === 'count') {
    lines = results.map((r) => `${r.file}:${r.count}`);
  } else {
    lines = results.flatMap((r, i) =>
      i > 0 && (spec.before > 0 || spec.after > 0) ? ['--', ...r.lines] : r.lines,
    );
  }
  const start = input.offset ?? 0;
  lines = lines.slice(
    start,
    input.head_limit === undefined || input.head_limit === 0 ? undefined : start + input.head_limit,
  );
  return {
    mode,
    lines,
    files: results.length,
    total: results.reduce((n, r) => n + r.count, 0),
    engine: rg ? 'rg' : 'js',
  };
}

async function jsSearch(
  input: GrepInput,
  spec: SearchSpec,
  root: string,
  guard: PathGuard,
  ctx: ToolCallContext,
): Promise<FileResult[] | Refusal> {
  const stat = await fs.stat(root);
  let files: string[];
  if (stat.isFile()) files = [root];
  else {
    const walk = await walkFiles(root, ctx.signal);
    const byGlob = globFilter(input.glob);
    const byType = typeFilter(input.type);
    files = walk.files.filter((f) => byGlob(f.rel) && byType(f.rel)).map((f) => f.path);
  }
  files.sort();
  const results: FileResult[] = [];
  for (const file of files) {
    if (ctx.signal.aborted) return refuse('failed', 'The search was aborted.');
    const bytes = readChecked(file, guard, ctx);
    const r = bytes === undefined ? undefined : searchText(file, bytes, spec);
    if (r) results.push(r);
  }
  return results;
}

/**
 * One file's bytes, opened as Read opens it, or nothing (skipped, as ripgrep skips what it
 * cannot read). The walk never follows links, so a file whose checked path lands elsewhere
 * became a link after the walk listed it.
 */
function readChecked(file: string, guard: PathGuard, ctx: ToolCallContext): Buffer | undefined {
  const verdict = guard.check(file, 'read');
  if (!verdict.ok || !verdict.exists || verdict.path !== file) return undefined;
  const opened = openApprovedForRead(ctx, verdict);
  if (isRefusal(opened)) return undefined;
  try {
    const { stat } = opened;
    if (!stat.isFile() || stat.size > MAX_SEARCH_FILE_BYTES) return undefined;
    // Read no more than the size checked: a file that grows meanwhile is searched as it was.
    const buffer = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = fsSync.readSync(opened.fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  } catch {
    return undefined;
  } finally {
    fsSync.closeSync(opened.fd);
  }
}

function hardLinked(file: string): boolean {
  try {
    const stat = fsSync.lstatSync(file);
    return stat.isFile() && stat.nlink > 1;
  } catch {
    return true;
  }
}

/** ripgrep could not run because the policy requires a jail and bubblewrap cannot run here. */
const NO_JAIL = Symbol('no jail');

/** ripgrep under the sandbox, its output read back into the same per-file results. */
async function ripgrepSearch(
  rg: string,
  input: GrepInput,
  spec: SearchSpec,
  root: string,
  ctx: ToolCallContext,
): Promise<FileResult[] | Refusal | typeof NO_JAIL> {
  const args = [rg, '--no-heading', '--with-filename', '--color=never', '--max-columns=500'];
  if (input['-i']) args.push('-i');
  if (spec.multiline) args.push('-U', '--multiline-dotall');
  if (input.glob) for (const g of input.glob.split(/[\s,]+/).filter(Boolean)) args.push('--glob', g);
  if (input.type) args.push('--type', input.type);
  if (spec.mode === 'files_with_matches') args.push('-l');
  else if (spec.mode === 'count') args.push('--count');
  else {
    // Content comes as JSON events: file names and line text arrive whole, whatever `:` or
    // `-` they hold, and the lines are then formatted exactly as the JavaScript search does.
    args.push('--json');
    if (spec.before > 0) args.push('-B', String(spec.before));
    if (spec.after > 0) args.push('-A', String(spec.after));
  }
  args.push('-e', input.pattern, '--', root);
  const run = await runSandboxed({ argv: args, cwd: ctx.cwd, profile: ctx.sandbox, signal: ctx.signal });
  if (!run.ok) return run.kind === 'isolation-unavailable' ? NO_JAIL : refuse('sandbox', run.message);
  // sandbox.os: auto ran it bare because bubblewrap could not run: its output is not used.
  if (run.isolation !== 'bwrap') {
    if (run.output.spillPath !== undefined) await removeSpill(run.output.spillPath);
    return NO_JAIL;
  }
  if (run.exitCode !== 0 && run.exitCode !== 1)
    return refuse('failed', `ripgrep failed: ${run.output.inline.trim()}`);
  // Past the inline cap the whole output is in the spill file (up to the hard cap): read it all.
  let output = run.output.inline;
  const spill = run.output.spillPath;
  if (run.output.truncated && spill !== undefined) {
    try {
      output = await fs.readFile(spill, 'utf8');
    } finally {
      await removeSpill(spill);
    }
  }
  if (spec.mode === 'content') return ripgrepContent(output, spec);
  const byFile = new Map<string, FileResult>();
  for (const line of output.split('\n')) {
    if (line === '') continue;
    if (spec.mode === 'files_with_matches') {
      byFile.set(line, { file: line, lines: [], count: 1 });
      continue;
    }
    // `path:count`: the count is after the last colon, the path may hold colons of its own.
    const colon = line.lastIndexOf(':');
    if (colon <= 0) continue;
    const file = line.slice(0, colon);
    byFile.set(file, { file, lines: [], count: Number(line.slice(colon + 1)) || 0 });
  }
  return [...byFile.values()].sort((a, b) => a.file.localeCompare(b.file));
}

type RgLines = Map<number, { text: string; match: boolean }>;

function ripgrepContent(json: string, spec: SearchSpec): FileResult[] {
  const byFile = new Map<string, { shown: RgLines; count: number }>();
  for (const line of json.split('\n')) {
    if (line === '') continue;
    let event: { type?: string; data?: RgEventData };
    try {
      event = JSON.parse(line) as { type?: string; data?: RgEventData };
    } catch {
      continue;
    }
    if ((event.type !== 'match' && event.type !== 'context') || event.data === undefined) continue;
    const file = event.data.path?.text;
    const text = event.data.lines?.text;
    const first = event.data.line_number;
    if (file === undefined || text === undefined || typeof first !== 'number') continue;
    const entry = byFile.get(file) ?? { shown: new Map(), count: 0 };
    if (event.type === 'match') entry.count++;
    // A multiline match spans several lines: each is a matching line of its own.
    const parts = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
    parts.forEach((t, i) => {
      const n = first + i;
      const match = event.type === 'match' || entry.shown.get(n)?.match === true;
      entry.shown.set(n, { text: t.endsWith('\r') ? t.slice(0, -1) : t, match });
    });
    byFile.set(file, entry);
  }
  return [...byFile.entries()]
    .map(([file, { shown, count }]) => ({ file, lines: formatShown(file, shown, spec), count }))
    .sort((a, b) => a.file.localeCompare(b.file));
}

interface RgEventData {
  path?: { text?: string };
  lines?: { text?: string };
  line_number?: number;
}

function formatShown(file: string, shown: RgLines, spec: SearchSpec): string[] {
  const out: string[] = [];
  let previous = -2;
  for (const n of [...shown.keys()].sort((a, b) => a - b)) {
    const { text, match } = shown.get(n)!;
    if (previous >= 0 && n > previous + 1 && (spec.before > 0 || spec.after > 0)) out.push('--');
    const sep = match ? ':' : '-';
    const shownText =
      text.length > MAX_COLUMNS ? `${text.slice(0, MAX_COLUMNS)} [... omitted end of long line]` : text;
    out.push(spec.lineNumbers ? `${file}${sep}${n}${sep}${shownText}` : `${file}${sep}${shownText}`);
    previous = n;
  }
  return out;
}

async function mtimeOf(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).mtimeMs;
  } catch {
    return 0;
  }
}
