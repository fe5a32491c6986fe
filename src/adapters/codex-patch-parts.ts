import path from 'node:path';
import type { ToolRequest } from '../policy/request.js';
import { type PatchFile, parseCodexPatch } from './codex-patch.js';
import type { CallPart } from './hook-protocol.js';

/**
 * The toolgate calls a Codex apply_patch stands for, one or more per file, so that one policy in
 * Claude Code's rule syntax decides it as it decides Claude Code's own file tools:
 *   Add File PATH          Write PATH with the added lines (Codex creates or replaces the file)
 *   Delete File PATH       Write PATH with nothing (a deletion changes the file as a Write would)
 *   Update File PATH       Edit PATH (MultiEdit for several chunks), the chunks' old and new lines
 *   ... Move to: DEST      Read PATH and Write PATH with nothing (its text leaves it and it goes),
 *                          and the Edit lands on DEST
 * Paths are Codex's: relative ones against the hook's cwd (the directory Codex applies the patch
 * in). A patch that cannot be read the way Codex reads it is refused (codex-patch.ts).
 */
export function patchParts(patch: string, call: ToolRequest): readonly CallPart[] | string {
  const parsed = parseCodexPatch(patch);
  if (!parsed.ok) return parsed.reason;
  return parsed.files.flatMap((f) => fileParts(f, call));
}

function fileParts(file: PatchFile, call: ToolRequest): CallPart[] {
  const at = (p: string) => path.resolve(call.cwd, p);
  const part = (label: string, tool: string, input: Record<string, unknown>): CallPart => ({
    label: `apply_patch ${label}`,
    request: { ...call, tool, input },
  });
  switch (file.op) {
    case 'add':
      return [part(`Add File ${file.path}`, 'Write', { file_path: at(file.path), content: file.contents })];
    case 'delete':
      return [part(`Delete File ${file.path}`, 'Write', { file_path: at(file.path), content: '' })];
    case 'update': {
      // the parser keeps only hunks with at least one chunk
      const edits = file.chunks.map((c) => ({ old_string: c.oldText, new_string: c.newText }));
      const dest = at(file.movePath ?? file.path);
      const [tool, input] =
        edits.length === 1
          ? ['Edit', { file_path: dest, ...edits[0] }]
          : ['MultiEdit', { file_path: dest, edits }];
      const label = `Update File ${file.path}`;
      if (file.movePath === undefined) return [part(label, tool, input)];
      return [
        part(`${label} (moved away: read)`, 'Read', { file_path: at(file.path) }),
        part(`${label} (moved away: removed)`, 'Write', { file_path: at(file.path), content: '' }),
        part(`${label} Move to ${file.movePath}`, tool, input),
      ];
    }
  }
}
