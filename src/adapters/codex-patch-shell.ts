/**
 * Codex's apply_patch spelled as a shell command: `apply_patch <<'EOF'` ... `EOF`, or `cd DIR &&
 * apply_patch <<'EOF'` ... (also `applypatch`). Codex recognises exactly these whole-script forms
 * (codex-rs/apply-patch/src/invocation.rs, a tree-sitter query anchored to a single statement)
 * and applies the heredoc's text itself, in-process, in DIR: no shell runs (observed with
 * codex-cli 0.171.0: the hook got tool_name Bash with this command, and the files changed without
 * a process). So such a line is decided as the patch's files, like the apply_patch tool.
 *
 * Read here more narrowly than Codex does, never more widely: one first line of exactly that
 * shape (a plain or single-quoted DIR), then the body, then the delimiter alone on the last line
 * and nowhere before it. Whatever else is the Bash line it looks like. With an unquoted delimiter
 * a shell would expand `$`, backquotes and backslashes in the body, so should a shell run the line
 * after all, it would not be the patch's text: such a line is decided as Bash too (`shell: true`).
 */
export interface ShellPatch {
  /** The heredoc's text: the patch. */
  readonly patch: string;
  /** The `cd` directory, as written (relative to the call's cwd, or absolute). */
  readonly dir?: string;
  /** Whether the line must also be decided as the Bash line it is. */
  readonly shell: boolean;
}

const FIRST_LINE =
  /^(?:cd ([A-Za-z0-9._/+-]+|'[^'\n]*') && )?(?:apply_patch|applypatch) <<(?:'([A-Za-z_]\w*)'|"([A-Za-z_]\w*)"|([A-Za-z_]\w*))$/;

export function shellPatch(command: string): ShellPatch | undefined {
  const nl = command.indexOf('\n');
  if (nl < 0) return undefined;
  const first = FIRST_LINE.exec(command.slice(0, nl));
  if (first === null) return undefined;
  const [, dir, single, double, bare] = first;
  const delimiter = (single ?? double ?? bare)!;
  const rest = command.slice(nl + 1);
  const lines = (rest.endsWith('\n') ? rest.slice(0, -1) : rest).split('\n');
  if (lines.at(-1) !== delimiter || lines.indexOf(delimiter) !== lines.length - 1) return undefined;
  const patch = lines.slice(0, -1).join('\n');
  const quoted = single !== undefined || double !== undefined;
  return {
    patch,
    ...(dir === undefined ? {} : { dir: dir.startsWith("'") ? dir.slice(1, -1) : dir }),
    shell: !quoted && /[$`\\]/.test(patch),
  };
}
