/**
 * Codex CLI's `apply_patch` text, read the way Codex reads it, into the files it changes. Codex
 * 0.171.0 hands its apply_patch tool to a PreToolUse hook as `tool_name: "apply_patch"`,
 * `tool_input: {command: <patch>}` (observed, test/e2e/codex-cli.e2e.test.ts); the format is
 * its Lark grammar (sent to the model as the tool's definition) and its parser,
 * codex-rs/apply-patch/src/parser.rs (github.com/openai/codex):
 *
 *   *** Begin Patch
 *   *** Add File: PATH      then lines `+TEXT`           (creates or replaces PATH)
 *   *** Delete File: PATH
 *   *** Update File: PATH   [*** Move to: PATH] then `@@ [CONTEXT]`, ` TEXT`, `-TEXT`, `+TEXT`,
 *                           `*** End of File`
 *   *** End Patch
 *
 * with Codex's leniencies: the whole text and each header line are trimmed (a Move to line at its
 * end only), a `<<EOF` /
 * `<<'EOF'` / `<<"EOF"` ... `EOF` wrapper is taken off, blank lines between chunks are skipped.
 * This module mirrors that parser, so that every file Codex would change is a file toolgate
 * decides; where the two could part ways it refuses instead of guessing: a patch Codex would not
 * apply, one naming an execution environment (`*** Environment ID:`, newer Codex: its files are
 * not on this machine), one that changes nothing, and any line that reads as a file header once
 * trimmed but is not one at its place (parser versions differ in what they trim; a file Codex
 * might change must never be one toolgate did not see).
 */
export type PatchFile =
  | { readonly op: 'add'; readonly path: string; readonly contents: string }
  | { readonly op: 'delete'; readonly path: string }
  | {
      readonly op: 'update';
      readonly path: string;
      readonly movePath?: string;
      readonly chunks: readonly { readonly oldText: string; readonly newText: string }[];
    };

export type ParsedPatch =
  | { readonly ok: true; readonly files: readonly PatchFile[] }
  | { readonly ok: false; readonly reason: string };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const END_OF_FILE = '*** End of File';
const ENVIRONMENT = '*** Environment ID:';
const HEADERS = [ADD, DELETE, UPDATE, MOVE];
const HEREDOC_STARTS = new Set(['<<EOF', "<<'EOF'", '<<"EOF"']);

export function parseCodexPatch(text: string): ParsedPatch {
  const all = rustLines(rustTrim(text));
  const bounded = boundaries(all);
  if (typeof bounded === 'string') return refused(bounded);
  const { body } = bounded;
  for (const [n, line] of body.entries())
    if (rustTrim(line).startsWith(ENVIRONMENT))
      return refused(
        `line ${n + 2} names an execution environment (${rustTrim(line).slice(0, 80)}): its files are not on this machine, so toolgate cannot decide them`,
      );
  const headerLines = new Set<number>();
  const files: PatchFile[] = [];
  let i = 0;
  while (i < body.length) {
    const hunk = parseHunk(body, i);
    if (typeof hunk === 'string') return refused(hunk);
    files.push(hunk.file);
    for (const h of hunk.headers) headerLines.add(h);
    i = hunk.next;
  }
  for (const [n, line] of body.entries()) {
    const trimmed = rustTrim(line);
    if (!headerLines.has(n) && HEADERS.some((h) => trimmed.startsWith(h)))
      return refused(
        `line ${n + 2} (${JSON.stringify(line.slice(0, 80))}) reads as a file header but is not one at its place; Codex versions differ there, so the patch is not guessed at`,
      );
  }
  if (files.length === 0) return refused('the patch changes no file');
  return { ok: true, files };
}

function refused(reason: string): ParsedPatch {
  return { ok: false, reason: `Codex apply_patch: ${reason}` };
}

/** The lines between the markers (Codex: check_patch_boundaries_strict, then _lenient). */
function boundaries(lines: readonly string[]): { body: readonly string[] } | string {
  const strict = (ls: readonly string[]): string | undefined => {
    const first = ls[0] === undefined ? undefined : rustTrim(ls[0]);
    const last = ls.length < 2 ? undefined : rustTrim(ls[ls.length - 1]!);
    if (first !== BEGIN) return `the first line of the patch must be '${BEGIN}'`;
    if (last !== END) return `the last line of the patch must be '${END}'`;
    return undefined;
  };
  const error = strict(lines);
  if (error === undefined) return { body: lines.slice(1, -1) };
  const [first] = lines;
  if (
    first !== undefined &&
    HEREDOC_STARTS.has(first) &&
    lines.length >= 4 &&
    lines.at(-1)!.endsWith('EOF')
  ) {
    const inner = lines.slice(1, -1);
    const innerError = strict(inner);
    return innerError ?? { body: inner.slice(1, -1) };
  }
  return error;
}

