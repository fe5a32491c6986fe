import fs from 'node:fs/promises';
import path from 'node:path';
import { minimatch } from 'minimatch';
import { z } from 'zod';
import { buildTool } from '../pipeline/build-tool.js';
import type { ToolResult } from '../pipeline/tool.js';
import { absoluteField, guardOf } from './file-guard.js';
import { isRefusal, type Refusal, refusalBlock, refuse } from './refusal.js';
import { walkFiles } from './walk.js';

/**
 * Glob: files whose path matches a glob pattern, newest first (by modification time), at most
 * 100. Files the policy does not let this call read are left out, as if they were not there.
 */
export const MAX_GLOB_RESULTS = 100;

const inputSchema = z.strictObject({
  pattern: z.string().min(1).describe('A glob pattern, e.g. "**/*.ts" or "src/**/index.*"'),
  path: z.string().optional().describe('The directory to search (default: the working directory)'),
});

export type GlobOutput = { files: string[]; truncated: boolean; durationMs: number } | Refusal;

export const GlobTool = buildTool({
  name: 'Glob',
  searchHint: 'find files by name pattern glob list',
  inputSchema,
  maxResultSizeChars: 100_000,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  isDestructive: () => false,
  interruptBehavior: () => 'cancel',
  prompt: () => 'Finds files by glob pattern (e.g. "**/*.ts"), newest first; at most 100 results.',
  description: (input) => `Find ${input.pattern}`,
  backfillObservableInput: (input, ctx) => absoluteField(input, 'path', ctx),
  async call(input, ctx): Promise<ToolResult<GlobOutput>> {
    const started = performance.now();
    const guard = guardOf(ctx);
    if (isRefusal(guard)) return { data: guard };
    const { base, pattern } = splitPattern(input.pattern, input.path ?? ctx.cwd, ctx.cwd);
    const root = guard.check(base, 'read');
    if (!root.ok) return { data: refuse('path-denied', root.reason) };
    if (!root.exists) return { data: refuse('not-found', `Directory does not exist: ${root.literal}.`) };
    const walk = await walkFiles(root.path, ctx.signal);
    const matched = walk.files.filter((f) => minimatch(f.rel, pattern, { dot: true }));
    const dated: { file: string; mtime: number }[] = [];
    for (const f of matched) {
      if (!guard.check(f.path, 'read').ok) continue;
      try {
        dated.push({ file: f.path, mtime: (await fs.stat(f.path)).mtimeMs });
      } catch {
        // vanished since the walk
      }
    }
    dated.sort((a, b) => b.mtime - a.mtime || a.file.localeCompare(b.file));
    return {
      data: {
        files: dated.slice(0, MAX_GLOB_RESULTS).map((d) => d.file),
        truncated: dated.length > MAX_GLOB_RESULTS || walk.truncated,
        durationMs: performance.now() - started,
      },
    };
  },
  mapToolResultToToolResultBlockParam(output, toolUseId) {
    if (isRefusal(output)) return refusalBlock(output, toolUseId);
    let content = output.files.length === 0 ? 'No files found' : output.files.join('\n');
    if (output.truncated) content += '\n(Results are truncated. Use a more specific path or pattern.)';
    return { type: 'tool_result', tool_use_id: toolUseId, content };
  },
  renderToolUseMessage: (input) => `Glob(${input.pattern ?? ''}${input.path ? `, ${input.path}` : ''})`,
  renderToolResultMessage: (output) =>
    isRefusal(output) ? `✗ ${output.message}` : `Found ${output.files.length} files`,
});

/** An absolute pattern (or one with a literal leading part) walks from its literal prefix only. */
export function splitPattern(pattern: string, dir: string, cwd: string): { base: string; pattern: string } {
  const base = path.resolve(cwd, dir);
  const absolute = path.isAbsolute(pattern);
  const parts = pattern.split('/');
  const literal: string[] = [];
  while (parts.length > 1 && !/[*?[\]{}!()]/.test(parts[0]!)) literal.push(parts.shift()!);
  if (literal.length === 0) return { base, pattern };
  return {
    base: absolute ? literal.join('/') || '/' : path.resolve(base, literal.join('/')),
    pattern: parts.join('/'),
  };
}
