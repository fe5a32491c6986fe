import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyLog } from '../../src/audit/verify.js';
import { readLines, tempDir } from './fixtures/sample.js';

const CHILD = fileURLToPath(new URL('./fixtures/append-child.ts', import.meta.url));
const t = tempDir();
afterAll(() => t.cleanup());

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('DecisionLog across processes', () => {
  it('32 processes appending 1,000 decisions each leave 32,000 records and an intact chain', async () => {
    const log = join(t.dir, 'shared.jsonl');
    const cp = join(t.dir, 'shared.checkpoint');
    const results = await Promise.all(
      Array.from({ length: 32 }, (_, w) => run([log, cp, String(w), '1000'])),
    );
    for (const r of results) expect(r).toEqual({ code: 0, stderr: '' });

    expect(await verifyLog(log, { checkpointPath: cp })).toMatchObject({
      ok: true,
      count: 32_000,
      checkpoint: { count: 32_000, beyond: 0 },
    });
    // Every worker's every decision is there exactly once, and each worker's own are in its order.
    const seen = new Map<number, number[]>();
    for (const line of readLines(log)) {
      const [w, i] = (JSON.parse(line).request.input.command as string)
        .split('# ')[1]!
        .split(':')
        .map(Number);
      seen.set(w!, [...(seen.get(w!) ?? []), i!]);
    }
    expect(seen.size).toBe(32);
    for (const list of seen.values()) expect(list).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    expect(readFileSync(log, 'utf8').endsWith('\n')).toBe(true);
  }, 300_000);
});
