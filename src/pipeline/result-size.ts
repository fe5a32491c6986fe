import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { resultText, type ToolResultBlock } from './blocks.js';

/**
 * A result bigger than the tool's maxResultSizeChars does not go to the model whole: the full
 * text is written to a private file and the model gets a preview and the path, which it can
 * page through with Read. Read itself has no limit here (it bounds its own output).
 */
export const PREVIEW_CHARS = 2_000;

export async function boundResult(
  block: ToolResultBlock,
  maxChars: number,
  resultDir: string | undefined,
): Promise<ToolResultBlock> {
  if (!Number.isFinite(maxChars)) return block;
  const text = resultText(block.content);
  if (text.length <= maxChars) return block;
  const preview = cut(text, Math.min(PREVIEW_CHARS, maxChars));
  let where: string;
  try {
    const file = await saveResult(text, block.tool_use_id, resultDir);
    where = `The full result is in ${file}; read it in parts with the Read tool (offset and limit).`;
  } catch (err) {
    where = `The full result could not be saved (${(err as Error).message}); narrow the call to see the rest.`;
  }
  const content = `${preview}\n\n… [the result has ${text.length} characters, more than the ${maxChars} shown inline. ${where}]`;
  return { ...block, content };
}

async function saveResult(text: string, toolUseId: string, resultDir: string | undefined): Promise<string> {
  const dir = resultDir ?? path.join(os.tmpdir(), `toolgate-results-${process.getuid?.() ?? 'user'}`);
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const safeId = toolUseId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  const file = path.join(dir, `${safeId}-${randomUUID().slice(0, 8)}.txt`);
  // 'wx': never follow or reuse an existing name someone else placed in a shared directory.
  await fs.writeFile(file, text, { flag: 'wx', mode: 0o600 });
  return file;
}

function cut(text: string, n: number): string {
  if (text.length <= n) return text;
  const code = text.charCodeAt(n - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? n - 1 : n);
}
