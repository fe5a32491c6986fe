import fs from 'node:fs';
import path from 'node:path';

/**
 * The README's fenced blocks as a reader copies them (issue 19: every README example true).
 * Each block is tested by the test file for its kind (kinds.ts); a block may go untested only
 * with a `<!-- not-a-test: reason -->` line right above it, so an example added without a
 * test turns test/readme/blocks.test.ts red.
 */
export interface Block {
  /** The README line of the opening fence (1-based). */
  readonly line: number;
  /** The fence's info string: sh, json, ts, yaml, or '' for plain text. */
  readonly lang: string;
  readonly text: string;
  /** The reason of a not-a-test marker right above the fence, if there is one. */
  readonly notATest?: string;
  /** The prose right before the block (its paragraph's last lines), which says what it is. */
  readonly before: string;
}

export const ROOT = path.resolve(import.meta.dirname, '..', '..');
export const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

export function readmeBlocks(markdown: string = README): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i === lines.length) throw new Error(`README.md:${start + 1}: a fence that is never closed`);
    const above = lines[start - 1] ?? '';
    const marker = /^<!-- not-a-test: (.+?) -->$/.exec(above.trim());
    blocks.push({
      line: start + 1,
      lang: open[1]!,
      text: `${body.join('\n')}\n`,
      ...(marker !== null && { notATest: marker[1]! }),
      before: lines.slice(Math.max(0, start - 4), start).join('\n'),
    });
  }
  return blocks;
}

/** A shell block's commands: one per line, comments and continuation-only lines dropped. */
export function shellCommands(block: Block): { command: string; comment: string }[] {
  return block.text
    .split('\n')
    .map((l) => {
      const hash = commentStart(l);
      return { command: l.slice(0, hash).trim(), comment: l.slice(hash + 1).trim() };
    })
    .filter((c) => c.command !== '');
}

/** Where a line's trailing `#` comment starts (outside quotes, after a space), else its length. */
function commentStart(line: string): number {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return i;
  }
  return line.length;
}