interface Hunk {
  readonly file: PatchFile;
  /** Indexes of the lines read as headers (the hunk's and its Move to). */
  readonly headers: readonly number[];
  readonly next: number;
}

/** One hunk from `at` (Codex: parse_one_hunk), or why it is not one. */
function parseHunk(lines: readonly string[], at: number): Hunk | string {
  const header = rustTrim(lines[at]!);
  const where = `line ${at + 2}`;
  if (header.startsWith(ADD)) {
    let i = at + 1;
    const added: string[] = [];
    while (i < lines.length && lines[i]!.startsWith('+')) added.push(lines[i++]!.slice(1));
    const contents = added.map((l) => `${l}\n`).join('');
    return { file: { op: 'add', path: header.slice(ADD.length), contents }, headers: [at], next: i };
  }
  if (header.startsWith(DELETE))
    return { file: { op: 'delete', path: header.slice(DELETE.length) }, headers: [at], next: at + 1 };
  if (!header.startsWith(UPDATE))
    return `${where}: '${header.slice(0, 80)}' is not a valid hunk header (Add File, Delete File or Update File)`;
  const path = header.slice(UPDATE.length);
  const headers = [at];
  let i = at + 1;
  // right after the Update header; codex-cli 0.171.0 trims its end only (observed: "*** Move to:
  // b.txt " moves to b.txt, a Move to line led by a space is an error), as the parser.rs read
  // did not: the real binary is this module's oracle (test/e2e/codex-patch-oracle.e2e.test.ts)
  let movePath: string | undefined;
  const move = i < lines.length ? rustTrimEnd(lines[i]!) : '';
  if (move.startsWith(MOVE)) {
    movePath = move.slice(MOVE.length);
    headers.push(i++);
  }
  const chunks: { oldText: string; newText: string }[] = [];
  while (i < lines.length) {
    const line = lines[i]!;
    if (rustTrim(line) === '') {
      i++;
      continue;
    }
    if (line.startsWith('*')) break;
    const chunk = parseChunk(lines, i, chunks.length === 0);
    if (typeof chunk === 'string') return chunk;
    chunks.push(chunk.chunk);
    i = chunk.next;
  }
  if (chunks.length === 0) return `${where}: the Update File hunk for '${path.slice(0, 80)}' is empty`;
  const file = { op: 'update', path, chunks, ...(movePath === undefined ? {} : { movePath }) } as const;
  return { file, headers, next: i };
}

/** One `@@` chunk of an Update File hunk (Codex: parse_update_file_chunk). */
function parseChunk(
  lines: readonly string[],
  at: number,
  first: boolean,
): { chunk: { oldText: string; newText: string }; next: number } | string {
  let i = at;
  let marked = false;
  while (i < lines.length && (lines[i] === '@@' || lines[i]!.startsWith('@@ '))) {
    marked = true;
    i++;
  }
  if (!marked && !first) return `line ${at + 2}: an update chunk must start with a @@ context marker`;
  const oldLines: string[] = [];
  const newLines: string[] = [];
  let read = 0;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === END_OF_FILE) {
      if (read === 0) return `line ${i + 2}: an update chunk has no lines`;
      i++;
      break;
    }
    const mark = line[0];
    if (mark === undefined) {
      oldLines.push('');
      newLines.push('');
    } else if (mark === ' ' || mark === '-' || mark === '+') {
      if (mark !== '+') oldLines.push(line.slice(1));
      if (mark !== '-') newLines.push(line.slice(1));
    } else if (read === 0) {
      return `line ${i + 2}: unexpected line in an update chunk (each starts with ' ', '-' or '+')`;
    } else break;
    read++;
  }
  if (read === 0) return `line ${at + 2}: an update chunk has no lines`;
  return { chunk: { oldText: oldLines.join('\n'), newText: newLines.join('\n') }, next: i };
}

/**
 * Rust's str::trim: Unicode White_Space, which is not JavaScript's trim (Rust trims U+0085 and
 * keeps U+FEFF; JavaScript the other way round). The same header must be a header to both.
 */
const RUST_SPACE =
  '[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]';
const RUST_TRIM = new RegExp(`^${RUST_SPACE}+|${RUST_SPACE}+$`, 'g');

const RUST_TRIM_END = new RegExp(`${RUST_SPACE}+$`);

export function rustTrim(s: string): string {
  return s.replace(RUST_TRIM, '');
}

function rustTrimEnd(s: string): string {
  return s.replace(RUST_TRIM_END, '');
}

/** Rust's str::lines: split on \n, a \r before it dropped, no empty last line after a final \n. */
function rustLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (s.endsWith('\n')) lines.pop();
  return lines;
}
