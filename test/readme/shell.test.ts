import { afterAll, describe, expect, it } from 'vitest';
import { readmeBlocks, shellCommands } from './blocks.js';
import { type Scratch, scratch } from './scratch.js';
import { SHELL } from './shell-commands.js';

/**
 * Every command of the README's shell blocks, run as printed (bash, `toolgate` on the PATH)
 * in a scratch directory of its block, in the block's order, and held to what the README says
 * it does (shell-commands.ts).
 */
const made: Scratch[] = [];
afterAll(() => {
  for (const s of made) s.remove();
});

const blocks = readmeBlocks().filter((b) => b.lang === 'sh' && b.notATest === undefined);

describe.each(blocks.map((b) => [b.line, b] as const))(
  'README.md:%i',
  { timeout: 240_000 },
  (_line, block) => {
    it('runs as the README says', async () => {
      const s = scratch();
      made.push(s);
      const done = new Set<unknown>();
      for (const { command } of shellCommands(block)) {
        const entry = SHELL[command];
        expect(entry, `no test for the README line: ${command}`).toBeDefined();
        if (entry!.setup !== undefined && !done.has(entry!.setup)) {
          done.add(entry!.setup);
          await entry!.setup(s);
        }
        const at: Scratch = {
          ...s,
          sh: (line, opts = {}) => s.sh(line, { cwd: entry!.cwd ?? '.', ...opts }),
        };
        await entry!.run(at, command);
      }
    });
  },
);
