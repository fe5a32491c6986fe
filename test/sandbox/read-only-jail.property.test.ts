import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { removeSpill } from '../../src/sandbox/output.js';
import { runSandboxed } from '../../src/sandbox/run.js';
import { snapshot } from '../helpers/tree-snapshot.js';
import { profileFor } from './fixture.js';

/**
 * Issue #13's property: whatever the line, a read-only jail (nothing writable, no network)
 * changes no file outside its private /tmp. Lines are built from command words that write,
 * link, move, redirect and connect, so most of them try; the tree (workspace, home, a
 * neighbour) must be byte for byte as before. Runs only inside bwrap, in a throwaway tree.
 */
const probe = await probeBwrap();

const WORDS = [
  'touch x',
  'rm -rf .',
  'mv a.txt b.txt',
  'cp a.txt c.txt',
  'ln -s a.txt l',
  'mkdir d',
  'echo hi > a.txt',
  'echo hi >> ../home/.bashrc',
  'tee ../outside/keep.txt',
  'dd of=a.txt',
  'chmod 000 a.txt',
  'truncate -s0 a.txt',
  'sed -i s/one/two/ a.txt',
  'git init -q .',
  'mkdir -p .git/hooks && echo x > .git/hooks/pre-commit',
  'exec 3>a.txt; echo x >&3',
  'echo x > /proc/self/cwd/a.txt',
  'cd .. && touch ws-parent',
  'touch /tmp/ok',
  'cat a.txt',
  'ls -la',
  "python3 -c \"open('p','w')\"",
  "node -e \"require('fs').writeFileSync('n','x')\"",
  'curl -s http://127.0.0.1:1/ -o got',
  'find . -delete',
  'xargs -I{} rm {}',
  'true',
  'false',
];
const SEPARATORS = ['; ', ' && ', ' || ', ' | '];

const line = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 4 })
  .map((parts) => parts.map(([w, s], i) => (i === parts.length - 1 ? w : `${w}${s}`)).join(''));

describe.skipIf(!probe.available)('a read-only jail', () => {
  it('changes nothing outside its private /tmp, whatever the line (property)', async () => {
    const parent = fs.existsSync('/var/tmp') ? '/var/tmp' : os.homedir();
    const base = fs.realpathSync(fs.mkdtempSync(path.join(parent, 'tg-ro-')));
    const ws = path.join(base, 'ws');
    try {
      fs.mkdirSync(path.join(base, 'home'), { recursive: true });
      fs.mkdirSync(path.join(base, 'outside'), { recursive: true });
      fs.mkdirSync(ws, { recursive: true });
      fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
      fs.writeFileSync(path.join(base, 'home', '.bashrc'), '# rc\n');
      fs.writeFileSync(path.join(base, 'outside', 'keep.txt'), 'keep\n');
      const before = snapshot(base);
      await fc.assert(
        fc.asyncProperty(line, async (command) => {
          const r = await runSandboxed({
            script: command,
            cwd: ws,
            profile: profileFor([], {
              os: 'required',
              kind: 'read-only',
              workspaceRoots: [ws],
              timeoutMs: 3000,
            }),
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: path.join(base, 'home') },
          });
          if (!r.ok) throw new Error(`${command}: ${r.kind}: ${r.message}`);
          expect(r.isolation).toBe('bwrap');
          if (r.output.spillPath) await removeSpill(r.output.spillPath);
          expect(snapshot(base), command).toEqual(before);
        }),
        { numRuns: 25, seed: 1302 },
      );
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
    }
  }, 180_000);
});
