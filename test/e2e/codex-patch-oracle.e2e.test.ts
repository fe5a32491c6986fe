import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCodexPatch } from '../../src/adapters/codex-patch.js';
import { probeBwrap } from '../../src/sandbox/bwrap.js';
import { agentBinary } from './agent-bins.js';

/**
 * The real Codex as the oracle of toolgate's apply_patch reading (#17 item 1): generated patches
 * (headers with odd whitespace, Rust-only spaces, moves, escapes with ../, absolute paths, chunks
 * that do or do not match) are applied by codex-cli 0.171.0's own apply_patch
 * (`codex --codex-run-as-apply-patch PATCH`, the code its apply_patch tool runs) in bubblewrap,
 * in a throwaway tree. What must hold: every file Codex changed is a file toolgate decided, or
 * toolgate refused the patch. A refusal is always safe; the test also counts how often toolgate
 * refused a patch Codex applied, to keep that honest.
 */
const codex = agentBinary('codex');
const bwrap = await probeBwrap();
const native = codex.path
  ? path.join(
      path.dirname(fs.realpathSync(codex.path)),
      '..',
      '..',
      'codex-linux-x64',
      'vendor',
      'x86_64-unknown-linux-musl',
      'bin',
      'codex',
    )
  : undefined;
const base = fs.mkdtempSync('/var/tmp/toolgate-patch-oracle-');
afterAll(() => fs.rmSync(base, { recursive: true, force: true }));

const SEED: Readonly<Record<string, string>> = {
  'ws/a.txt': 'one\ntwo\nthree\n',
  'ws/b.txt': 'x\n',
  'ws/sub/c.txt': 'one\n',
  'out.txt': 'outside\n',
};

function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(p, fs.readFileSync(p, 'latin1'));
    }
  };
  walk(root);
  return out;
}

let run = 0;
function applyWithCodex(patch: string): { changed: string[]; ws: string; code: number | null } {
  const root = path.join(base, String(run++));
  for (const [f, text] of Object.entries(SEED)) {
    fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
    fs.writeFileSync(path.join(root, f), text);
  }
  const ws = path.join(root, 'ws');
  const before = snapshot(root);
  const r = spawnSync(
    'bwrap',
    [
      ...['--cap-drop', 'ALL', '--unshare-all', '--die-with-parent', '--ro-bind', '/', '/'],
      ...['--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--bind', root, root, '--chdir', ws],
      ...[native!, '--codex-run-as-apply-patch', patch],
    ],
    { encoding: 'utf8', timeout: 20_000 },
  );
  const after = snapshot(root);
  const changed = [...new Set([...before.keys(), ...after.keys()])].filter(
    (p) => before.get(p) !== after.get(p),
  );
  return { changed, ws, code: r.status };
}

const space = fc.constantFrom('', '', '', '', '', '', ' ', '\t', '\u0085', '\u00a0', '\ufeff');
const name = fc.constantFrom(
  'a.txt',
  'b.txt',
  'new.txt',
  'sub/c.txt',
  'sub/new.txt',
  '../out.txt',
  ' a.txt',
  'a.txt ',
);
const trail = fc.constantFrom('', '', ' ', '\t', '\u0085');
const mark = (m: string) => fc.tuple(space, name, trail).map(([s, n, t]) => `${s}${m}${n}${t}`);
// mostly lines that match the seeded files, so that Codex applies a good share of the patches
const chunkLine = fc.constantFrom(
  ' one',
  ' one',
  '+new',
  '+new',
  '-one',
  ' two',
  '+',
  '',
  ' *** Add File: new.txt',
);
const hunk = fc.oneof(
  fc.tuple(
    mark('*** Add File: '),
    fc.array(fc.constantFrom('+one', '+new', ' x'), { minLength: 1, maxLength: 2 }),
  ),
  mark('*** Delete File: ').map((h) => [h]),
  fc
    .tuple(
      mark('*** Update File: '),
      fc.option(mark('*** Move to: '), { nil: undefined }),
      fc.constantFrom([], ['@@'], ['@@ one'], ['@@', '@@ one']),
      fc.array(chunkLine, { minLength: 1, maxLength: 2 }),
      fc.constantFrom([], [], ['*** End of File']),
    )
    .map(([h, move, ctx, lines, eof]) => [h, ...(move ? [move] : []), ...ctx, ...lines, ...eof]),
);
// one update of a seeded file that applies, moved: where a Move to line's spaces decide the file
const moves = fc
  .tuple(
    fc.constantFrom('a.txt', 'sub/c.txt'),
    fc.constantFrom('', ' '),
    name,
    trail,
    fc.constantFrom(' one', '+new'),
  )
  .map(([from, lead, to, t, line]) =>
    [
      '*** Begin Patch',
      `*** Update File: ${from}`,
      `${lead}*** Move to: ${to}${t}`,
      '@@',
      ' one',
      line,
      '*** End Patch',
    ].join('\n'),
  );
const junk = fc.constantFrom('', '*** junk', '@@', '+stray', 'plain');
const patches = fc
  .tuple(
    fc
      .array(
        fc.oneof(
          { weight: 6, arbitrary: hunk.map((h) => h.flat()) },
          { weight: 1, arbitrary: junk.map((j) => [j]) },
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((hs) => hs.flat()),
    fc.constantFrom('plain', 'plain', 'heredoc', 'padded', 'crlf'),
  )
  .map(([lines, wrap]) => {
    const text = ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');
    if (wrap === 'heredoc') return `<<'EOF'\n${text}\nEOF`;
    if (wrap === 'crlf') return `${text.replaceAll('\n', '\r\n')}\r\n`;
    return wrap === 'padded' ? ` ${text.replaceAll('\n', ' \n')} \n` : text;
  });

describe.skipIf(codex.path === undefined || !bwrap.available)(
  "toolgate reads apply_patch as Codex's own apply_patch does",
  () => {
    it('every file Codex changes is one toolgate decided, or toolgate refused the patch (fast-check, in bwrap)', () => {
      const tally = { applied: 0, refusedButApplied: 0, decided: 0 };
      fc.assert(
        fc.property(fc.oneof({ weight: 3, arbitrary: patches }, { weight: 1, arbitrary: moves }), (patch) => {
          const { changed, ws } = applyWithCodex(patch);
          const read = parseCodexPatch(patch);
          if (changed.length > 0) tally.applied++;
          if (!read.ok) {
            if (changed.length > 0) tally.refusedButApplied++;
            return;
          }
          tally.decided++;
          const decided = new Set(
            read.files
              .flatMap((f) => [f.path, ...(f.op === 'update' && f.movePath ? [f.movePath] : [])])
              .map((p) => path.resolve(ws, p)),
          );
          for (const c of changed) expect(decided, `${JSON.stringify(patch)} changed ${c}`).toContain(c);
        }),
        { seed: 1717, numRuns: 300 },
      );
      console.log(`codex apply_patch oracle: ${JSON.stringify(tally)}`);
      // the generator must reach patches Codex applies, else the property says nothing
      expect(tally.applied).toBeGreaterThan(30);
    }, 300_000);
  },
);
