import type { ToolUseBlock } from './blocks.js';
import type { ToolRegistry } from './registry.js';

/**
 * Which calls may share a batch: only consecutive concurrency-safe ones. Safety is decided per
 * input (Bash `ls` is safe, Bash `rm` is not); an unknown tool, an input that fails the schema,
 * or a flag function that throws all count as unsafe, so a call we cannot judge runs alone.
 */
export interface Batch {
  readonly concurrent: boolean;
  readonly blocks: readonly ToolUseBlock[];
}

export function isConcurrencySafeCall(block: ToolUseBlock, tools: ToolRegistry): boolean {
  try {
    const tool = tools.find(block.name);
    if (!tool) return false;
    const parsed = tool.inputSchema.safeParse(block.input);
    return parsed.success && tool.isConcurrencySafe(parsed.data) === true;
  } catch {
    return false;
  }
}

export function partitionToolCalls(blocks: readonly ToolUseBlock[], tools: ToolRegistry): Batch[] {
  const batches: { concurrent: boolean; blocks: ToolUseBlock[] }[] = [];
  for (const block of blocks) {
    const safe = isConcurrencySafeCall(block, tools);
    const last = batches[batches.length - 1];
    if (safe && last?.concurrent) last.blocks.push(block);
    else batches.push({ concurrent: safe, blocks: [block] });
  }
  return batches;
}
